// The review queue (/app/review): every draft an agent proposed, to approve, edit then approve, or reject —
// one by one or in bulk, by mouse or by keyboard (j/k move, a approve, r reject, e edit). Approving takes
// a person signed in: this dashboard's session, never an API key.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { type Draft, loadDrafts, QUEUE_SIZE } from '../lib/drafts'
import { plural } from '../lib/format'
import { useShortcuts } from '../lib/shortcuts'
import { useAction, useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded } from '../ui/states'
import { DraftCard, type Edit } from './review-draft'
import './review.css'

export function Review() {
  const { current } = useWorkspaces()
  const queue = useApi((signal) => loadDrafts(current || undefined, signal), [current])
  const [drafts, setDrafts] = useState<Draft[]>([])
  const [at, setAt] = useState(0)
  const [checked, setChecked] = useState<Set<string>>(new Set())
  const [editing, setEditing] = useState<string>()
  const action = useAction()
  useEffect(() => {
    if (!queue.data) return
    setDrafts(queue.data.drafts)
    setChecked(new Set())
    setAt((i) => Math.min(i, Math.max(0, queue.data!.drafts.length - 1)))
  }, [queue.data])

  const selected = drafts[at]
  const [seen, setSeen] = useState<Set<string>>(new Set())
  useEffect(() => {
    if (selected && !seen.has(selected.id)) setSeen(new Set([...seen, selected.id]))
  }, [selected?.id])
  const move = (to: number) => {
    if (!drafts.length) return
    const next = Math.max(0, Math.min(drafts.length - 1, to))
    setAt(next)
    const card = document.getElementById(`card-${drafts[next]!.id}`)
    card?.focus({ preventScroll: true })
    card?.scrollIntoView({ block: 'nearest' })
  }
  /** Takes reviewed drafts out of the queue, keeping the place: the next draft moves up under the cursor. */
  const remove = (ids: Set<string>) => {
    const rest = drafts.filter((d) => !ids.has(d.id))
    setDrafts(rest)
    setChecked((c) => new Set([...c].filter((id) => !ids.has(id))))
    setAt((i) => Math.min(i, Math.max(0, rest.length - 1)))
    setEditing(undefined)
    if (!rest.length) queue.reload()
  }

  const approve = async (draft: Draft, edit?: Edit) => {
    const path = { params: { path: { id: draft.id } } }
    const ok = await action.run(async () => {
      if (edit) await unwrap(api.PATCH('/api/documents/{id}', { ...path, body: edit }))
      return unwrap(api.POST('/api/documents/{id}/approve', path))
    })
    if (!ok) return queue.reload()
    remove(new Set([draft.id]))
    announce(`${edit ? 'Edited and approved' : 'Approved'}: “${ok.title}” is now a memory`)
  }
  const reject = async (draft: Draft) => {
    const ok = await action.run(() => unwrap(api.POST('/api/documents/{id}/reject', { params: { path: { id: draft.id } } })))
    if (!ok) return queue.reload()
    remove(new Set([draft.id]))
    announce(`Rejected: “${draft.title}” is archived (restoring it brings it back as a draft)`)
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
              <ol class="queue">
                {drafts.map((draft, i) => (
                  <li key={draft.id}>
                    <DraftCard
                      draft={draft}
                      selected={i === at}
                      similar={seen.has(draft.id)}
                      checked={checked.has(draft.id)}
                      editing={editing === draft.id}
                      busy={action.busy}
                      onSelect={() => setAt(i)}
                      onCheck={(on) =>
                        setChecked((c) => (on ? new Set([...c, draft.id]) : new Set([...c].filter((id) => id !== draft.id))))
                      }
                      onApprove={(edit) => approve(draft, edit)}
                      onReject={() => reject(draft)}
                      onEdit={(on) => setEditing(on ? draft.id : undefined)}
                    />
                  </li>
                ))}
              </ol>
            </>
          )
        }
      </Loaded>
    </section>
  )
}
