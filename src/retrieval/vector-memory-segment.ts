// Assembles a segment of a user's vector copy (vector-memory-rank.ts) from documents' fields and pages of their
// chunks in pgvector's binary form (as a full load reads them, vector-memory-load.ts, and a catch-up brings
// them, vector-memory-delta.ts), and joins segments (a copy's deltas, merged when they pile up).
import type { DocumentFields } from './document-fields'
import { encodeRows } from './vector-codes'
import type { VectorSegment } from './vector-memory-rank'

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

export class SegmentBuilder {
  private readonly docs: DocumentFields[]
  private readonly at: Map<string, number>
  private readonly chunkIds: string[] = []
  private readonly chunkDoc: number[] = []
  private readonly parts: Float32Array[] = []
  private readonly norms: number[] = []
  dim = -1

  constructor(documents: DocumentFields[]) {
    this.docs = [...documents].sort(byId)
    this.at = new Map(this.docs.map((d, i) => [d.id, i]))
  }

  /**
   * Adds chunks: their ids, their documents' ids and their vectors as pgvector sends them (int16 dim, int16 unused,
   * big-endian float4s), one after the other. A chunk of a document not given (written after the documents were
   * read: the catch-up after a load replaces it) and a zero or NaN vector (SQL's cosine leaves it out) are not held.
   * False when a vector's dimension differs from the others': such vectors cannot be ranked together (SQL raises).
   */
  addChunks(ids: string[], owners: string[], bytes: Uint8Array): boolean {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    let offset = 0
    for (let k = 0; k < ids.length; k++) {
      const size = view.getInt16(offset)
      offset += 4
      if (this.dim === -1) this.dim = size
      if (size !== this.dim) return false
      const vector = new Float32Array(size)
      let norm = 0
      for (let i = 0; i < size; i++) {
        const v = view.getFloat32(offset + 4 * i)
        vector[i] = v
        norm += v * v
      }
      offset += 4 * size
      const d = this.at.get(owners[k]!)
      if (d === undefined || !(norm > 0) || !Number.isFinite(norm)) continue
      this.chunkIds.push(ids[k]!)
      this.chunkDoc.push(d)
      this.parts.push(vector)
      this.norms.push(norm)
    }
    return true
  }

  build(model: string): VectorSegment {
    const { docs, chunkIds, chunkDoc, parts, norms } = this
    // Grouped by document (then by chunk id, the order SQL breaks ties in), so ranking takes each document's chunks in one run.
    const order = chunkDoc.map((_, i) => i).sort((a, b) => chunkDoc[a]! - chunkDoc[b]! || (chunkIds[a]! < chunkIds[b]! ? -1 : 1))
    const width = Math.max(this.dim, 0)
    const vectors = new Float32Array(order.length * width)
    order.forEach((from, to) => vectors.set(parts[from]!, to * width))
    const docStart = new Int32Array(docs.length + 1)
    for (const from of order) docStart[chunkDoc[from]! + 1]!++
    for (let d = 0; d < docs.length; d++) docStart[d + 1]! += docStart[d]!
    return {
      model,
      dim: width,
      ids: docs.map((d) => d.id),
      active: Uint8Array.from(docs, (d) => (d.status === 'active' ? 1 : 0)),
      // As semantic.ts's BOOST: pinned +10 %, each rating point ±5 %.
      boost: Float64Array.from(docs, (d) => (d.pinned ? 1.1 : 1) * (1 + 0.05 * d.rating)),
      workspace: docs.map((d) => d.workspace_id),
      kind: docs.map((d) => d.kind),
      source: docs.map((d) => d.source),
      tags: docs.map((d) => d.tags),
      occurred: Float64Array.from(docs, (d) => d.occurred_at),
      chunkIds: order.map((i) => chunkIds[i]!),
      chunkDoc: Int32Array.from(order, (i) => chunkDoc[i]!),
      docStart,
      vectors,
      norms: Float64Array.from(order, (i) => norms[i]!),
      codes: encodeRows(vectors, order.length, width),
    }
  }
}

/** The document number of `id` in a segment (its ids are sorted), or -1. */
export function documentOf(segment: VectorSegment, id: string): number {
  let [lo, hi] = [0, segment.ids.length]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const at = segment.ids[mid]!
    if (at === id) return mid
    if (at < id) lo = mid + 1
    else hi = mid
  }
  return -1
}

/** One segment holding the live documents (dead[d] = 0) of `parts`, which hold distinct documents, with their chunks. */
export function joinSegments(model: string, dim: number, parts: { segment: VectorSegment; dead: Uint8Array }[]): VectorSegment {
  const live: { segment: VectorSegment; d: number }[] = []
  for (const { segment, dead } of parts) for (let d = 0; d < segment.ids.length; d++) if (!dead[d]) live.push({ segment, d })
  live.sort((a, b) => (a.segment.ids[a.d]! < b.segment.ids[b.d]! ? -1 : 1))
  const docStart = new Int32Array(live.length + 1)
  live.forEach(({ segment, d }, i) => (docStart[i + 1] = docStart[i]! + segment.docStart[d + 1]! - segment.docStart[d]!))
  const chunks = docStart[live.length]!
  const vectors = new Float32Array(chunks * dim)
  const norms = new Float64Array(chunks)
  const chunkIds: string[] = []
  const chunkDoc = new Int32Array(chunks)
  live.forEach(({ segment, d }, i) => {
    const [from, to] = [segment.docStart[d]!, segment.docStart[d + 1]!]
    vectors.set(segment.vectors.subarray(from * dim, to * dim), docStart[i]! * dim)
    norms.set(segment.norms.subarray(from, to), docStart[i]!)
    chunkDoc.fill(i, docStart[i]!, docStart[i + 1]!)
    for (let c = from; c < to; c++) chunkIds.push(segment.chunkIds[c]!)
  })
  const field = <T>(pick: (segment: VectorSegment, d: number) => T) => live.map(({ segment, d }) => pick(segment, d))
  return {
    model,
    dim,
    ids: field((s, d) => s.ids[d]!),
    active: Uint8Array.from(field((s, d) => s.active[d]!)),
    boost: Float64Array.from(field((s, d) => s.boost[d]!)),
    workspace: field((s, d) => s.workspace[d]!),
    kind: field((s, d) => s.kind[d]!),
    source: field((s, d) => s.source[d]!),
    tags: field((s, d) => s.tags[d]!),
    occurred: Float64Array.from(field((s, d) => s.occurred[d]!)),
    chunkIds,
    chunkDoc,
    docStart,
    vectors,
    norms,
    codes: encodeRows(vectors, chunks, dim),
  }
}
