// Hybrid fusion of the keyword and semantic rankings by normalised scores: each side is scaled to [0, 1]
// over its candidates and mixed with the embedder's weight. Unlike reciprocal rank fusion, this keeps the
// size of the gaps: a weak embedder (weight 0.1) can reorder near-ties and add documents keyword search
// missed, but cannot overturn a clear keyword win — on SciFact, RRF with hash vectors lowered nDCG@10.
import type { KeywordHit } from './keyword'
import type { SemanticHit } from './semantic'

export interface RankedHit {
  document_id: string
  score: number
  keyword_rank: number | null
  keyword_score: number | null
  semantic_rank: number | null
  semantic_score: number | null
  matched_terms: number
  boost: number
  /** The chunk semantic search matched best, for a snippet when keyword search found nothing. */
  chunk_id: string | null
}

export function fromKeyword(hits: KeywordHit[]): RankedHit[] {
  return hits.map((h, i) => ({
    document_id: h.document_id,
    score: h.score * h.boost,
    keyword_rank: i + 1,
    keyword_score: h.score,
    semantic_rank: null,
    semantic_score: null,
    matched_terms: h.matched_terms,
    boost: h.boost,
    chunk_id: null,
  }))
}

export function fromSemantic(hits: SemanticHit[]): RankedHit[] {
  return hits.map((h, i) => ({
    document_id: h.document_id,
    score: h.similarity * h.boost,
    keyword_rank: null,
    keyword_score: null,
    semantic_rank: i + 1,
    semantic_score: h.similarity,
    matched_terms: 0,
    boost: h.boost,
    chunk_id: h.chunk_id,
  }))
}

export function fuse(keyword: RankedHit[], semantic: RankedHit[], weight: number): RankedHit[] {
  const alpha = weight / (1 + weight)
  const kwMax = Math.max(0, ...keyword.map((h) => h.score))
  const sims = semantic.map((h) => h.score)
  const [semMin, semMax] = [Math.min(...sims), Math.max(...sims)]
  const semNorm = (s: number) => (semMax > semMin ? (s - semMin) / (semMax - semMin) : 1)
  const byId = new Map<string, RankedHit>()
  for (const h of keyword) byId.set(h.document_id, { ...h, score: (1 - alpha) * (kwMax > 0 ? h.score / kwMax : 0) })
  for (const h of semantic) {
    const part = alpha * semNorm(h.score)
    const seen = byId.get(h.document_id)
    if (seen)
      byId.set(h.document_id, {
        ...seen,
        score: seen.score + part,
        semantic_rank: h.semantic_rank,
        semantic_score: h.semantic_score,
        chunk_id: h.chunk_id,
      })
    else byId.set(h.document_id, { ...h, score: part })
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || a.document_id.localeCompare(b.document_id))
}
