// The in-memory copy of one user's keyword index, held in typed arrays only (its size is what they hold), and
// the builder that assembles it from documents and per-term posting lists (keyword-memory-load.ts reads them).
// Documents are kept in id order, so comparing two document numbers compares their ids (the ranking's tie-break).
import type { DocumentFields } from './document-fields'
import { B, K1 } from './ranking'

/** A posting's tf is a count (body, plus TITLE_WEIGHT × title and tags): uint16, with a side table past it. */
const TF_OVERFLOW = 0xffff
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

/** Codes for a few distinct strings (workspaces, kinds, sources, tags). */
class Names {
  readonly list: string[] = []
  private readonly codes = new Map<string, number>()
  code(name: string): number {
    let c = this.codes.get(name)
    if (c === undefined) this.codes.set(name, (c = this.list.push(name) - 1))
    return c
  }
}

/** A typed array that grows by doubling while a copy loads, trimmed to its length at the end. */
class Grow<T extends Int32Array | Uint16Array> {
  length = 0
  constructor(public data: T) {}
  push(v: number) {
    if (this.length === this.data.length) this.reserve(this.length + 1)
    this.data[this.length++] = v
  }
  reserve(n: number) {
    if (n <= this.data.length) return
    const next = new (this.data.constructor as new (n: number) => T)(Math.max(n, 2 * this.data.length))
    next.set(this.data)
    this.data = next
  }
  trimmed(): T {
    return this.data.slice(0, this.length) as T
  }
}

/**
 * Assembles a copy: documents first (any order; they are sorted by id here), then each term's postings
 * (any term order, documents by id). `bytes` is what the copy will hold so far, so a load can stop early.
 */
export class IndexBuilder {
  readonly count: number
  private readonly at = new Map<string, number>()
  private readonly fields: DocumentFields[]
  readonly dl: Float32Array
  private readonly termList: string[] = []
  private chars = 0
  private readonly postingAt: Grow<Int32Array>
  private readonly docs: Grow<Int32Array>
  private readonly tf: Grow<Uint16Array>
  private readonly tfOverflow = new Map<number, number>()

  /** `postings`: how many are coming, when known (a delta segment's few), so small copies allocate little. */
  constructor(documents: DocumentFields[], postings = 1 << 16) {
    this.postingAt = new Grow(new Int32Array(Math.min(1024, postings + 1)))
    this.docs = new Grow(new Int32Array(Math.max(postings, 1)))
    this.tf = new Grow(new Uint16Array(Math.max(postings, 1)))
    this.fields = [...documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    this.count = this.fields.length
    this.fields.forEach((d, i) => this.at.set(d.id.toLowerCase(), i))
    this.dl = new Float32Array(this.count)
    this.postingAt.push(0)
  }

  /** What build() will hold, within a few bytes a document: checked against the budget as a copy loads. */
  get bytes(): number {
    return (6 + 8 / BLOCK) * this.docs.length + 20 * this.termList.length + 2 * this.chars + 40 * this.count
  }

  /**
   * Adds a term's postings, given flat as document id, tf, dl, document id, tf, dl…. Postings of a document not in
   * the copy (written after the documents were read) are left out: the log of changes brings it.
   */
  addTerm(term: string, flat: ArrayLike<string | number>): void {
    const start = this.docs.length
    let ordered = true
    for (let k = 0; k < flat.length; k += 3) {
      const d = this.at.get(String(flat[k]))
      if (d === undefined) continue
      const tf = Number(flat[k + 1])
      this.dl[d] = Number(flat[k + 2])
      if (this.docs.length > start && d <= this.docs.data[this.docs.length - 1]!) ordered = false
      this.push(d, tf)
    }
    if (this.docs.length === start) return
    if (!ordered) this.sortPostings(start)
    this.termList.push(term)
    this.chars += term.length
    this.postingAt.push(this.docs.length)
  }

  private truncate(start: number) {
    for (let p = start; p < this.docs.length; p++) this.tfOverflow.delete(p)
    this.docs.length = this.tf.length = start
  }

  /** Postings from `start` in document order (the loader asks for that order; this is a safeguard). */
  private sortPostings(start: number) {
    const rows = Array.from({ length: this.docs.length - start }, (_, i) => start + i)
    const tfs = rows.map((p) => (this.tf.data[p] === TF_OVERFLOW ? this.tfOverflow.get(p)! : this.tf.data[p]!))
    const docs = rows.map((p) => this.docs.data[p]!)
    const order = rows.map((_, i) => i).sort((a, b) => docs[a]! - docs[b]!)
    this.truncate(start)
    for (const i of order) this.push(docs[i]!, tfs[i]!)
  }

  private push(d: number, tf: number) {
    if (Number.isInteger(tf) && tf >= 0 && tf < TF_OVERFLOW) this.tf.push(tf)
    else this.tfOverflow.set(this.docs.length, tf), this.tf.push(TF_OVERFLOW)
    this.docs.push(d)
  }

  build(version: number, stats: { documents: number; totalLen: number }): UserIndex {
    const n = Math.max(stats.documents, 1)
    const avgdl = Math.max(stats.totalLen / n, 1)
    const terms = this.termList.length
    // Terms in code-unit order (their postings copied in that order when the loader's order differs).
    const byTerm = Array.from({ length: terms }, (_, i) => i)
    byTerm.sort((a, b) => (this.termList[a]! < this.termList[b]! ? -1 : this.termList[a]! > this.termList[b]! ? 1 : 0))
    const sorted = byTerm.every((t, i) => t === i)
    const [srcAt, srcDocs, srcTf] = [this.postingAt.data, this.docs.data, this.tf.data]
    const docs = sorted ? this.docs.trimmed() : new Int32Array(this.docs.length)
    const tf = sorted ? this.tf.trimmed() : new Uint16Array(this.tf.length)
    const postingAt = new Int32Array(terms + 1)
    const tfOverflow = sorted ? this.tfOverflow : new Map<number, number>()
    const termAt = new Int32Array(terms + 1)
    const termChars = new Uint16Array(this.chars)
    const blockAt = new Int32Array(terms + 1)
    for (let t = 0; t < terms; t++) blockAt[t + 1] = blockAt[t]! + Math.ceil((srcAt[byTerm[t]! + 1]! - srcAt[byTerm[t]!]!) / BLOCK)
    const blockLast = new Int32Array(blockAt[terms]!)
    const blockMaxTf = new Float32Array(blockAt[terms]!)
    let [p, c] = [0, 0]
    byTerm.forEach((src, t) => {
      const term = this.termList[src]!
      for (let i = 0; i < term.length; i++) termChars[c + i] = term.charCodeAt(i)
      c += term.length
      termAt[t + 1] = c
      const first = p
      for (let q = srcAt[src]!; q < srcAt[src + 1]!; q++, p++) {
        if (!sorted) {
          docs[p] = srcDocs[q]!
          tf[p] = srcTf[q]!
          if (srcTf[q] === TF_OVERFLOW) tfOverflow.set(p, this.tfOverflow.get(q)!)
        }
        const block = blockAt[t]! + Math.floor((p - first) / BLOCK)
        const part = tfPart(srcTf[q] === TF_OVERFLOW ? this.tfOverflow.get(q)! : srcTf[q]!, this.dl[srcDocs[q]!]!, avgdl)
        // Rounded up past float32's rounding (2^-24 relative), so the bound is never below a score.
        if (part > blockMaxTf[block]!) blockMaxTf[block] = part * (1 + 1e-6)
        blockLast[block] = srcDocs[q]!
      }
      postingAt[t + 1] = p
    })
    const names = { workspace: new Names(), kind: new Names(), source: new Names(), tag: new Names() }
    const ids = new Uint8Array(16 * this.count)
    this.fields.forEach((d, i) => ids.set(uuidBytesOrThrow(d.id), 16 * i))
    const tagStart = new Int32Array(this.count + 1)
    this.fields.forEach((d, i) => (tagStart[i + 1] = tagStart[i]! + d.tags.length))
    const index = {
      version,
      n,
      avgdl,
      count: this.count,
      ids,
      dl: this.dl,
      active: Uint8Array.from(this.fields, (d) => (d.status === 'active' ? 1 : 0)),
      pinned: Uint8Array.from(this.fields, (d) => (d.pinned ? 1 : 0)),
      rating: Int8Array.from(this.fields, (d) => d.rating),
      workspace: Int32Array.from(this.fields, (d) => names.workspace.code(d.workspace_id)),
      kind: Int32Array.from(this.fields, (d) => names.kind.code(d.kind)),
      source: Int32Array.from(this.fields, (d) => names.source.code(d.source)),
      tagStart,
      tagCodes: Int32Array.from(this.fields.flatMap((d) => d.tags.map((t) => names.tag.code(t)))),
      names: { workspace: names.workspace.list, kind: names.kind.list, source: names.source.list, tag: names.tag.list },
      termChars,
      termAt,
      postingAt,
      docs,
      tf,
      tfOverflow,
      blockAt,
      blockLast,
      blockMaxTf,
      maxBoost: 0,
      terms,
      postings: docs.length,
      bytes: 0,
    } satisfies UserIndex
    for (let d = 0; d < index.count; d++) index.maxBoost = Math.max(index.maxBoost, boostOf(index, d))
    index.bytes = bytesOf(index)
    return index
  }
}

function uuidBytesOrThrow(id: string): Uint8Array {
  const bytes = uuidBytes(id)
  if (!bytes) throw new Error(`document id ${id} is not a uuid`)
  return bytes
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
