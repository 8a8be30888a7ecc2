// A delete that can be undone: the documents vanish from the screen at once, and the DELETE is sent only when the
// undo toast ends (its time runs out, another toast replaces it, or the page is left — then with fetch's keepalive,
// so it survives the page). Undo cancels it: nothing was ever sent.
import { useEffect, useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import { showToast } from '../ui/toast'
import { announce } from './announce'

const pending = new Set<string>()
const listeners = new Set<() => void>()
const notify = () => listeners.forEach((listener) => listener())

/** The ids waiting to be deleted, to leave out of lists; re-renders when that changes. */
export function usePendingDeletes(): ReadonlySet<string> {
  const [, setRound] = useState(0)
  useEffect(() => {
    const update = () => setRound((r) => r + 1)
    listeners.add(update)
    return () => void listeners.delete(update)
  }, [])
  return pending
}

interface Options {
  ids: string[]
  message: string
  /** After Undo: show the documents again. */
  onUndo?: () => void
  /** After the DELETE was sent and answered. */
  onDeleted?: () => void
}

export function deleteLater({ ids, message, onUndo, onDeleted }: Options): void {
  for (const id of ids) pending.add(id)
  notify()
  const settle = () => {
    for (const id of ids) pending.delete(id)
    notify()
  }
  showToast({
    message,
    onUndo: () => {
      settle()
      onUndo?.()
      announce(ids.length === 1 ? 'Not deleted' : `${ids.length} documents not deleted`)
    },
    onExpire: async () => {
      try {
        if (ids.length === 1) await done(api.DELETE('/api/documents/{id}', { params: { path: { id: ids[0]! } } }))
        else await unwrap(api.DELETE('/api/documents/bulk', { body: { ids } }))
        onDeleted?.()
      } catch (error) {
        announce(`Not deleted: ${(error as Error).message}`)
      } finally {
        settle()
      }
    },
    // The page is going away: only a keepalive request is still sent (same origin, so the cookie and Origin go along).
    onLeave: () => {
      const one = ids.length === 1
      void fetch(one ? `/api/documents/${encodeURIComponent(ids[0]!)}` : '/api/documents/bulk', {
        method: 'DELETE',
        credentials: 'include',
        keepalive: true,
        ...(one ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids }) }),
      }).catch(() => {})
    },
  })
}
