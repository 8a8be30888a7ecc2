// The account as one zip: download everything (GET /api/account/export, a plain link the browser saves), or import
// an archive or a zipped Markdown folder (an Obsidian vault) into this account.
import { useRef, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { forgetWorkspaces } from '../lib/workspaces'
import { useAction } from '../lib/use-api'
import { ActionStatus } from '../ui/states'

export function AccountArchive() {
  const file = useRef<HTMLInputElement>(null)
  const upload = useAction()
  const [summary, setSummary] = useState('')
  const submit = async (event: Event) => {
    event.preventDefault()
    const picked = file.current?.files?.[0]
    if (!picked) return
    const form = new FormData()
    form.append('file', picked)
    setSummary('')
    const result = await upload.run(() => unwrap(api.POST('/api/account/import', { body: form as never })))
    if (!result) return
    if (file.current) file.current.value = ''
    forgetWorkspaces()
    const text =
      `Imported ${result.documents.created} documents, ${result.memories.created} memories, ${result.messages.created} messages ` +
      `and ${result.links.created} links; ${result.documents.skipped + result.memories.skipped + result.messages.skipped} already here were skipped.`
    setSummary(text)
    announce(text)
  }
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="archive-heading">
      <h2 id="archive-heading">Your data</h2>
      <p>
        Download everything as one zip: documents and memories (also as Markdown files), conversations, links, workspaces and settings. An
        archive imports back into this or another account.
      </p>
      <a class="button" href="/api/account/export" download>
        Export everything
      </a>
      <label>
        <span>
          Import an archive <span class="hint">(an export, or a zipped Markdown folder such as an Obsidian vault)</span>
        </span>
        <input ref={file} type="file" accept=".zip,application/zip" disabled={upload.busy} />
      </label>
      <button type="submit" disabled={upload.busy}>
        Import
      </button>
      <ActionStatus action={upload} />
      {summary && <p role="status">{summary}</p>}
    </form>
  )
}
