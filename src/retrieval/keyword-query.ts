// What a search query asks the keyword index for: the query cleansed and cut to length, its words as the index
// knows them (stemmed, stop words dropped), the last word also as a prefix while it is being typed, and — when
// there are more words than the ranking takes — the most selective of them. It also reports what it did
// (cut, words left out, no words at all), so search can say so instead of answering with a silent nothing.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { TEXT_CONFIG } from './keyword-index'

/** Longer queries are cut to this many characters, not refused (docs/decisions.md#query-length). */
export const MAX_QUERY_CHARS = 2000
/**
 * Words a query ranks by: the ranking keeps a document's matched words as a bit mask in a signed 64-bit
 * integer (`1::bigint << idx` in SQL, two 32-bit halves in memory) and compares it with the full mask
 * 2^words − 1, so word positions 0–61 keep both clear of the sign bit with room to spare.
 */
export const MAX_WORDS = 62

export interface QueryTerm {
  /** Position of the query word; AND matching means every position is matched. */
  idx: number
  term: string
  prefix: boolean
}

export interface AnalyzedQuery {
  /** The text searched: cleansed and cut to MAX_QUERY_CHARS. */
  text: string
  /** The query was longer than MAX_QUERY_CHARS and was cut. */
  cut: boolean
  /** The text has at least one letter or digit (otherwise there is nothing to embed or match). */
  hasWords: boolean
  terms: QueryTerm[]
  /** Distinct words the query has for the keyword index, before MAX_WORDS; `words` of them are searched. */
  distinctWords: number
  words: number
}

/** Strips what is not text and collapses whitespace (the length is cut by cutQuery). */
export function cleanseQuery(q: string): string {
  return (
    q
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u001f\u007f]/g, ' ')
      .replace(/\s+/g, ' ')
      .trimStart()
  )
}

/** The first MAX_QUERY_CHARS characters, ending at a word boundary when there is one nearby, never inside a surrogate pair. */
export function cutQuery(q: string): string {
  if (q.length <= MAX_QUERY_CHARS) return q
  let cut = q.slice(0, MAX_QUERY_CHARS)
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1)
  // A word cut in half would be searched as a different word: drop the partial word when a space is near.
  const space = cut.lastIndexOf(' ')
  if (q[cut.length] !== ' ' && space >= MAX_QUERY_CHARS - 100) cut = cut.slice(0, space)
  return cut.trimEnd()
}

/** The query's terms (see analyzeSearchQuery); without a user, words beyond MAX_WORDS are the first ones. */
export async function analyzeQuery(db: Tx, raw: string, userId?: string): Promise<QueryTerm[]> {
  return (await analyzeSearchQuery(db, raw, userId)).terms
}

/**
 * The query's terms as the index knows them (stemmed, stop words dropped), in order, plus prefix terms for
 * the last word when the query does not end with a space — so search-as-you-type finds "vaccination" at "vacc".
 * Past MAX_WORDS words, the ones fewest of the user's documents hold are kept: a rare word says most about
 * what is wanted, and a word no document holds cannot rank anything.
 */
export async function analyzeSearchQuery(db: Tx, raw: string, userId?: string): Promise<AnalyzedQuery> {
  const cleansed = cleanseQuery(raw)
  const text = cutQuery(cleansed)
  const cut = text.length < cleansed.trimEnd().length
  // A cut query does not end where the user stopped typing: its last word is whole.
  const last = cut ? '' : (/[\p{L}\p{N}]{3,}$/u.exec(text)?.[0]?.toLowerCase() ?? '')
  const [row] = await queryRows<{ terms: string[] | null; last: string[] | null }>(
    db,
    sql`select
      (select array_agg(lexeme order by positions[1]) from unnest(to_tsvector(${TEXT_CONFIG}::regconfig, ${text}))) as terms,
      (select array_agg(lexeme) from unnest(to_tsvector(${TEXT_CONFIG}::regconfig, ${last}))) as last`,
  )
  const all = row?.terms ?? []
  const kept = all.length > MAX_WORDS ? await mostSelective(db, all, userId) : all
  const terms: QueryTerm[] = kept.map((term, idx) => ({ idx, term, prefix: false }))
  const analyzed = { text, cut, hasWords: /[\p{L}\p{N}]/u.test(text), terms, distinctWords: all.length, words: terms.length }
  // A stop word being typed ("walrus and") is not a word to require; the words before it still count. A query
  // over MAX_WORDS words is pasted text rather than typed: its last word does not expand.
  if (!last || !row?.last?.length || all.length > MAX_WORDS) return analyzed
  const stem = row.last[0]!
  const idx = terms.find((t) => t.term === stem)?.idx ?? terms.length
  if (idx >= MAX_WORDS) return analyzed
  for (const prefix of new Set([stem, last])) terms.push({ idx, term: prefix, prefix: true })
  return { ...analyzed, words: new Set(terms.map((t) => t.idx)).size }
}

/** MAX_WORDS of `terms`, in query order: the lowest document frequencies in the user's index, absent words last. */
async function mostSelective(db: Tx, terms: string[], userId: string | undefined): Promise<string[]> {
  if (!userId) return terms.slice(0, MAX_WORDS)
  const rows = await queryRows<{ term: string; df: number }>(
    db,
    sql`select term, sum(n)::int as df from term_blocks
        where user_id = ${userId} and term in (select jsonb_array_elements_text(${JSON.stringify(terms)}::jsonb) collate "C")
        group by term`,
  )
  const df = new Map(rows.map((r) => [r.term, Number(r.df)]))
  const rank = (term: string) => df.get(term) || Number.POSITIVE_INFINITY
  const chosen = new Set(
    terms
      .map((term, position) => ({ term, position }))
      .sort((a, b) => rank(a.term) - rank(b.term) || a.position - b.position)
      .slice(0, MAX_WORDS)
      .map((t) => t.term),
  )
  return terms.filter((t) => chosen.has(t))
}
