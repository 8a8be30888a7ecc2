// Reads a user's keyword index from the database into an in-memory copy (keyword-memory-index.ts), in pages of
// terms so other queries interleave with a load, and stops as soon as the copy would pass its byte budget. The
// pages are not one snapshot: writes may land while they are read. The copy is labelled with the version read
// first, so every document written meanwhile is in the log of changes after it, and the catch-up that follows
// the load (keyword-memory.ts) replaces each of them: what was read of it does not count.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { loadDocumentFields } from './document-fields'
import { IndexBuilder } from './keyword-memory-build'
import type { UserIndex } from './keyword-memory-index'

/** Terms per query of a load: small enough that other queries interleave with it. */
const TERMS_PAGE = 4_000

export type Loaded =
  | { index: UserIndex; stats: { version: number; documents: number; totalLen: number } }
  /** The copy would hold more than `maxBytes`: it was not finished (`bytes` is what it had reached). */
  | { tooLarge: true; bytes: number }
  | { missing: true }

export async function keywordStats(db: Tx, userId: string) {
  const [row] = await queryRows<{ version: number; documents: number; total_len: number }>(
    db,
    sql`select version::float8 as version, documents, total_len from keyword_stats where user_id = ${userId}`,
  )
  return row ? { version: Number(row.version), documents: Number(row.documents), totalLen: Number(row.total_len) } : null
}

export async function loadUserIndex(db: Tx, userId: string, maxBytes: number): Promise<Loaded> {
  const stats = await keywordStats(db, userId)
  if (!stats) return { missing: true }
  const docs = await loadDocumentFields(db, userId)
  const builder = new IndexBuilder(docs)
  let after: string | null = null
  for (;;) {
    // A term's postings come as one string, in document order: a row per term instead of per posting (row
    // handling is most of a load).
    const rows: { term: string; list: string }[] = await queryRows(
      db,
      sql`select term, string_agg(document_id::text || ' ' || tf::text || ' ' || dl::text, ' ' order by document_id) as list from postings
          where user_id = ${userId} ${after !== null ? sql`and term > ${after}` : sql``}
          group by term order by term limit ${TERMS_PAGE}`,
    )
    for (const { term, list } of rows) builder.addTerm(term, list.split(' '))
    if (builder.bytes > maxBytes) return { tooLarge: true, bytes: builder.bytes }
    if (rows.length < TERMS_PAGE) break
    after = rows[rows.length - 1]!.term
  }
  const index = builder.build(stats.version, stats)
  return index.bytes > maxBytes ? { tooLarge: true, bytes: index.bytes } : { index, stats }
}
