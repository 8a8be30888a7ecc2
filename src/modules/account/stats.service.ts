// Statistics: what the account holds now (documents by kind, source and workspace; memories; drafts; links)
// and what it did (searches and answers counted as events), with a daily series for the insights view.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../../db/client'
import type { Deps } from '../../deps'
import type { SessionUser } from '../auth/sessions.service'
import { MEMORY_KINDS } from '../documents/documents.model'
import { flushEvents } from '../usage/events.buffer'

const countsBy = (rows: { key: string; n: number }[]) => Object.fromEntries(rows.map((r) => [r.key, Number(r.n)]))

export async function getStats(deps: Deps, user: SessionUser) {
  // Events this process still holds count too: a person sees the search they just made.
  await flushEvents(deps)
  const uid = user.id
  const memoryKinds = sql.raw(MEMORY_KINDS.map((k) => `'${k}'`).join(','))
  const [byKind, bySource, byWorkspace, [totals], [links], [activity]] = await Promise.all([
    queryRows<{ key: string; n: number }>(
      deps.db,
      sql`select kind as key, count(*)::int as n from documents where user_id = ${uid} and status = 'active' group by kind`,
    ),
    queryRows<{ key: string; n: number }>(
      deps.db,
      sql`select source as key, count(*)::int as n from documents where user_id = ${uid} and status = 'active' group by source`,
    ),
    queryRows<{ workspace_id: string; name: string; documents: number }>(
      deps.db,
      sql`select w.id as workspace_id, w.name, count(d.id)::int as documents from workspaces w
          left join documents d on d.workspace_id = w.id and d.status = 'active'
          where w.user_id = ${uid} group by w.id, w.name order by w.id`,
    ),
    queryRows<{ stored: number; total: number; memories: number; drafts: number; archived: number; conversations: number }>(
      deps.db,
      sql`select count(*)::int as stored, count(*) filter (where status = 'archived')::int as archived,
                 count(*) filter (where status = 'active')::int as total,
                 count(*) filter (where status = 'active' and kind in (${memoryKinds}))::int as memories,
                 count(*) filter (where status = 'pending_approval')::int as drafts,
                 (select count(*)::int from conversations where user_id = ${uid}) as conversations
          from documents where user_id = ${uid}`,
    ),
    queryRows<{ pending: number; completed: number }>(
      deps.db,
      sql`select count(*) filter (where status = 'pending')::int as pending, count(*) filter (where status = 'completed')::int as completed
          from links where user_id = ${uid}`,
    ),
    queryRows<{ searches: number; answers: number }>(
      deps.db,
      sql`select count(*) filter (where type = 'search')::int as searches, count(*) filter (where type = 'answer')::int as answers
          from events where user_id = ${uid} and type in ('search', 'answer')`,
    ),
  ])
  return {
    documents: {
      stored: Number(totals?.stored ?? 0),
      by_status: {
        active: Number(totals?.total ?? 0),
        pending_approval: Number(totals?.drafts ?? 0),
        archived: Number(totals?.archived ?? 0),
      },
      total: Number(totals?.total ?? 0),
      by_kind: countsBy(byKind),
      by_source: countsBy(bySource),
      by_workspace: byWorkspace.map((w) => ({ ...w, documents: Number(w.documents) })),
    },
    memories: Number(totals?.memories ?? 0),
    pending_drafts: Number(totals?.drafts ?? 0),
    links: { pending: Number(links?.pending ?? 0), completed: Number(links?.completed ?? 0) },
    conversations: Number(totals?.conversations ?? 0),
    searches: Number(activity?.searches ?? 0),
    answers: Number(activity?.answers ?? 0),
  }
}

/** One row per UTC day, oldest first, today last; days without events are zeros. */
export async function getHistorical(deps: Deps, user: SessionUser, days = 30) {
  await flushEvents(deps)
  const today = deps.clock.now().toISOString().slice(0, 10)
  const rows = await queryRows<{ date: string; searches: number; answers: number; documents_added: number }>(
    deps.db,
    sql`select to_char(d.day, 'YYYY-MM-DD') as date,
               count(e.id) filter (where e.type = 'search')::int as searches,
               count(e.id) filter (where e.type = 'answer')::int as answers,
               count(e.id) filter (where e.type = 'ingest')::int as documents_added
        from generate_series(${today}::date - ${days - 1}::int, ${today}::date, interval '1 day') as d(day)
        -- Days are UTC days whatever the session's time zone.
        left join events e on e.user_id = ${user.id} and e.type in ('search', 'answer', 'ingest')
          and (e.created_at at time zone 'UTC')::date = d.day::date
        group by d.day order by d.day`,
  )
  return {
    days,
    series: rows.map((r) => ({
      date: r.date,
      searches: Number(r.searches),
      answers: Number(r.answers),
      documents_added: Number(r.documents_added),
    })),
  }
}
