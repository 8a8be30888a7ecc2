// How many drafts wait for review in the chosen workspace, for the navigation's badge: read on each screen change
// and again whenever the review queue approves or rejects one (refreshDraftCount), so the badge follows the queue.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'

/** Counted up to this many; past it the badge says "100+". */
export const COUNT_LIMIT = 100

export interface DraftCount {
  count: number
  /** More than COUNT_LIMIT are waiting. */
  more: boolean
}

let round = 0
const listeners = new Set<() => void>()

/** Reads the count again (after an approve or reject). */
export function refreshDraftCount(): void {
  round++
  listeners.forEach((listener) => listener())
}

/** The count for `workspace_id` ('' = every workspace), read again when `when` changes or on refreshDraftCount(). */
export function useDraftCount(workspace_id: string, when: unknown): DraftCount | undefined {
  const [count, setCount] = useState<DraftCount>()
  const [tick, setTick] = useState(round)
  useEffect(() => {
    const listener = () => setTick(round)
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  useEffect(() => {
    const controller = new AbortController()
    unwrap(
      api.GET('/api/documents', {
        params: { query: { status: 'pending_approval', workspace_id: workspace_id || undefined, limit: COUNT_LIMIT } },
        signal: controller.signal,
      }),
    ).then(
      (page) => !controller.signal.aborted && setCount({ count: page.data.length, more: page.next_cursor !== null }),
      // The badge is a hint: a failed read leaves it as it was (the screens show their own errors).
      () => {},
    )
    return () => controller.abort()
  }, [workspace_id, when, tick])
  return count
}
