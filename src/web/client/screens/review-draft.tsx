// The selected draft of the review queue: what the agent proposed (kind, title, body, topic, confidence, evidence,
// the conversation it came from, the messages it rests on), what it changes in the memory it would supersede (a word
// diff), similar memories to merge it into or reject it as a duplicate of, and its actions — approve, edit then
// approve, reject.
import { useState } from 'preact/hooks'
import { type Draft, factsOf } from '../lib/drafts'
import { formatDate } from '../lib/format'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import { Tags } from '../ui/doc-list'
import { Link } from '../ui/link'
import { Markdown } from '../ui/markdown'
import { EvidenceMessages } from './review-evidence'
import { type Memory, Similar, Supersedes } from './review-related'

export interface Edit {
  title: string
  body: string
  tags: string[]
}

interface Props {
  draft: Draft
  editing: boolean
  busy: boolean
  onApprove(edit?: Edit): void
  onReject(): void
  /** Approve it as the update of this memory, which it supersedes. */
  onMerge(memory: Memory): void
  /** Reject it as a duplicate of this memory. */
  onDuplicate(memory: Memory): void
  onEdit(editing: boolean): void
}

export function DraftCard({ draft, editing, busy, onApprove, onReject, onMerge, onDuplicate, onEdit }: Props) {
  const facts = factsOf(draft)
  const { list } = useWorkspaces()
  const heading = `draft-${draft.id}`
  return (
    <article id={`card-${draft.id}`} class="draft card selected" tabIndex={-1} aria-labelledby={heading}>
      <div class="draft-head">
        <span class="kind-badge">{draft.kind}</span>
        <h2 id={heading} dir="auto">
          {draft.title}
        </h2>
      </div>
      <p class="meta">
        {facts.topic && <span>topic: {facts.topic}</span>}
        {facts.confidence !== undefined && <Confidence value={facts.confidence} />}
        <span>from {draft.source}</span>
        <span>{workspaceName(list, draft.workspace_id)}</span>
        {facts.thread ? (
          <Link href={`/app/conversations/${facts.thread}`}>the conversation</Link>
        ) : (
          facts.conversation && <Link href={`/app/ask/${facts.conversation}`}>the conversation</Link>
        )}
        <time dateTime={draft.created_at}>{formatDate(draft.created_at)}</time>
      </p>
      <Tags tags={draft.tags} />
      {editing ? (
        <EditForm draft={draft} busy={busy} onSave={(edit) => onApprove(edit)} onCancel={() => onEdit(false)} />
      ) : facts.supersedes ? (
        <Supersedes draft={draft} id={facts.supersedes} />
      ) : (
        <div class="draft-body">
          <Markdown source={draft.body} shift={2} />
        </div>
      )}
      {facts.evidenceMessages ? (
        <EvidenceMessages ids={facts.evidenceMessages} />
      ) : (
        facts.evidence && (
          <div class="evidence">
            <p class="compare-label">Evidence</p>
            <blockquote>{facts.evidence}</blockquote>
          </div>
        )
      )}
      {!editing && (
        <div class="row draft-actions" role="group" aria-label={`Review “${draft.title}”`}>
          <button type="button" class="primary" disabled={busy} onClick={() => onApprove()} aria-keyshortcuts="a">
            Approve
          </button>
          <button type="button" disabled={busy} onClick={() => onEdit(true)} aria-keyshortcuts="e">
            Edit
          </button>
          <button type="button" class="danger" disabled={busy} onClick={onReject} aria-keyshortcuts="r">
            Reject
          </button>
        </div>
      )}
      {!editing && <Similar draft={draft} exclude={facts.supersedes} busy={busy} onMerge={onMerge} onDuplicate={onDuplicate} />}
    </article>
  )
}

function Confidence({ value }: { value: number }) {
  const percent = Math.round(value * 100)
  return <span class={`confidence ${value < 0.5 ? 'low' : value >= 0.8 ? 'high' : ''}`}>confidence {percent}%</span>
}

/** Edit the proposal, then approve it as edited (Escape cancels). */
function EditForm({ draft, busy, onSave, onCancel }: { draft: Draft; busy: boolean; onSave(edit: Edit): void; onCancel(): void }) {
  const [title, setTitle] = useState(draft.title)
  const [body, setBody] = useState(draft.body)
  const [tags, setTags] = useState(draft.tags.join(', '))
  const submit = (event: Event) => {
    event.preventDefault()
    onSave({
      title: title.trim(),
      body,
      tags: tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    })
  }
  return (
    <form class="stack edit-draft" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && (e.preventDefault(), onCancel())}>
      <label>
        Title
        <input value={title} required maxLength={500} onInput={(e) => setTitle(e.currentTarget.value)} autoFocus />
      </label>
      <label>
        Body <span class="hint">(Markdown)</span>
        <textarea rows={8} required value={body} onInput={(e) => setBody(e.currentTarget.value)} />
      </label>
      <label>
        Tags <span class="hint">(comma-separated)</span>
        <input value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
      </label>
      <div class="row">
        <button type="submit" class="primary" disabled={busy || !title.trim() || !body.trim()}>
          Save and approve
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}
