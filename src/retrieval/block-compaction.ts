// The keyword index's blocks compacted (db/functions/compact-term-blocks.sql): every write appends a block a term —
// a message alone ~50 blocks of one posting — so a user's newest postings are merged into full blocks by the
// maintenance tick, once enough documents were written since the last compaction or once the writing stopped.
import { sql } from 'drizzle-orm'
import { type Db, queryRows, type Tx, yieldConnection } from '../../db/client'

/** A user's blocks are compacted once this many documents were numbered since the last time… */
export const COMPACT_AFTER_DOCUMENTS = 1_000
/** How long a compaction waits, at most, for the requests queued before it. */
const LET_THROUGH_MS = 250

/** Compacts the user's newest blocks now; answers how many blocks it wrote. */
export async function compactTermBlocks(db: Tx, userId: string): Promise<number> {
  const [row] = await queryRows<{ written: number }>(db, sql`select compact_term_blocks(${userId}) as written`)
  return Number(row?.written ?? 0)
}

/**
 * One pass of the maintenance tick: each user with COMPACT_AFTER_DOCUMENTS documents numbered since their last
 * compaction, or with any when none came since the previous pass (`seen`: each user's last number then, kept across
 * passes), is compacted. Answers the users compacted.
 */
export async function compactDueBlocks(db: Db, seen: Map<string, number>): Promise<string[]> {
  const due = await queryRows<{ user_id: string; last_no: number; compacted_upto: number }>(
    db,
    sql`select user_id, last_no, compacted_upto from keyword_stats where last_no > compacted_upto`,
  )
  const compacted: string[] = []
  for (const { user_id, last_no, compacted_upto } of due) {
    const quiet = seen.get(user_id) === Number(last_no)
    seen.set(user_id, Number(last_no))
    if (!quiet && Number(last_no) - Number(compacted_upto) < COMPACT_AFTER_DOCUMENTS) continue
    await yieldConnection(db, LET_THROUGH_MS)
    await compactTermBlocks(db, user_id)
    seen.delete(user_id)
    compacted.push(user_id)
  }
  return compacted
}
