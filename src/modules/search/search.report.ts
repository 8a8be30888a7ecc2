// What a search says about what it did: `matched` (how the results relate to the query's words) and the
// notices (why the mode that ran, or the words searched, differ from what was asked). Each notice is one
// clause; the response joins them, so another part of the service can add its own.
import { MAX_QUERY_CHARS, type AnalyzedQuery } from '../../retrieval/keyword-query'

export type Mode = 'hybrid' | 'keyword' | 'semantic'
export type Matched = 'all' | 'any' | 'none'

/**
 * `all`: every result holds every searched word (exactly, or the last word as a prefix); `any`: some results
 * hold only some of them (OR matches filled the list, or semantic neighbours holding fewer); `none`: no
 * result holds any searched word (nothing found, the query had no searchable words, or only meaning matched).
 */
export function matchedOf(matchedTerms: number[], words: number): Matched {
  if (words === 0 || !matchedTerms.some((n) => n > 0)) return 'none'
  return matchedTerms.every((n) => n >= words) ? 'all' : 'any'
}

export interface SearchRun {
  asked: Mode
  /** The mode the service could offer (keyword when there is no embedding model). */
  offered: Mode
  ran: Mode
  /** Why there is no embedding model, when there is none. */
  unavailable?: string
  /** The embedding endpoint's error, when it failed for this query. */
  failure: string | null
  query: AnalyzedQuery
}

export function searchNotices(run: SearchRun): string[] {
  const notices: string[] = []
  if (run.failure) notices.push(`the embedding model failed (${run.failure}); searched by keyword`)
  else if (run.asked !== run.offered) {
    notices.push(`${run.asked} search needs an embedding model and none is available (${run.unavailable}); searched by keyword`)
  }
  const { query } = run
  if (!query.text.trim()) notices.push('the query is empty: there is nothing to search for')
  else if (!query.hasWords) notices.push('the query has no letters or digits: there is nothing to search for')
  else if (query.words === 0) {
    const stop = 'the query has only stop words (such as "the", "of", "and"), which keyword search ignores'
    notices.push(run.ran === 'keyword' ? `${stop}: there is nothing to match` : `${stop}: results are ranked by meaning alone`)
  }
  if (query.cut) notices.push(`the query was cut to its first ${MAX_QUERY_CHARS.toLocaleString('en')} characters`)
  if (query.words < query.distinctWords) {
    notices.push(`the query has ${query.distinctWords} distinct words; the ${query.words} rarest in your documents were searched`)
  }
  return notices
}
