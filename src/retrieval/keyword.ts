// BM25 keyword ranking in Postgres, on PGlite and PostgreSQL alike.
//
// Postgres' own rankers (ts_rank, ts_rank_cd) have no inverse document frequency, which is most of the gap
// to BM25. So the index is postings in blocks a term (term_blocks: documents by number, tf, length) written with
// every document (keyword-index.ts): document frequencies are the sums of a term's blocks' counts at query time (an
// index range scan per term, exact after every write), and corpus size and total length per user live in
// keyword_stats, kept by a trigger on documents — both per user, so one tenant's words never skew another's ranking. Terms come from Postgres' english text search configuration (stemming,
// stop words), so indexing and querying analyse text the same way and no input can make a query fail.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { chunkTextOf } from './chunk-text'
import type { FileLocation } from '../../db/schema'
import { headline } from './headline'
import { filterSql, type DocumentFilter } from './document-fields'
import type { IndexCache } from './index-cache'
import type { KeywordIndex } from './keyword-cache'
import { searchKeywordIndex } from './keyword-cache-rank'
import type { QueryTerm } from './keyword-query'
import { B, BOOST, K1, PREFIX_WEIGHT, type KeywordHit } from './ranking'

export { analyzeQuery, analyzeSearchQuery, cleanseQuery, type QueryTerm } from './keyword-query'

export type { KeywordHit } from './ranking'

/**
 * Ranks the user's documents that pass `filter` by BM25: in the user's cached keyword index when `cache` has it
 * current, else in SQL (index-cache.ts decides, and says when that is for want of memory). Documents matching
 * every query word come first; the rest follow (AND first, OR to fill). `wait`: a job's ranking (see index-cache.ts).
 */
export async function keywordSearch(
  db: Tx,
  userId: string,
  terms: QueryTerm[],
  filter: DocumentFilter,
  limit: number,
  cache?: IndexCache<KeywordIndex>,
  options: { wait?: boolean } = {},
): Promise<{ hits: KeywordHit[]; words: number; notice?: string }> {
  const words = new Set(terms.map((t) => t.idx)).size
  const inSql = () => keywordSearchSql(db, userId, terms, filterSql(userId, filter), limit)
  if (words === 0 || !cache) return { hits: await inSql(), words }
  const { result, notice } = await cache.rank(db, userId, (index) => searchKeywordIndex(index, terms, filter, limit), inSql, options)
  return { hits: result, words, ...(notice ? { notice } : {}) }
}

/** The BM25 ranking in SQL, of the user's documents passing `filter` (an SQL condition on `d`, the documents table). */
export async function keywordSearchSql(db: Tx, userId: string, terms: QueryTerm[], filter: SQL, limit: number): Promise<KeywordHit[]> {
  const words = new Set(terms.map((t) => t.idx)).size
  if (words === 0) return []
  const hasPrefix = terms.some((t) => t.prefix)
  // Constants go in as literals: as parameters Postgres would type them from context (integer).
  const [k1, b] = [sql.raw(String(K1)), sql.raw(String(B))]
  const idf = (df: SQL) => sql`ln(1 + (corpus.n - ${df} + 0.5) / (${df} + 0.5))`
  const tfPart = sql`w.tf * (${k1} + 1) / (w.tf + ${k1} * (1 - ${b} + ${b} * w.dl / corpus.avgdl))`
  const rows = await queryRows<{ document_id: string; score: number; matched_terms: number; boost: number }>(
    db,
    sql`with q as (
        select (e->>'idx')::int as idx, e->>'term' as term, (e->>'prefix')::boolean as prefix
        from jsonb_array_elements(${JSON.stringify(terms)}::jsonb) e),
      -- Each word's blocks: exact terms and prefixes as separate index range scans on (user_id, term) — an OR of
      -- the two, or a LIKE against a column, would read every block of the user. "offset 0" keeps each lateral a
      -- per-term index scan: flattened, the planner once read all of a user's postings and filtered them.
      blocks as (
        select bl.term, bl.n, bl.doc_nos, bl.tfs, bl.dls, q.idx, 1::float8 as weight, false as prefix
        from q cross join lateral (select * from term_blocks bl where bl.user_id = ${userId} and bl.term = q.term offset 0) bl
        where not q.prefix
        ${
          hasPrefix
            ? sql`union all
        select distinct on (bl.term, bl.first_no) bl.term, bl.n, bl.doc_nos, bl.tfs, bl.dls, q.idx, ${sql.raw(String(PREFIX_WEIGHT))}::float8, true
        from q cross join lateral (
          select * from term_blocks bl where bl.user_id = ${userId} and bl.term > q.term and bl.term < q.term || chr(1114111) offset 0) bl
        where q.prefix and bl.term not in (select term from q where not prefix)`
            : sql``
        }),
      -- A term's document frequency: its blocks' counts, summed without opening them.
      dfs as (select term, sum(n)::float8 as df from blocks group by term),
      w as (
        select u.no, b.term, u.tf, u.dl, b.idx, b.weight, b.prefix, dfs.df
        from blocks b join dfs using (term) cross join unnest(b.doc_nos, b.tfs, b.dls) as u(no, tf, dl)),
      corpus as (select greatest(documents, 1)::float8 as n, greatest(total_len / greatest(documents, 1), 1)::float8 as avgdl
                 from keyword_stats where user_id = ${userId}),
      ${
        hasPrefix
          ? sql`-- A prefix stands for one word: its expansions share the df of every document holding the word in any
      -- form (never rarer than the exact word, so a rare expansion cannot outweigh it), and a document counts
      -- only its best-scoring form of each word — many expansions in one document do not add up.
      dw as (select idx, count(distinct no)::float8 as dfw from w group by idx),
      per_word as (
        select w.no, w.idx, max(w.weight * ${idf(sql`case when w.prefix then dw.dfw else w.df end`)} * ${tfPart})::float8 as s
        from w join dw using (idx) cross join corpus
        group by w.no, w.idx),`
          : sql`per_word as (select w.no, w.idx, (${idf(sql`w.df`)} * ${tfPart})::float8 as s from w cross join corpus),`
      }
      -- The words matched as a bit mask: cheaper than a count(distinct) per document.
      scored as (select no, sum(s)::float8 as score, bit_or(1::bigint << idx) as mask from per_word group by no)
      -- Scored from the blocks alone; the documents table is read only for the matched numbers, by (user_id, doc_no).
      select d.id as document_id, s.score, length(replace(s.mask::bit(64)::text, '0', ''))::int as matched_terms, ${BOOST} as boost
      from scored s join documents d on d.user_id = ${userId} and d.doc_no = s.no
      where ${filter}
      order by (s.mask = ${sql.raw(String((1n << BigInt(words)) - 1n))}::bigint) desc, s.score * ${BOOST} desc, d.id
      limit ${limit}`,
  )
  return rows.map((r) => ({
    document_id: r.document_id,
    score: Number(r.score),
    matched_terms: Number(r.matched_terms),
    boost: Number(r.boost),
  }))
}

/**
 * How many of the query's words each of these documents holds, by the ranking's rules (exact terms, the last
 * word's expansions unless another word has them exactly) — for results that semantic search found, so
 * `matched_terms` is true of every result whatever ranked it.
 */
export async function matchedWords(db: Tx, userId: string, terms: QueryTerm[], documentIds: string[]): Promise<Map<string, number>> {
  if (documentIds.length === 0 || terms.length === 0) return new Map()
  const ids = sql`${`{${documentIds.join(',')}}`}::uuid[]`
  // From the documents' listed terms (document_terms: one row a document), matched as the ranking matches blocks.
  const rows = await queryRows<{ document_id: string; words: number }>(
    db,
    sql`with q as (
        select (e->>'idx')::int as idx, e->>'term' as term, (e->>'prefix')::boolean as prefix
        from jsonb_array_elements(${JSON.stringify(terms)}::jsonb) e),
      listed as (
        select t.document_id, u.term collate "C" as term from document_terms t cross join unnest(t.terms) as u(term)
        where t.user_id = ${userId} and t.document_id = any(${ids}))
      select l.document_id, count(distinct q.idx)::int as words
      from listed l join q on (not q.prefix and l.term = q.term)
        or (q.prefix and l.term > q.term collate "C" and l.term < (q.term || chr(1114111)) collate "C"
            and l.term not in (select term collate "C" from q where not prefix))
      group by l.document_id`,
  )
  return new Map(rows.map((r) => [r.document_id, Number(r.words)]))
}

/** A tsquery OR-ing the terms (already lexemes, so quoted rather than re-analysed). */
export function orQuery(terms: QueryTerm[]): string {
  const quote = (t: string) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
  return [...new Set(terms.map((t) => quote(t.term) + (t.prefix ? ':*' : '')))].join(' | ')
}

/** For each document, a passage from its best-matching chunk (by matched terms), as plain text (headline.ts). */
/** A passage and, for an uploaded file's text, where it was in the file. */
export interface Passage {
  text: string
  location: FileLocation | null
}

export async function snippets(db: Tx, userId: string, documentIds: string[], terms: QueryTerm[]): Promise<Map<string, Passage>> {
  if (documentIds.length === 0) return new Map()
  const query = terms.length ? orQuery(terms) : ''
  // The best chunk of each document by ts_rank (it reads the stored tsvector, no parsing); the passage is chosen
  // here, not by ts_headline, which parses and stems the whole chunk again.
  const rows = await queryRows<{ document_id: string; content: string; location: FileLocation | null }>(
    db,
    sql`select distinct on (c.document_id) c.document_id, ${chunkTextOf('c', 'd')} as content, c.location
        from chunks c join documents d on d.id = c.document_id
        where c.user_id = ${userId} and c.document_id = any(${`{${documentIds.join(',')}}`}::uuid[])
        order by c.document_id, ${query ? sql`ts_rank(c.tsv, ${query}::tsquery) desc,` : sql``} c.ordinal`,
  )
  return new Map(rows.map((r) => [r.document_id, { text: headline(r.content, terms), location: r.location }]))
}
