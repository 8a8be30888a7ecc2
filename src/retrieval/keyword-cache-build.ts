// Assembles a segment of a user's cached keyword index (keyword-cache-segment.ts) from documents and per-term
// posting lists, as a load reads them (keyword-cache.ts) or a catch-up brings them: documents sorted by id, terms by
// code unit, each term's postings cut in blocks with their bounds (blockBounds; a merge, keyword-cache-merge.ts,
// cuts its blocks the same way).
import { boostAt, byId, columnsOf } from './document-columns'
import type { DocumentFields } from './document-fields'
import { BLOCK, bytesOf, TF_OVERFLOW, tfPart, type KeywordSegment } from './keyword-cache-segment'
import { atOnce } from './slices'

/** A document as a catch-up reads it: its fields and its postings (term, tf, dl). */
export interface ChangedDocument extends DocumentFields {
  postings: [string, number, number][] | null
}

/** A typed array that grows by doubling while a segment loads, trimmed to its length at the end. */
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
 * Assembles a segment: documents first (any order; they are sorted by id here), then each term's postings
 * (any term order, documents by id). `bytes` is what the segment will hold so far, so a load can stop early.
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

  /**
   * `postings`: how many are coming, when known (a delta segment's few), so small segments allocate little.
   * `keyOf`: how addTerm names a document — its id, or for a load its number in the index (documents.doc_no).
   */
  constructor(documents: DocumentFields[], postings = 1 << 16, keyOf: (d: DocumentFields) => string | null = (d) => d.id.toLowerCase()) {
    this.postingAt = new Grow(new Int32Array(Math.min(1024, postings + 1)))
    this.docs = new Grow(new Int32Array(Math.max(postings, 1)))
    this.tf = new Grow(new Uint16Array(Math.max(postings, 1)))
    this.fields = [...documents].sort(byId)
    this.count = this.fields.length
    this.fields.forEach((d, i) => {
      const key = keyOf(d)
      if (key !== null) this.at.set(key, i)
    })
    this.dl = new Float32Array(this.count)
    this.postingAt.push(0)
  }

  /** What build() will hold, within a few bytes a document: checked against the budget as an index loads. */
  get bytes(): number {
    return (6 + 8 / BLOCK) * this.docs.length + 20 * this.termList.length + 2 * this.chars + 48 * this.count
  }

  /**
   * Adds a term's postings, given flat as document id, tf, dl, document id, tf, dl…. Postings of a document not in
   * the segment (written after the documents were read) are left out: the log of changes brings it.
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

  build(version: number, stats: { documents: number; totalLen: number }): KeywordSegment {
    return atOnce(this.buildInSteps(version, stats))
  }

  /** build() in steps, for a load run in slices between requests (slices.ts). */
  *buildInSteps(version: number, stats: { documents: number; totalLen: number }): Generator<void, KeywordSegment> {
    const n = Math.max(stats.documents, 1)
    const avgdl = Math.max(stats.totalLen / n, 1)
    const terms = this.termList.length
    // Terms in code-unit order (their postings copied in that order when the loader's order differs: the database
    // sorts by code point, which differs past the Basic Multilingual Plane) — sorted only when they are not.
    const byTerm = Array.from({ length: terms }, (_, i) => i)
    const sorted = this.termList.every((term, i) => i === 0 || this.termList[i - 1]! < term)
    if (!sorted) byTerm.sort((a, b) => (this.termList[a]! < this.termList[b]! ? -1 : this.termList[a]! > this.termList[b]! ? 1 : 0))
    yield
    const [srcAt, srcDocs, srcTf] = [this.postingAt.data, this.docs.data, this.tf.data]
    const docs = sorted ? this.docs.trimmed() : new Int32Array(this.docs.length)
    const tf = sorted ? this.tf.trimmed() : new Uint16Array(this.tf.length)
    const postingAt = sorted ? this.postingAt.trimmed() : new Int32Array(terms + 1)
    const tfOverflow = sorted ? this.tfOverflow : new Map<number, number>()
    const termAt = new Int32Array(terms + 1)
    const termChars = new Uint16Array(this.chars)
    let [p, c] = [0, 0]
    byTerm.forEach((src, t) => {
      const term = this.termList[src]!
      for (let i = 0; i < term.length; i++) termChars[c + i] = term.charCodeAt(i)
      c += term.length
      termAt[t + 1] = c
      if (sorted) return
      for (let q = srcAt[src]!; q < srcAt[src + 1]!; q++, p++) {
        docs[p] = srcDocs[q]!
        tf[p] = srcTf[q]!
        if (srcTf[q] === TF_OVERFLOW) tfOverflow.set(p, this.tfOverflow.get(q)!)
      }
      postingAt[t + 1] = p
    })
    yield
    const blocks = yield* blockBounds(postingAt, docs, tf, tfOverflow, this.dl, avgdl)
    const columns = columnsOf(this.fields)
    yield
    return completeSegment({
      version,
      n,
      avgdl,
      columns,
      dl: this.dl,
      termChars,
      termAt,
      postingAt,
      docs,
      tf,
      tfOverflow,
      ...blocks,
      terms,
    })
  }
}

/** Postings bounded between two yields of blockBounds. */
const BOUNDS_STEP = 50_000

/**
 * Each term's postings cut in blocks of BLOCK, with the block's last document and the largest BM25 tf part of its
 * postings at `avgdl` (rounded up past float32's rounding, 2^-24 relative, so the bound is never below a score).
 * Yields every BOUNDS_STEP postings: at 100,000 documents (~10 million postings) it was one step of a compaction,
 * and the process stalled for up to 226 ms as one ended (bench:search --after-ingest).
 */
export function* blockBounds(
  postingAt: Int32Array,
  docs: Int32Array,
  tf: Uint16Array,
  tfOverflow: Map<number, number>,
  dl: Float32Array,
  avgdl: number,
): Generator<void, Pick<KeywordSegment, 'blockAt' | 'blockLast' | 'blockMaxTf'>> {
  const terms = postingAt.length - 1
  const blockAt = new Int32Array(terms + 1)
  for (let t = 0; t < terms; t++) blockAt[t + 1] = blockAt[t]! + Math.ceil((postingAt[t + 1]! - postingAt[t]!) / BLOCK)
  const blockLast = new Int32Array(blockAt[terms]!)
  const blockMaxTf = new Float32Array(blockAt[terms]!)
  let sinceYield = 0
  for (let t = 0; t < terms; t++) {
    const first = postingAt[t]!
    for (let p = first; p < postingAt[t + 1]!; p++) {
      const block = blockAt[t]! + Math.floor((p - first) / BLOCK)
      const part = tfPart(tf[p] === TF_OVERFLOW ? tfOverflow.get(p)! : tf[p]!, dl[docs[p]!]!, avgdl)
      if (part > blockMaxTf[block]!) blockMaxTf[block] = part * (1 + 1e-6)
      blockLast[block] = docs[p]!
    }
    if ((sinceYield += postingAt[t + 1]! - first) >= BOUNDS_STEP) (sinceYield = 0), yield
  }
  return { blockAt, blockLast, blockMaxTf }
}

/** A segment from its arrays: the largest boost, its postings (its weight) and its bytes counted. */
export function completeSegment(index: Omit<KeywordSegment, 'maxBoost' | 'postings' | 'weight' | 'bytes'>): KeywordSegment {
  let maxBoost = 0
  for (let d = 0; d < index.columns.count; d++) maxBoost = Math.max(maxBoost, boostAt(index.columns, d))
  const segment = { ...index, maxBoost, postings: index.docs.length, weight: index.docs.length, bytes: 0 }
  segment.bytes = bytesOf(segment)
  return segment
}

/** A segment of these documents (their postings in the same snapshot). */
export function buildSegment(docs: ChangedDocument[], version: number, stats: { documents: number; totalLen: number }): KeywordSegment {
  const sorted = [...docs].sort(byId)
  const builder = new IndexBuilder(
    sorted,
    sorted.reduce((n, d) => n + (d.postings?.length ?? 0), 0),
  )
  const byTerm = new Map<string, (string | number)[]>()
  for (const doc of sorted) {
    for (const [term, tf, dl] of doc.postings ?? []) {
      const list = byTerm.get(term)
      if (list) list.push(doc.id, tf, dl)
      else byTerm.set(term, [doc.id, tf, dl])
    }
  }
  for (const [term, flat] of byTerm) builder.addTerm(term, flat)
  return builder.build(version, stats)
}
