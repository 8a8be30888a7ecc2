// Editing a document's title, tags, excerpt and body (PATCH; the service re-indexes it).
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { useAction } from '../lib/use-api'
import { PageTitle } from '../ui/page'
import { ActionStatus } from '../ui/states'
import type { Doc } from './document-doc'

/** "a, b,, c " → ["a", "b", "c"], each distinct. */
export const parseTags = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  ),
]

export function DocumentEdit({ doc, onDone }: { doc: Doc; onDone(saved: boolean): void }) {
  const [title, setTitle] = useState(doc.title)
  const [tags, setTags] = useState(doc.tags.join(', '))
  const [body, setBody] = useState(doc.body)
  const action = useAction()

  const save = async (event: Event) => {
    event.preventDefault()
    const saved = await action.run(() =>
      unwrap(api.PATCH('/api/documents/{id}', { params: { path: { id: doc.id } }, body: { title, tags: parseTags(tags), body } })),
    )
    if (!saved) return
    announce('Saved')
    onDone(true)
  }

  return (
    <section class="document">
      <PageTitle title={`Edit “${doc.title}”`} />
      <form class="stack" onSubmit={save}>
        <label>
          Title
          <input name="title" required maxLength={500} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Tags <span class="hint">(comma-separated)</span>
          <input name="tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </label>
        <label>
          Body <span class="hint">(Markdown)</span>
          <textarea name="body" required rows={18} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </label>
        <ActionStatus action={action} />
        <div class="row">
          <button type="submit" class="primary" disabled={action.busy}>
            {action.busy ? 'Saving…' : 'Save'}
          </button>
          <button type="button" onClick={() => onDone(false)}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  )
}
