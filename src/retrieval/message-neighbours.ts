// The messages said around a thread's message — a few before and after it in its thread, active ones only — so a
// message is shown (in search results) and quoted (to a model) with what it answers and what answered it. One
// query for any number of messages: each one's neighbours by the thread's (thread_id, position) index.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'

/** Messages each side of a message a result or a quote shows. */
export const NEIGHBOURS = 2

export interface Neighbour {
  id: string
  speaker: string | null
  occurred_at: string
  excerpt: string
}

export interface MessageContext {
  /** The messages said just before, in the thread's order (the nearest last). */
  before: Neighbour[]
  /** The messages said just after, in the thread's order (the nearest first). */
  after: Neighbour[]
}

/** The neighbours of each of the user's messages among `ids` (documents that are no message are left out). */
export async function messageNeighbours(db: Tx, userId: string, ids: string[], width = NEIGHBOURS): Promise<Map<string, MessageContext>> {
  if (ids.length === 0) return new Map()
  const rows = await queryRows<{
    of: string
    side: 'before' | 'after' | null
    id: string
    speaker: string | null
    occurred_at: string | Date
    excerpt: string
  }>(
    db,
    sql`with m as (
        select d.id, d.thread_id, d.position from documents d
        where d.user_id = ${userId} and d.thread_id is not null
          and d.id = any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)))
      select m.id as of, n.side, n.id, n.speaker, n.occurred_at, n.excerpt
      -- A message alone in its thread (or among archived ones) comes once, with no neighbour: its context is empty.
      from m left join lateral (
        (select 'before' as side, b.id, b.speaker, b.occurred_at, b.excerpt, b.position from documents b
          where b.thread_id = m.thread_id and b.position < m.position and b.status = 'active' and b.user_id = ${userId}
          order by b.position desc limit ${width})
        union all
        (select 'after', a.id, a.speaker, a.occurred_at, a.excerpt, a.position from documents a
          where a.thread_id = m.thread_id and a.position > m.position and a.status = 'active' and a.user_id = ${userId}
          order by a.position limit ${width})) n on true
      order by m.id, n.position`,
  )
  const out = new Map<string, MessageContext>()
  for (const r of rows) {
    const context = out.get(r.of) ?? out.set(r.of, { before: [], after: [] }).get(r.of)!
    if (r.side)
      context[r.side].push({ id: r.id, speaker: r.speaker, occurred_at: new Date(r.occurred_at).toISOString(), excerpt: r.excerpt })
  }
  return out
}
