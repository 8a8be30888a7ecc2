// "More like this": the documents most like one by keyword, for link suggestions without embeddings
// (modules/documents/link-suggestions.service.ts). The document's most distinctive terms — each of its terms scored
// tf × ln(1 + 1 / df) within the user's corpus, document frequencies counted up to DF_CAP only (a term that common
// is no distinctive term, and the cost stays bounded however large the corpus grows), best first, ties by term in
// byte order — become a BM25 query, and each hit is scored as a share of the document's own score.
// All of it in the user's cached keyword index when there is one, after one catch-up: document frequencies are in
// memory, and the document's terms and tfs are one row (document_terms) — where SQL sums the counts of each term's
// blocks (~95 terms an abstract), statements every request waited behind while a bulk ingest's suggestion jobs (one
// a document) drained.
import { sql } from 'drizzle-orm'
import { queryRows, requestsFirst, type Tx } from '../../db/client'
import { type DocumentFilter, filterSql } from './document-fields'
import type { IndexCache } from './index-cache'
import { keywordSearchSql } from './keyword'
import type { KeywordIndex } from './keyword-cache'
import { searchKeywordIndex } from './keyword-cache-rank'
import { documentFrequency } from './keyword-cache-words'
import type { QueryTerm } from './keyword-query'
import type { KeywordHit } from './ranking'
import { nextTurn } from '../lib/next-turn'

/** Document frequencies are counted up to this. */
export const DF_CAP = 100
/** Terms of the query made of a document. */
export const MLT_TERMS = 12

export interface LikeDocument {
  id: string
  user_id: string
  workspace_id: string
}

/**
 * The documents of `doc`'s workspace most like it (best first, at most `limit`), scored as a share of its own score;
 * in SQL when `cache` is null or holds no index for the user.
 */
export async function moreLikeThis(db: Tx, doc: LikeDocument, limit: number, cache: IndexCache<KeywordIndex> | null): Promise<Like[]> {
  return (await moreLikeThese(db, [doc], limit, cache)).get(doc.id) ?? []
}

/**
 * moreLikeThis for many documents (a batch of suggestion jobs), by document id: their terms read in one statement and
 * each user's index caught up once for all of theirs — statements are what requests wait behind on the embedded
 * database.
 */
export async function moreLikeThese(
  db: Tx,
  docs: LikeDocument[],
  limit: number,
  cache: IndexCache<KeywordIndex> | null,
): Promise<Map<string, Like[]>> {
  const found = new Map<string, Like[]>()
  const inSql = async (of: LikeDocument[]) => {
    for (const doc of of) found.set(doc.id, await moreLikeThisSql(db, doc, limit))
    return true
  }
  if (!cache || docs.length === 0) return (await inSql(docs), found)
  // SQL reads a document's terms itself (none: nothing found); the cache reads their rows here.
  const rows = await queryRows<{ document_id: string; user_id: string; terms: string[]; tfs: number[] }>(
    db,
    sql`select document_id, user_id, terms, tfs from document_terms
         where document_id = any(${`{${docs.map((d) => d.id).join(',')}}`}::uuid[])`,
  )
  const termsOf = new Map(rows.map((r) => [r.document_id, r]))
  for (const userId of new Set(docs.map((d) => d.user_id))) {
    const theirs = docs.filter((d) => d.user_id === userId)
    // The index caught up once for all of the user's documents (a job's ranking waits for a load rather than scan a
    // large corpus in SQL: index-cache.ts); then each document ranked in a turn of its own — one is ~10 ms at 100,000
    // documents, and a batch ranked at once held every request behind it — after requests, as a job's statements run.
    const { result: index } = await cache.rank<KeywordIndex | null>(
      db,
      userId,
      (index) => index,
      async () => null,
      { wait: true },
    )
    if (!index) {
      await inSql(theirs)
      continue
    }
    for (const doc of theirs) {
      await requestsFirst(db)
      const row = termsOf.get(doc.id)
      found.set(doc.id, row?.user_id === userId ? moreLikeThisIn(index, doc, row, limit) : [])
      await nextTurn()
    }
  }
  return found
}

export interface Like {
  document_id: string
  score: number
}

function moreLikeThisIn(index: KeywordIndex, doc: LikeDocument, row: { terms: string[]; tfs: number[] }, limit: number): Like[] {
  const terms = queryOf(distinctiveTermsIn(index, row, MLT_TERMS))
  const own = searchKeywordIndex(index, terms, selfOf(doc), 1)
  return scoresOf(own) ? shares(own, searchKeywordIndex(index, terms, othersOf(doc), limit)) : []
}

async function moreLikeThisSql(db: Tx, doc: LikeDocument, limit: number): Promise<Like[]> {
  const terms = queryOf(await distinctiveTermsSql(db, doc.user_id, doc.id, MLT_TERMS))
  const own = await keywordSearchSql(db, doc.user_id, terms, filterSql(doc.user_id, selfOf(doc)), 1)
  return scoresOf(own) ? shares(own, await keywordSearchSql(db, doc.user_id, terms, filterSql(doc.user_id, othersOf(doc)), limit)) : []
}

const selfOf = (doc: LikeDocument): DocumentFilter => ({ onlyDocument: doc.id })
const othersOf = (doc: LikeDocument): DocumentFilter => ({ workspaceId: doc.workspace_id, excludeDocument: doc.id })

const queryOf = (terms: string[]): QueryTerm[] => terms.map((term, idx) => ({ idx, term, prefix: false }))

/** Whether the document scores anything for its own terms (a document of no terms does not). */
const scoresOf = (own: KeywordHit[]) => (own[0]?.score ?? 0) > 0

/** Hits scored as a share of the document's own score. */
const shares = (own: KeywordHit[], hits: KeywordHit[]): Like[] =>
  hits.map((h) => ({ document_id: h.document_id, score: h.score / own[0]!.score }))

/** The document's `count` most distinctive terms, from its listed terms and tfs and the index's document frequencies. */
export function distinctiveTermsIn(index: KeywordIndex, row: { terms: string[]; tfs: number[] }, count: number): string[] {
  // tf as the real it is stored as (SQL widens that); a term the index does not hold yet (the document was edited
  // since the row was read) counts as rare.
  const scored = row.terms.map((term, i) => ({
    term,
    score: Math.fround(row.tfs[i]!) * Math.log(1 + 1 / Math.max(1, Math.min(DF_CAP, documentFrequency(index, term)))),
  }))
  scored.sort((a, b) => b.score - a.score || byteOrder(a.term, b.term))
  return scored.slice(0, count).map((s) => s.term)
}

/** The same in SQL: the document's listed terms and tfs, each term's df its blocks' counts (capped). */
export async function distinctiveTermsSql(db: Tx, userId: string, documentId: string, count: number): Promise<string[]> {
  const rows = await queryRows<{ term: string }>(
    db,
    sql`select k.term from (
          select t.user_id, u.term collate "C" as term, u.tf from document_terms t cross join unnest(t.terms, t.tfs) as u(term, tf)
           where t.document_id = ${documentId} and t.user_id = ${userId} offset 0) k
        cross join lateral (select least(greatest(sum(x.n), 1), ${DF_CAP})::bigint as df
          from term_blocks x where x.user_id = k.user_id and x.term = k.term) f
        order by k.tf * ln(1 + 1.0 / f.df) desc, k.term
        limit ${count}`,
  )
  return rows.map((r) => r.term)
}

/** Code point order: the byte order of UTF-8, as the postings' collation ("C") sorts terms. */
function byteOrder(a: string, b: string): number {
  const [x, y] = [[...a], [...b]]
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const diff = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
    if (diff) return diff
  }
  return x.length - y.length
}
