// Assembles a user's keyword copy (keyword-memory-index.ts) from documents and per-term posting lists, as a load
// reads them (keyword-memory-load.ts) or a catch-up brings them (keyword-memory-copy.ts): documents sorted by id,
// terms by code unit, each term's postings cut in blocks with their bounds.
import type { DocumentFields } from './document-fields'
import { BLOCK, boostOf, bytesOf, TF_OVERFLOW, tfPart, type UserIndex, uuidBytes } from './keyword-memory-index'

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
    return (6 + 8 / BLOCK) * this.docs.length + 20 * this.termList.length + 2 * this.chars + 48 * this.count
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
      occurred: Float64Array.from(this.fields, (d) => d.occurred_at),
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
