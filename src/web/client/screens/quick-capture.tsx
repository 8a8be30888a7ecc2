// Quick capture: paste text (saved as a note) or a URL (saved as a webpage link) into the chosen workspace.
import { useState } from 'preact/hooks'
import { api, DASHBOARD, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { useAction } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { Link } from '../ui/link'
import { ActionStatus } from '../ui/states'

const isUrl = (text: string) => /^https?:\/\/\S+$/i.test(text)

export function QuickCapture({ onSaved }: { onSaved: () => void }) {
  const { current } = useWorkspaces()
  const [text, setText] = useState('')
  const [saved, setSaved] = useState<{ id: string; title: string; deduplicated: boolean } | null>(null)
  const action = useAction()
  const trimmed = text.trim()

  const save = async (event: Event) => {
    event.preventDefault()
    if (!trimmed) return
    const workspace_id = current || undefined
    // The service does not fetch pages (the extension sends their text): a URL is kept as a link to it.
    const body = isUrl(trimmed)
      ? { ...DASHBOARD, workspace_id, url: trimmed, title: trimmed, body: trimmed, kind: 'webpage' as const }
      : { ...DASHBOARD, workspace_id, body: trimmed, kind: 'note' as const }
    const doc = await action.run(() => unwrap(api.POST('/api/documents', { body })))
    if (!doc) return
    setSaved({ id: doc.id, title: doc.title, deduplicated: doc.deduplicated })
    setText('')
    announce(doc.deduplicated ? 'Updated the existing document' : 'Saved')
    onSaved()
  }

  return (
    <form class="card capture" onSubmit={save}>
      <label for="capture">
        <h2>Quick capture</h2>
        <span class="hint">Paste text or a URL; it is saved to {current ? 'the chosen workspace' : 'your default workspace'}.</span>
      </label>
      <textarea
        id="capture"
        rows={3}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        placeholder="A thought, a fact, a link…"
      />
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy || !trimmed}>
          {action.busy ? 'Saving…' : isUrl(trimmed) ? 'Save link' : 'Save note'}
        </button>
        {saved && (
          <span>
            {saved.deduplicated ? 'Updated ' : 'Saved '}
            <Link href={`/app/documents/${saved.id}`}>{saved.title}</Link>
          </span>
        )}
      </div>
      <ActionStatus action={action} />
    </form>
  )
}
