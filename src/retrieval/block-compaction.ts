// The keyword index's blocks compacted (db/functions/compact-term-blocks.sql): every write appends a block a term —
// a message alone ~50 blocks of one posting — so the maintenance tick merges a user's blocks range by range of
// numbers: once a range is complete (later numbers given), or once the writing stopped (the range so far; it is
// merged again when more comes). A completed range's blocks go to term_blocks_main, final; the merged-away blocks
// and a filling range's merges are in term_blocks_tail, which on the embedded database is then VACUUMed at once, so
// the next range's small blocks reuse the space the merged ones left. That VACUUM reads and writes the tail, about a
// range's blocks: when the table was one, its VACUUM after a merge was a statement whose log grew with the whole
// index (199 MB at 83,000 documents, past the log's 256 MiB bound with what the checkpoint had not yet covered).
import { sql } from 'drizzle-orm'
import { type Db, queryRows, walMegabytesSince, walPosition, yieldConnection } from '../../db/client'
import type { Deps } from '../deps'

/** Documents a range of numbers: a term's postings in one range end in blocks of up to 256, written once. */
export const BLOCK_RANGE = 4096
/** How long a compaction waits, at most, for the requests queued before it. */
const LET_THROUGH_MS = 250

/** Terms merged by one statement (a range has ~30,000), so requests and the checkpointer get turns in between. */
const TERMS_A_STATEMENT = 2_000

/**
 * Compacts the user's blocks of every range not compacted yet, now, a slice of their terms a statement, the
 * requests waiting let through between two (`termsAStatement`: fewer, to see slices at work on a small corpus);
 * answers how many blocks it wrote.
 */
export async function compactTermBlocks(db: Db, userId: string, termsAStatement = TERMS_A_STATEMENT): Promise<number> {
  const [state] = await queryRows<{ compacted_upto: number; last_no: number }>(
    db,
    sql`select compacted_upto, last_no from keyword_stats where user_id = ${userId}`,
  )
  if (!state || Number(state.last_no) <= Number(state.compacted_upto)) return 0
  const from = Math.floor(Number(state.compacted_upto) / BLOCK_RANGE) * BLOCK_RANGE
  const to = Number(state.last_no)
  // The terms of the documents numbered since the range's start (bounded by them, however large the index).
  const [touched] = await queryRows<{ terms: string[] | null }>(
    db,
    sql`select array_agg(distinct u.term) as terms
        from documents d join document_terms t on t.document_id = d.id cross join unnest(t.terms) as u(term)
        where d.user_id = ${userId} and d.doc_no > ${from} and d.doc_no <= ${to}`,
  )
  const terms = touched?.terms ?? []
  let written = 0
  for (let i = 0; i < terms.length; i += termsAStatement) {
    if (i > 0) await yieldConnection(db, LET_THROUGH_MS)
    const slice = terms.slice(i, i + termsAStatement)
    const [row] = await queryRows<{ written: number }>(
      db,
      sql`select compact_term_blocks(${userId}, ${BLOCK_RANGE}::int, ${from}::int, ${to}::int,
            array(select jsonb_array_elements_text(${JSON.stringify(slice)}::jsonb))) as written`,
    )
    written += Number(row?.written ?? 0)
  }
  await db.execute(sql`update keyword_stats set compacted_upto = greatest(compacted_upto, ${to}::int) where user_id = ${userId}`)
  return written
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
export async function compactDueBlocks(deps: Pick<Deps, 'db' | 'dbKind' | 'log'>, seen: Map<string, number>): Promise<string[]> {
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
    const started = performance.now()
    const walBefore = await walPosition(deps.db)
    const blocks = await compactTermBlocks(deps.db, row.user_id)
    deps.log.debug('keyword blocks compacted', {
      user_id: row.user_id,
      upto: numbers.last_no,
      blocks,
      ms: Math.round(performance.now() - started),
      wal_mb: await walMegabytesSince(deps.db, walBefore),
    })
    seen.delete(row.user_id)
    compacted.push(row.user_id)
  }
  if (compacted.length && deps.dbKind === 'pglite') {
    await yieldConnection(deps.db, LET_THROUGH_MS)
    const started = performance.now()
    const walBefore = await walPosition(deps.db)
    await deps.db.execute(sql`vacuum term_blocks_tail`)
    deps.log.debug('keyword blocks vacuumed', {
      ms: Math.round(performance.now() - started),
      wal_mb: await walMegabytesSince(deps.db, walBefore),
    })
  }
  return compacted
}
