// Statistics events (a search, an answer) written behind the request: kept in the process and inserted as one
// multi-row statement a second later, so a search does not pay an insert of its own. The process's own statistics
// flush first, so a person never misses what they just did; another process sees it within FLUSH_MS. A process
// that stops flushes what it holds (Deps.close).
import { sql } from 'drizzle-orm'
import { events, users } from '../../../db/schema'
import type { Deps } from '../../deps'

export type EventType = 'search' | 'answer' | 'ingest'

/** How long an event waits in the process at most, and how many wait before they are written at once. */
const FLUSH_MS = 1_000
const FLUSH_AT = 500

interface Pending {
  rows: { id: string; user_id: string; type: EventType; created_at: string }[]
  timer: ReturnType<typeof setTimeout> | null
  /** The write in progress, which a flush waits for so that its caller reads every event recorded before it. */
  writing: Promise<void>
}

const buffers = new WeakMap<Deps, Pending>()

export function bufferEvent(deps: Deps, userId: string, type: EventType): void {
  let pending = buffers.get(deps)
  if (!pending) buffers.set(deps, (pending = { rows: [], timer: null, writing: Promise.resolve() }))
  pending.rows.push({ id: deps.ids.next(), user_id: userId, type, created_at: deps.clock.now().toISOString() })
  if (pending.rows.length >= FLUSH_AT) void flushEvents(deps)
  else if (!pending.timer) {
    pending.timer = setTimeout(() => void flushEvents(deps), FLUSH_MS)
    pending.timer.unref?.()
  }
}

/** Writes every event recorded so far in this process; resolves once they are stored (or given up, see write). */
export function flushEvents(deps: Deps): Promise<void> {
  const pending = buffers.get(deps)
  if (!pending) return Promise.resolve()
  if (pending.timer) clearTimeout(pending.timer)
  pending.timer = null
  const rows = pending.rows.splice(0)
  if (rows.length) pending.writing = pending.writing.then(() => write(deps, rows))
  return pending.writing
}

/** One insert; events of an account deleted meanwhile are dropped (they would fail its foreign key), and a failure
 * is logged, never thrown at a request: statistics are not worth a failed search. */
async function write(deps: Deps, rows: Pending['rows']): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await deps.db.execute(sql`insert into ${events} (id, user_id, type, created_at)
        select e.id, e.user_id, e.type, e.created_at from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          as e(id uuid, user_id uuid, type text, created_at timestamptz)
        where exists (select 1 from ${users} u where u.id = e.user_id)`)
      return
    } catch (error) {
      // An account deleted between the check and the insert: the next attempt leaves its events out.
      if (attempt < 3) continue
      deps.log.warn('statistics events could not be written', {
        events: rows.length,
        error: error instanceof Error ? error.message : String(error),
      })
      return
    }
  }
}
