// One draft in the review queue: what the agent proposed (kind, title, body, topic, confidence, evidence, the
// conversation it came from, the messages it rests on), the memory it would supersede beside it, similar memories,
// and its actions — approve, edit then approve, reject.
import { useState } from 'preact/hooks'
import { type Draft, factsOf } from '../lib/drafts'
import { formatDate } from '../lib/format'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import { Tags } from '../ui/doc-list'
import { Link } from '../ui/link'
import { Markdown } from '../ui/markdown'
import { EvidenceMessages } from './review-evidence'
import { Similar, Supersedes } from './review-related'

export interface Edit {
  title: string
  body: string
  tags: string[]
}

interface Props {
  draft: Draft
  selected: boolean
  /** Show the similar memories (searched once the draft has been selected: searches are rate-limited). */
  similar: boolean
  checked: boolean
  editing: boolean
  busy: boolean
  onSelect(): void
  onCheck(checked: boolean): void
  onApprove(edit?: Edit): void
  onReject(): void
  onEdit(editing: boolean): void
}

export function DraftCard({ draft, selected, similar, checked, editing, busy, onSelect, onCheck, onApprove, onReject, onEdit }: Props) {
  const facts = factsOf(draft)
  const { list } = useWorkspaces()
  const heading = `draft-${draft.id}`
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: a click selects the card; by keyboard, focus inside it does (onFocusCapture).
    <article
      id={`card-${draft.id}`}
      class={`draft card${selected ? ' selected' : ''}`}
      tabIndex={-1}
      aria-labelledby={heading}
      aria-current={selected ? 'true' : undefined}
      onFocusCapture={onSelect}
      onClick={onSelect}
    >
      <div class="draft-head">
        <input
          type="checkbox"
          aria-label={`Select “${draft.title}”`}
          checked={checked}
          onChange={(e) => onCheck(e.currentTarget.checked)}
        />
        <span class="kind-badge">{draft.kind}</span>
        <h2 id={heading}>{draft.title}</h2>
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
      {/* Below the actions, and kept once shown: selecting a card never moves the button being clicked. */}
      {similar && !editing && <Similar draft={draft} exclude={facts.supersedes} />}
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
