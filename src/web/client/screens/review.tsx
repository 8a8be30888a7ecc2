// The review queue (/app/review): a compact list of every draft an agent proposed beside the selected one in full,
// to approve, edit then approve, reject, merge into a similar memory or reject as its duplicate — one by one or in
// bulk, by mouse or by keyboard (j/k move, a approve, r reject, e edit). After a verdict the next draft is selected
// and focused. Approving takes a person signed in: this dashboard's session, never an API key.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { refreshDraftCount } from '../lib/draft-count'
import { type Draft, factsOf, loadDrafts, QUEUE_SIZE } from '../lib/drafts'
import { plural } from '../lib/format'
import { useShortcuts } from '../lib/shortcuts'
import { useAction, useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded } from '../ui/states'
import { showToast } from '../ui/toast'
import { DraftCard, type Edit } from './review-draft'
import type { Memory } from './review-related'
import './review.css'

/** The list and the detail stack below this width (review.css): the detail is then scrolled to on a click. */
const NARROW = '(max-width: 799px)'

export function Review() {
  const { current } = useWorkspaces()
  const queue = useApi((signal) => loadDrafts(current || undefined, signal), [current])
  const [drafts, setDrafts] = useState<Draft[]>([])
  const [at, setAt] = useState(0)
  const [checked, setChecked] = useState<Set<string>>(new Set())
  const [editing, setEditing] = useState<string>()
  /** Bumped to move focus to the selected draft once it is shown (after j/k or a verdict). */
  const [focusRound, setFocusRound] = useState(0)
  const action = useAction()
  useEffect(() => {
    if (!queue.data) return
    setDrafts(queue.data.drafts)
    setChecked(new Set())
    setAt((i) => Math.min(i, Math.max(0, queue.data!.drafts.length - 1)))
  }, [queue.data])

  const selected = drafts[at]
  useEffect(() => {
    if (!focusRound || !selected) return
    document.getElementById(`card-${selected.id}`)?.focus({ preventScroll: !matchMedia(NARROW).matches })
    document.getElementById(`item-${selected.id}`)?.scrollIntoView({ block: 'nearest' })
  }, [focusRound, selected?.id])

  const move = (to: number) => {
    if (!drafts.length) return
    setAt(Math.max(0, Math.min(drafts.length - 1, to)))
    setEditing(undefined)
    setFocusRound((r) => r + 1)
  }
  /** Takes reviewed drafts out of the queue, keeping the place: the next draft moves up under the cursor, and is focused. */
  const remove = (ids: Set<string>) => {
    const rest = drafts.filter((d) => !ids.has(d.id))
    setDrafts(rest)
    setChecked((c) => new Set([...c].filter((id) => !ids.has(id))))
    setAt((i) => Math.min(i, Math.max(0, rest.length - 1)))
    setEditing(undefined)
    setFocusRound((r) => r + 1)
    refreshDraftCount()
    if (!rest.length) queue.reload()
  }

  /** Approves the draft, edited first when `edit` is given; merged into `into` (approved as its update) when given. */
  const approve = async (draft: Draft, edit?: Edit, into?: Memory) => {
    const path = { params: { path: { id: draft.id } } }
    const ok = await action.run(async () => {
      if (edit) await unwrap(api.PATCH('/api/documents/{id}', { ...path, body: edit }))
      return unwrap(api.POST('/api/documents/{id}/approve', { ...path, ...(into && { body: { supersedes: into.id } }) }))
    })
    if (!ok) return queue.reload()
    remove(new Set([draft.id]))
    showToast({
      message: into
        ? `Merged: “${ok.title}” now replaces “${into.title}”, which is archived`
        : `${edit ? 'Edited and approved' : 'Approved'}: “${ok.title}” is now a memory`,
      onUndo: () => takeBack(draft, () => unwrap(api.POST('/api/documents/{id}/unapprove', { params: { path: { id: draft.id } } }))),
    })
  }
  /** Undo of a verdict: the draft is back in the queue (read again, so it is where the queue's order puts it). */
  const takeBack = async (draft: Draft, call: () => Promise<unknown>) => {
    if ((await action.run(call)) === undefined) return
    announce(`“${draft.title}” is back in the queue`)
    refreshDraftCount()
    queue.reload()
  }
  /** Rejects the draft; as a duplicate of `of` when given (recorded on the draft). */
  const reject = async (draft: Draft, of?: Memory) => {
    const ok = await action.run(() =>
      unwrap(api.POST('/api/documents/{id}/reject', { params: { path: { id: draft.id } }, ...(of && { body: { duplicate_of: of.id } }) })),
    )
    if (!ok) return queue.reload()
    remove(new Set([draft.id]))
    showToast({
      message: of
        ? `Rejected as a duplicate of “${of.title}”: “${draft.title}” is archived`
        : `Rejected: “${draft.title}” is archived (restoring it brings it back as a draft)`,
      // Restoring a rejected draft brings it back to the queue.
      onUndo: () => takeBack(draft, () => unwrap(api.POST('/api/documents/{id}/restore', { params: { path: { id: draft.id } } }))),
    })
  }
  const bulk = async (verb: 'approve' | 'reject') => {
    const ids = drafts.filter((d) => checked.has(d.id)).map((d) => d.id)
    const doneIds = new Set<string>()
    await action.run(async () => {
      for (const id of ids) {
        const params = { params: { path: { id } } }
        await unwrap(verb === 'approve' ? api.POST('/api/documents/{id}/approve', params) : api.POST('/api/documents/{id}/reject', params))
        doneIds.add(id)
      }
      return true
    })
    remove(doneIds)
    if (doneIds.size < ids.length) queue.reload()
    announce(
      `${verb === 'approve' ? 'Approved' : 'Rejected'} ${plural(doneIds.size, 'draft')}${doneIds.size < ids.length ? `; ${ids.length - doneIds.size} not done` : ''}`,
    )
  }

  const idle = !action.busy && !editing && drafts.length > 0
  useShortcuts(
    {
      j: () => move(at + 1),
      k: () => move(at - 1),
      a: () => selected && approve(selected),
      r: () => selected && reject(selected),
      e: () => selected && setEditing(selected.id),
    },
    idle,
  )

  const pick = (i: number) => {
    setAt(i)
    setEditing(undefined)
    // Stacked, the detail is below the whole list: take the person there.
    if (matchMedia(NARROW).matches) setFocusRound((r) => r + 1)
  }
  const allChecked = drafts.length > 0 && drafts.every((d) => checked.has(d.id))
  return (
    <section class="review">
      <PageTitle title="Review" />
      <p class="hint lead">
        What your agents proposed to remember. Nothing here is used in answers until you approve it. Keys: <kbd>j</kbd>/<kbd>k</kbd>{' '}
        next/previous, <kbd>a</kbd> approve, <kbd>e</kbd> edit, <kbd>r</kbd> reject.
      </p>
      <Loaded query={queue} label="Loading drafts…">
        {(loaded) =>
          drafts.length === 0 ? (
            <Empty>
              <p>
                Nothing waiting for review{current ? ' in this workspace' : ''}. Drafts appear here when an agent saves learnings
                (save_learnings, POST /api/memories/batch-draft).
              </p>
            </Empty>
          ) : (
            <>
              <div class="bulk row" role="group" aria-label="Selected drafts">
                <label class="check-all">
                  <input
                    type="checkbox"
                    checked={allChecked}
                    onChange={(e) => setChecked(e.currentTarget.checked ? new Set(drafts.map((d) => d.id)) : new Set())}
                  />{' '}
                  Select all
                </label>
                <span>
                  {plural(drafts.length, 'draft')}
                  {loaded.more ? ` (the newest ${QUEUE_SIZE}; more after these)` : ''}
                  {checked.size ? ` · ${checked.size} selected` : ''}
                </span>
                <button type="button" disabled={!checked.size || action.busy} onClick={() => bulk('approve')}>
                  Approve selected
                </button>
                <button type="button" class="danger" disabled={!checked.size || action.busy} onClick={() => bulk('reject')}>
                  Reject selected
                </button>
              </div>
              <ActionStatus action={action} />
              <div class="queue-layout">
                <ol class="queue-list" aria-label="Drafts waiting">
                  {drafts.map((draft, i) => (
                    <QueueItem
                      key={draft.id}
                      draft={draft}
                      selected={i === at}
                      checked={checked.has(draft.id)}
                      onPick={() => pick(i)}
                      onCheck={(on) =>
                        setChecked((c) => (on ? new Set([...c, draft.id]) : new Set([...c].filter((id) => id !== draft.id))))
                      }
                    />
                  ))}
                </ol>
                {selected && (
                  <div class="queue-detail">
                    <DraftCard
                      key={selected.id}
                      draft={selected}
                      editing={editing === selected.id}
                      busy={action.busy}
                      onApprove={(edit) => approve(selected, edit)}
                      onReject={() => reject(selected)}
                      onMerge={(memory) => approve(selected, undefined, memory)}
                      onDuplicate={(memory) => reject(selected, memory)}
                      onEdit={(on) => setEditing(on ? selected.id : undefined)}
                    />
                  </div>
                )}
              </div>
            </>
          )
        }
      </Loaded>
    </section>
  )
}

/** One line of the list: its checkbox for bulk actions, and a button selecting it (title, kind, what the agent said). */
function QueueItem(props: { draft: Draft; selected: boolean; checked: boolean; onPick(): void; onCheck(on: boolean): void }) {
  const { draft, selected, checked } = props
  const facts = factsOf(draft)
  return (
    <li id={`item-${draft.id}`} class={`queue-item${selected ? ' selected' : ''}`}>
      <input
        type="checkbox"
        aria-label={`Select “${draft.title}”`}
        checked={checked}
        onChange={(e) => props.onCheck(e.currentTarget.checked)}
      />
      <button type="button" class="queue-pick" aria-current={selected ? 'true' : undefined} onClick={props.onPick}>
        <span class="queue-title" dir="auto">
          {draft.title}
        </span>
        <span class="queue-meta">
          {draft.kind}
          {facts.supersedes && ' · updates a memory'}
          {facts.confidence !== undefined && ` · ${Math.round(facts.confidence * 100)}%`}
          {facts.topic && ` · ${facts.topic}`}
        </span>
      </button>
    </li>
  )
}
