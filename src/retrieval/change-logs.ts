// The logs of which documents moved a user's versions — keyword_changes (keyword_stats.version: documents' fields
// and postings) and embedding_changes (embedding_version: chunk vectors) — kept for an hour, so a cached index
// that fell further behind reloads in full instead of catching up (keyword-cache.ts, vector-cache.ts).
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'

/** How long the logs keep a change: a cached index older than that reloads in full instead of catching up. */
export const CHANGES_KEPT_MS = 60 * 60_000

const LOGS = [
  { table: sql`keyword_changes`, version: sql`version` },
  { table: sql`embedding_changes`, version: sql`embedding_version` },
]

/**
 * Drops changes older than `keptMs` from both logs — for each user, every version up to the newest such one, so
 * what is left is always a suffix of the user's versions (a complete log from some version on; a cached index older than
 * it reloads). Answers how many rows went.
 */
export async function pruneChangeLogs(db: Tx, keptMs = CHANGES_KEPT_MS): Promise<number> {
  // The database's clock, the one that stamped the rows.
  const cutoff = sql`now() - ${keptMs}::float8 * interval '1 millisecond'`
  let pruned = 0
  for (const { table, version } of LOGS) {
    const rows = await queryRows<{ n: number }>(
      db,
      sql`with old as (select user_id, max(${version}) as upto from ${table} where changed_at < ${cutoff} group by user_id),
        gone as (delete from ${table} c using old where c.user_id = old.user_id and c.${version} <= old.upto returning 1)
        select count(*)::int as n from gone`,
    )
    pruned += Number(rows[0]?.n ?? 0)
  }
  return pruned
}
