// A new document: files uploaded (chosen or dropped: PDF, Office, Markdown…; file-uploads.tsx), each one document, or
// typed or pasted.
import { useState } from 'preact/hooks'
import { api, DASHBOARD, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { KINDS, type Kind } from '../lib/kinds'
import { navigate } from '../lib/router'
import { useAction } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { PageTitle } from '../ui/page'
import { ActionStatus } from '../ui/states'
import { parseTags } from './document-edit'
import { FileUploads } from './file-uploads'

export function NewDocument() {
  const { list, current } = useWorkspaces()
  const [workspace, setWorkspace] = useState(current)
  const [title, setTitle] = useState('')
  const [body, setBody] = useState('')
  const [tags, setTags] = useState('')
  const [kind, setKind] = useState<Kind>('document')
  const action = useAction()
  const common = () => ({ ...DASHBOARD, workspace_id: workspace || undefined, tags: parseTags(tags), kind })

  const save = async (event: Event) => {
    event.preventDefault()
    const doc = await action.run(() =>
      unwrap(api.POST('/api/documents', { body: { ...common(), body, ...(title.trim() ? { title: title.trim() } : {}) } })),
    )
    if (!doc) return
    announce(doc.deduplicated ? 'Updated the existing document with the same content' : 'Saved')
    navigate(`/app/documents/${doc.id}`)
  }

  return (
    <section>
      <PageTitle title="New document" />
      <div class="row options">
        <label>
          Workspace
          <select value={workspace} onChange={(e) => setWorkspace(e.currentTarget.value)}>
            <option value="">Default workspace</option>
            {list?.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tags <span class="hint">(comma-separated)</span>
          <input value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </label>
      </div>
      <FileUploads fields={{ workspace_id: workspace || undefined, tags: parseTags(tags).join(',') || undefined }} />
      <form class="stack card" onSubmit={save}>
        <h2>Or write or paste it</h2>
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          Title <span class="hint">(optional: taken from the text otherwise)</span>
          <input name="title" maxLength={500} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Body <span class="hint">(Markdown)</span>
          <textarea name="body" required rows={12} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </label>
        <ActionStatus action={action} />
        <button type="submit" class="primary" disabled={action.busy || !body.trim()}>
          {action.busy ? 'Saving…' : 'Save document'}
        </button>
      </form>
    </section>
  )
}
