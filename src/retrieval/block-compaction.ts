// The keyword index's blocks compacted (db/functions/compact-term-blocks.sql): every write appends a block a term —
// a message alone ~50 blocks of one posting — so the maintenance tick merges a user's blocks range by range of
// numbers: once a range is complete (later numbers given), or once the writing stopped (the range so far; it is
// merged again when more comes). On the embedded database the table is then VACUUMed at once, so the next range's
// small blocks reuse the space the merged ones left: the heap stays near its live size.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx, yieldConnection } from '../../db/client'
import type { Deps } from '../deps'

/** Documents a range of numbers: a term's postings in one range end in blocks of up to 256, written once. */
export const BLOCK_RANGE = 4096
/** How long a compaction waits, at most, for the requests queued before it. */
const LET_THROUGH_MS = 250

/** Compacts the user's blocks of every range not compacted yet, now; answers how many blocks it wrote. */
export async function compactTermBlocks(db: Tx, userId: string): Promise<number> {
  const [row] = await queryRows<{ written: number }>(db, sql`select compact_term_blocks(${userId}, ${BLOCK_RANGE}::int) as written`)
  return Number(row?.written ?? 0)
}

/** Whether a user is due: a range completed since the last compaction, or nothing written since the previous pass. */
export function compactionDue(last: { last_no: number; compacted_upto: number }, quiet: boolean): boolean {
  if (last.last_no <= last.compacted_upto) return false
  return quiet || Math.floor(last.last_no / BLOCK_RANGE) > Math.floor(last.compacted_upto / BLOCK_RANGE)
}

/**
 * One pass of the maintenance tick: each user due (compactionDue; `seen`: each user's last number at the previous
 * pass, kept across passes) is compacted. Answers the users compacted.
 */
export async function compactDueBlocks(deps: Pick<Deps, 'db' | 'dbKind'>, seen: Map<string, number>): Promise<string[]> {
  const users = await queryRows<{ user_id: string; last_no: number; compacted_upto: number }>(
    deps.db,
    sql`select user_id, last_no, compacted_upto from keyword_stats where last_no > compacted_upto`,
  )
  const compacted: string[] = []
  for (const row of users) {
    const numbers = { last_no: Number(row.last_no), compacted_upto: Number(row.compacted_upto) }
    const quiet = seen.get(row.user_id) === numbers.last_no
    seen.set(row.user_id, numbers.last_no)
    if (!compactionDue(numbers, quiet)) continue
    await yieldConnection(deps.db, LET_THROUGH_MS)
    await compactTermBlocks(deps.db, row.user_id)
    seen.delete(row.user_id)
    compacted.push(row.user_id)
  }
  if (compacted.length && deps.dbKind === 'pglite') {
    await yieldConnection(deps.db, LET_THROUGH_MS)
    await deps.db.execute(sql`vacuum term_blocks`)
  }
  return compacted
}
