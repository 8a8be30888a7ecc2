// Exact cosine ranking over one segment of a user's cached vector index (vector-cache.ts ranks a whole index): the
// same ranking as the SQL in semantic.ts — best chunk per document, filters applied before the top-k is cut,
// similarity × boost, then document id. Two passes: the int8 codes of every chunk the filters let through are
// scanned (vector-codes.ts: a quarter of the float bytes, 16 lanes at a time), giving each document an interval
// that surely holds its score; only documents whose interval reaches the k-th best lower bound are rescored from
// the float32 vectors. Exact by construction, not by luck of the data.
import { boostAt, filterTest, type DocumentColumns } from './document-columns'
import type { DocumentFilter } from './document-fields'
import type { SegmentData } from './segment-set'
import { codesBytes, encodeQuery, type VectorCodes } from './vector-codes'

/** Documents (in id order: their columns) and their embedded chunks, in flat arrays: an index's base or one of its deltas. */
export interface VectorSegment extends SegmentData {
  /** The embedder id (chunks.embedding_model) the vectors were made by; no other model's vector is held. */
  model: string
  dim: number
  columns: DocumentColumns
  /** Chunks grouped by document: document d's are docStart[d] … docStart[d+1]; vectors[c*dim…], norms[c] = |v|²
   * (zero and NaN vectors are never loaded), and their int8 codes. */
  chunkIds: string[]
  chunkDoc: Int32Array
  docStart: Int32Array
  vectors: Float32Array
  norms: Float64Array
  codes: VectorCodes
}

/** Bytes of a segment: its arrays, its columns, ~64 a chunk id. */
export const bytesOf = (segment: Omit<VectorSegment, 'bytes' | 'weight'>) =>
  segment.vectors.byteLength +
  codesBytes(segment.codes) +
  segment.chunkIds.length * 64 +
  segment.chunkDoc.byteLength +
  segment.docStart.byteLength +
  segment.norms.byteLength +
  segment.columns.bytes

export interface RankedDocument {
  d: number
  chunk: number
  similarity: number
  ranked: number
}

interface RankOptions {
  /** Multiply by the document's boost (search); links compare raw similarity. */
  boost: boolean
  /** Only documents whose best similarity is at least this. */
  atLeast?: number
  /** Documents left out besides the filter's: dead[d] = 1 when a later segment of the index holds document d (or it is gone). */
  dead?: Uint8Array | null
}

/**
 * The top `limit` documents passing `filter` by the best similarity of any of their chunks to any of `queries`
 * (a query vector as pgvector holds it: float32), best first, then lowest document id; of equally near chunks
 * the lowest id. A zero or NaN query vector compares with nothing (SQL: a NaN distance, left out).
 */
export function rankDocuments(
  segment: VectorSegment,
  queries: Float32Array[],
  filter: DocumentFilter,
  limit: number,
  options: RankOptions,
): RankedDocument[] {
  const usable = queries.filter((q) => q.length === segment.dim && squaredNorm(q) > 0 && Number.isFinite(squaredNorm(q)))
  if (usable.length === 0 || limit <= 0) return []
  const { docStart, codes } = segment
  const docs = passingDocuments(segment, filter, options.dead)
  const boostOf = (d: number) => (options.boost ? boostAt(segment.columns, d) : 1)

  // Pass 1: per document, an interval [low, high] surely holding its best similarity over every query.
  const low = new Float64Array(docs.length).fill(-Infinity)
  const high = new Float64Array(docs.length).fill(-Infinity)
  for (const q of usable) {
    const { scale: qs, norm: qn, errorNorm: qe } = encodeQuery(codes.dots, q)
    const qq = qn * qn
    runsOf(segment, docs, (from, to) => codes.dots.run(from, to))
    const { out } = codes.dots
    for (let k = 0; k < docs.length; k++) {
      const d = docs[k]!
      let lo = low[k]!
      let hi = high[k]!
      for (let c = docStart[d]!; c < docStart[d + 1]!; c++) {
        const den = Math.sqrt(qq * segment.norms[c]!)
        const estimate = qs * codes.scale[c]! * out[c]!
        // The code bound, plus float rounding of the rescoring's own sums (far below either).
        const error = qn * codes.errorNorm[c]! + qe * codes.codedNorm[c]! + 1e-9 * den
        lo = Math.max(lo, (estimate - error) / den)
        hi = Math.max(hi, (estimate + error) / den)
      }
      low[k] = lo
      high[k] = hi
    }
  }

  // The k-th best lower bound of a score: a document whose upper bound is below it cannot be in the top k.
  const floor: number[] = []
  for (let k = 0; k < docs.length; k++) {
    const b = boostOf(docs[k]!)
    const lo = Math.min(low[k]! * b, high[k]! * b)
    if (floor.length < limit || lo > floor[floor.length - 1]!) {
      let at = floor.length
      while (at > 0 && floor[at - 1]! < lo) at--
      floor.splice(at, 0, lo)
      if (floor.length > limit) floor.pop()
    }
  }
  const cut = floor.length === limit ? floor[limit - 1]! : -Infinity
  const atLeast = options.atLeast ?? -Infinity

  // Pass 2: the candidates rescored exactly from their float32 vectors, in document order (as before).
  const top: RankedDocument[] = []
  const better = (ranked: number, d: number, than: RankedDocument) => ranked > than.ranked || (ranked === than.ranked && d < than.d)
  for (let k = 0; k < docs.length; k++) {
    const d = docs[k]!
    const b = boostOf(d)
    if (high[k]! < atLeast || Math.max(low[k]! * b, high[k]! * b) < cut) continue
    let best = -Infinity
    let bestChunk = -1
    for (const q of usable) {
      const qq = squaredNorm(q)
      for (let c = docStart[d]!; c < docStart[d + 1]!; c++) {
        const similarity = exactCosine(q, qq, segment, c)
        if (similarity > best) (best = similarity), (bestChunk = c)
      }
    }
    if (bestChunk < 0 || !(best >= atLeast)) continue
    const ranked = best * b
    if (!Number.isFinite(ranked)) continue
    if (top.length === limit && !better(ranked, d, top[limit - 1]!)) continue
    let at = top.length < limit ? top.length : limit - 1
    while (at > 0 && better(ranked, d, top[at - 1]!)) at--
    top.splice(at, 0, { d, chunk: bestChunk, similarity: best, ranked })
    if (top.length > limit) top.pop()
  }
  return top
}

/** pgvector's cosine: dot / sqrt(|a|² |b|²), clamped to [-1, 1]; four independent sums (1.4× faster than one here). */
function exactCosine(q: Float32Array, qq: number, segment: VectorSegment, c: number): number {
  const { vectors, dim } = segment
  let s0 = 0
  let s1 = 0
  let s2 = 0
  let s3 = 0
  const at = c * dim
  let i = 0
  for (; i + 3 < dim; i += 4) {
    const j = at + i
    s0 += q[i]! * vectors[j]!
    s1 += q[i + 1]! * vectors[j + 1]!
    s2 += q[i + 2]! * vectors[j + 2]!
    s3 += q[i + 3]! * vectors[j + 3]!
  }
  for (; i < dim; i++) s0 += q[i]! * vectors[at + i]!
  return Math.max(-1, Math.min(1, (s0 + s1 + s2 + s3) / Math.sqrt(qq * segment.norms[c]!)))
}

function squaredNorm(q: Float32Array): number {
  let qq = 0
  for (const v of q) qq += v * v
  return qq
}

/** The documents with chunks that the filter lets through, ascending (a filtered-out document costs no arithmetic). */
function passingDocuments(segment: VectorSegment, filter: DocumentFilter, dead?: Uint8Array | null): Int32Array {
  const passes = filterTest(segment.columns, filter, dead ?? null)
  const out: number[] = []
  if (!passes) return Int32Array.from(out)
  for (let d = 0; d < segment.columns.count; d++) if (segment.docStart[d] !== segment.docStart[d + 1] && passes(d)) out.push(d)
  return Int32Array.from(out)
}

/** Calls run(from, to) over the chunk ranges of consecutive passing documents (one call when nothing is filtered). */
function runsOf(segment: VectorSegment, docs: Int32Array, run: (from: number, to: number) => void): void {
  let k = 0
  while (k < docs.length) {
    const from = segment.docStart[docs[k]!]!
    let end = k + 1
    while (end < docs.length && docs[end] === docs[end - 1]! + 1) end++
    run(from, segment.docStart[docs[end - 1]! + 1]!)
    k = end
  }
}
