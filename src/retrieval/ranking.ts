// What the rankers share — BM25's parameters, the boost every ranking multiplies in, and the hit each ranker
// answers — kept apart so the SQL rankers (keyword.ts, semantic.ts) and the cached indexes' rankers
// (keyword-cache-rank.ts, vector-cache-rank.ts) can each read it without importing one another.
import { sql } from 'drizzle-orm'

/** Okapi BM25 parameters: the usual defaults of Lucene and Anserini's BEIR runs (k1 0.9, b 0.4). */
export const K1 = 0.9
export const B = 0.4
/** A word matched only as the prefix of the last, still-being-typed term counts for this much. */
export const PREFIX_WEIGHT = 0.5

/**
 * Pinned documents get +10 %, a thumbs-up +5 %, a thumbs-down −5 %: enough to break near-ties, never to
 * bury a better match. Applied inside the ranking, so `limit` never cuts a document the boost lifts.
 */
export const PINNED_BOOST = 1.1
export const RATING_BOOST = 0.05

/** The boost of a document, as the cached indexes compute it (the same floats as BOOST's SQL). */
export const boostOf = (pinned: boolean | number, rating: number) => (pinned ? PINNED_BOOST : 1) * (1 + RATING_BOOST * rating)

/** The same boost in SQL, on the documents table aliased `d`: written from the constants above, not restated. */
export const BOOST = sql.raw(`(case when d.pinned then ${PINNED_BOOST} else 1 end * (1 + ${RATING_BOOST} * d.rating))`)

export interface KeywordHit {
  document_id: string
  /** Raw BM25 score; `boost` multiplies it for the order. */
  score: number
  boost: number
  /** How many of the query's words the document matched. */
  matched_terms: number
}

export interface SemanticHit {
  document_id: string
  chunk_id: string
  similarity: number
  boost: number
}
