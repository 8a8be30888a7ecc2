// What the rankers share — BM25's parameters, the boost every ranking multiplies in, and the hit each ranker
// answers — kept apart so the SQL rankers (keyword.ts, semantic.ts) and their in-memory twins
// (keyword-memory-*.ts, vector-memory-rank.ts) can each read it without importing one another.
import { sql } from 'drizzle-orm'

/** Okapi BM25 parameters: the usual defaults of Lucene and Anserini's BEIR runs (k1 0.9, b 0.4). */
export const K1 = 0.9
export const B = 0.4
/** A word matched only as the prefix of the last, still-being-typed term counts for this much. */
export const PREFIX_WEIGHT = 0.5

/**
 * Pinned documents get +10 %, a thumbs-up +5 %, a thumbs-down −5 %: enough to break near-ties, never to
 * bury a better match. Applied inside the ranking query, so `limit` never cuts a document the boost lifts.
 */
export const BOOST = sql.raw(`(case when d.pinned then 1.1 else 1 end * (1 + 0.05 * d.rating))`)

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
