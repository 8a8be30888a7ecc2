// A new document: typed or pasted, or uploaded from .md / .txt files (chosen or dropped), each file one document.
import { useState } from 'preact/hooks'
import { api, DASHBOARD, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { KINDS, type Kind } from '../lib/kinds'
import { navigate } from '../lib/router'
import { useAction } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus } from '../ui/states'
import { parseTags } from './document-edit'

const ACCEPTED = /\.(md|markdown|txt)$/i

/** A file's title: its first Markdown heading, else its name without the extension. */
export function titleOf(name: string, text: string): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(text)?.[1]
  return (heading ?? name.replace(ACCEPTED, '')).slice(0, 500) || name
}

interface Uploaded {
  name: string
  id?: string
  title?: string
  error?: string
}

export function NewDocument() {
  const { list, current } = useWorkspaces()
  const [workspace, setWorkspace] = useState(current)
  const [title, setTitle] = useState('')
  const [body, setBody] = useState('')
  const [tags, setTags] = useState('')
  const [kind, setKind] = useState<Kind>('document')
  const [uploads, setUploads] = useState<Uploaded[]>([])
  const [dragging, setDragging] = useState(false)
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

  const upload = async (files: File[]) => {
    const results: Uploaded[] = []
    for (const file of files) {
      if (!ACCEPTED.test(file.name)) {
        results.push({ name: file.name, error: 'only .md and .txt files can be uploaded' })
        continue
      }
      const text = await file.text()
      let failed = 'not saved'
      const doc = await action.run(() =>
        unwrap(api.POST('/api/documents', { body: { ...common(), title: titleOf(file.name, text), body: text } })).catch((error: Error) => {
          failed = error.message
          throw error
        }),
      )
      results.push(doc ? { name: file.name, id: doc.id, title: doc.title } : { name: file.name, error: failed })
      setUploads([...results])
    }
    setUploads(results)
    announce(`${results.filter((r) => r.id).length} of ${results.length} files saved`)
  }

  const drop = (event: DragEvent) => {
    event.preventDefault()
    setDragging(false)
    void upload(Array.from(event.dataTransfer?.files ?? []))
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
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            {KINDS.map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label>
          Tags <span class="hint">(comma-separated)</span>
          <input value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </label>
      </div>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: dropping files is a pointer shortcut; the file input inside is the keyboard way. */}
      <div
        class={`dropzone${dragging ? ' dragging' : ''}`}
        onDragOver={(e) => (e.preventDefault(), setDragging(true))}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <label>
          <span>Drop .md or .txt files here, or choose them:</span>
          <input
            type="file"
            accept=".md,.markdown,.txt,text/markdown,text/plain"
            multiple
            onChange={(e) => void upload(Array.from(e.currentTarget.files ?? []))}
          />
        </label>
      </div>
      {uploads.length > 0 && (
        <ul class="uploads" aria-label="Uploaded files">
          {uploads.map((u) => (
            <li key={u.name}>
              {u.id ? (
                <Link href={`/app/documents/${u.id}`}>{u.title}</Link>
              ) : (
                <span class="error-text">
                  {u.name}: {u.error}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      <form class="stack card" onSubmit={save}>
        <h2>Or write or paste it</h2>
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
