// The in-memory copy of one user's keyword index, held in typed arrays only (its size is what they hold), and how
// to read it: terms, documents, tf and boosts (keyword-memory-build.ts assembles one).
// Documents are kept in id order, so comparing two document numbers compares their ids (the ranking's tie-break).
import { B, K1 } from './ranking'

/** A posting's tf is a count (body, plus TITLE_WEIGHT × title and tags): uint16, with a side table past it. */
export const TF_OVERFLOW = 0xffff
/** Postings a block: each term's postings are cut in blocks with their last document and largest tf part. */
export const BLOCK = 64

export interface UserIndex {
  version: number
  /** BM25 corpus: documents with keyword length > 0 (every status) and their average length, as keyword_stats says. */
  n: number
  avgdl: number
  /** Documents, in id order. */
  count: number
  /** 16 bytes a document: its uuid. */
  ids: Uint8Array
  dl: Float32Array
  active: Uint8Array
  pinned: Uint8Array
  rating: Int8Array
  /** Codes into the name tables below (filters compare codes). */
  workspace: Int32Array
  kind: Int32Array
  source: Int32Array
  names: { workspace: string[]; kind: string[]; source: string[]; tag: string[] }
  /** Tags of document d: tagCodes[tagStart[d] .. tagStart[d + 1]). */
  tagStart: Int32Array
  tagCodes: Int32Array
  /** When document d happened, epoch ms (DocumentFields.occurred_at). */
  occurred: Float64Array
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
  postings: number
  /** Bytes of the typed arrays above and the name tables (2 a character). */
  bytes: number
}

export const boostOf = (index: UserIndex, d: number) => (index.pinned[d] ? 1.1 : 1) * (1 + 0.05 * index.rating[d]!)
export const tfOf = (index: UserIndex, p: number) => (index.tf[p] === TF_OVERFLOW ? index.tfOverflow.get(p)! : index.tf[p]!)
/** BM25's tf part, exactly as the SQL ranking computes it. */
export const tfPart = (tf: number, dl: number, avgdl: number) => (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * dl) / avgdl))

/** Compares `key` with term t in code-unit order: < 0, 0, > 0. */
function compareTerm(index: UserIndex, t: number, key: string): number {
  const [from, to] = [index.termAt[t]!, index.termAt[t + 1]!]
  const n = Math.min(to - from, key.length)
  for (let i = 0; i < n; i++) {
    const diff = key.charCodeAt(i) - index.termChars[from + i]!
    if (diff) return diff
  }
  return key.length - (to - from)
}

/** The first term not below `key`. */
function lowerBound(index: UserIndex, key: string): number {
  let [lo, hi] = [0, index.terms]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compareTerm(index, mid, key) > 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function findTerm(index: UserIndex, term: string): number {
  const t = lowerBound(index, term)
  return t < index.terms && compareTerm(index, t, term) === 0 ? t : -1
}

/** Terms longer than `prefix` that start with it: [from, to). */
export function prefixRange(index: UserIndex, prefix: string): [number, number] {
  let from = lowerBound(index, prefix)
  if (from < index.terms && compareTerm(index, from, prefix) === 0) from++
  let to = from
  while (to < index.terms && index.termAt[to + 1]! - index.termAt[to]! > prefix.length && startsWith(index, to, prefix)) to++
  return [from, to]
}

function startsWith(index: UserIndex, t: number, prefix: string): boolean {
  const from = index.termAt[t]!
  for (let i = 0; i < prefix.length; i++) if (index.termChars[from + i] !== prefix.charCodeAt(i)) return false
  return true
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
export function idOf(index: UserIndex, d: number): string {
  const h = (i: number) => HEX[index.ids[16 * d + i]!]
  let s = ''
  for (let i = 0; i < 16; i++) s += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + h(i)
  return s
}

export function uuidBytes(id: string): Uint8Array | null {
  const hex = id.toLowerCase().replace(/-/g, '')
  if (!/^[0-9a-f]{32}$/.test(hex)) return null
  return Uint8Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16))
}

/** The document number of `id`, or -1 (ids are sorted: a binary search). */
export function documentOf(index: UserIndex, id: string): number {
  const key = uuidBytes(id)
  if (!key) return -1
  let [lo, hi] = [0, index.count]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    let diff = 0
    for (let i = 0; i < 16 && diff === 0; i++) diff = index.ids[16 * mid + i]! - key[i]!
    if (diff === 0) return mid
    if (diff < 0) lo = mid + 1
    else hi = mid
  }
  return -1
}

/** What a copy holds: its typed arrays' bytes, name tables at 2 bytes a character, 16 bytes an oversized tf. */
export function bytesOf(index: UserIndex): number {
  const arrays = [
    index.ids,
    index.dl,
    index.active,
    index.pinned,
    index.rating,
    index.workspace,
    index.kind,
    index.source,
    index.tagStart,
    index.tagCodes,
    index.occurred,
    index.termChars,
    index.termAt,
    index.postingAt,
    index.docs,
    index.tf,
    index.blockAt,
    index.blockLast,
    index.blockMaxTf,
  ]
  let bytes = arrays.reduce((sum, a) => sum + a.byteLength, 0) + 16 * index.tfOverflow.size
  for (const list of Object.values(index.names)) for (const name of list) bytes += 2 * name.length
  return bytes
}
