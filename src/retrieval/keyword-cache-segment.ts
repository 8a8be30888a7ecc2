// A segment of a user's cached keyword index, held in typed arrays only (its size is what they hold), and how to
// read it: terms, postings, tf (keyword-cache-build.ts assembles one). Its documents' fields are its columns
// (document-columns.ts), in id order, so comparing two document numbers compares their ids (the ranking's tie-break).
import type { DocumentColumns } from './document-columns'
import { B, K1 } from './ranking'
import type { SegmentData } from './segment-set'

/** A posting's tf is a count (body, plus TITLE_WEIGHT × title and tags): uint16, with a side table past it. */
export const TF_OVERFLOW = 0xffff
/** Postings a block: each term's postings are cut in blocks with their last document and largest tf part. */
export const BLOCK = 64

export interface KeywordSegment extends SegmentData {
  version: number
  /** BM25 corpus: documents with keyword length > 0 (every status) and their average length, as keyword_stats says. */
  n: number
  avgdl: number
  /** Documents in id order, with what filters and boosts read. */
  columns: DocumentColumns
  dl: Float32Array
  /** Terms in code-unit order (for prefix ranges): term t is termChars[termAt[t] .. termAt[t + 1]). */
  termChars: Uint16Array
  termAt: Int32Array
  /** Postings of term t: docs/tf[postingAt[t] .. postingAt[t + 1]), in document order. */
  postingAt: Int32Array
  docs: Int32Array
  tf: Uint16Array
  /** tf of postings whose tf does not fit uint16 (by posting number); empty for ordinary text. */
  tfOverflow: Map<number, number>
  /**
   * Blocks of BLOCK postings: term t's are blockAt[t] .. blockAt[t + 1]), each with its last document and the
   * largest BM25 tf part of its postings (rounded up): with the term's idf, an upper bound of its scores there.
   */
  blockAt: Int32Array
  blockLast: Int32Array
  blockMaxTf: Float32Array
  /** The largest boost any document has: upper bounds are scores × this. */
  maxBoost: number
  terms: number
  /** Postings held: the segment's weight. */
  postings: number
  /** Bytes of the typed arrays above and the columns'. */
  bytes: number
}

export const tfOf = (index: KeywordSegment, p: number) => (index.tf[p] === TF_OVERFLOW ? index.tfOverflow.get(p)! : index.tf[p]!)
/** BM25's tf part, exactly as the SQL ranking computes it. */
export const tfPart = (tf: number, dl: number, avgdl: number) => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * dl) / avgdl))

/** Compares `key` with term t in code-unit order: < 0, 0, > 0. */
function compareTerm(index: KeywordSegment, t: number, key: string): number {
  const [from, to] = [index.termAt[t]!, index.termAt[t + 1]!]
  const n = Math.min(to - from, key.length)
  for (let i = 0; i < n; i++) {
    const diff = key.charCodeAt(i) - index.termChars[from + i]!
    if (diff) return diff
  }
  return key.length - (to - from)
}

/** The first term not below `key`. */
function lowerBound(index: KeywordSegment, key: string): number {
  let [lo, hi] = [0, index.terms]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareTerm(index, mid, key) > 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function findTerm(index: KeywordSegment, term: string): number {
  const t = lowerBound(index, term)
  return t < index.terms && compareTerm(index, t, term) === 0 ? t : -1
}

/** Terms longer than `prefix` that start with it: [from, to). */
export function prefixRange(index: KeywordSegment, prefix: string): [number, number] {
  let from = lowerBound(index, prefix)
  if (from < index.terms && compareTerm(index, from, prefix) === 0) from++
  let to = from
  while (to < index.terms && index.termAt[to + 1]! - index.termAt[to]! > prefix.length && startsWith(index, to, prefix)) to++
  return [from, to]
}

function startsWith(index: KeywordSegment, t: number, prefix: string): boolean {
  const from = index.termAt[t]!
  for (let i = 0; i < prefix.length; i++) if (index.termChars[from + i] !== prefix.charCodeAt(i)) return false
  return true
}

/** What a segment holds: its typed arrays' bytes and its columns', 16 bytes an oversized tf. */
export function bytesOf(index: Omit<KeywordSegment, 'bytes' | 'weight'>): number {
  const arrays = [
    index.dl,
    index.termChars,
    index.termAt,
    index.postingAt,
    index.docs,
    index.tf,
    index.blockAt,
    index.blockLast,
    index.blockMaxTf,
  ]
  return arrays.reduce((sum, a) => sum + a.byteLength, 0) + 16 * index.tfOverflow.size + index.columns.bytes
}
