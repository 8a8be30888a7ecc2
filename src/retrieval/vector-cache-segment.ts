// Assembles a segment of a user's cached vector index (vector-cache-rank.ts) from documents' fields and pages of
// their chunks in pgvector's binary form (as a full load reads them and a catch-up brings them, vector-cache.ts),
// and merges two segments into one (deltas, as they pile up: segment-set.ts).
import { byId, columnsOf, fieldsOf } from './document-columns'
import type { DocumentFields } from './document-fields'
import type { Segment } from './segment-set'
import { encodeRows } from './vector-codes'
import { bytesOf, type VectorSegment } from './vector-cache-rank'

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

  /** What build() will hold, within a few bytes a document: checked against the budget as an index loads. */
  get bytes(): number {
    const dim = Math.max(this.dim, 0)
    // Per chunk: float32 vector, its int8 codes (padded) with scale and error norms, norm, owner, ~64 for the id.
    return this.chunkIds.length * (4 * dim + (dim + 16) + 24 + 8 + 4 + 64) + 48 * this.docs.length
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
    return finished({
      model,
      dim: width,
      columns: columnsOf(docs),
      chunkIds: order.map((i) => chunkIds[i]!),
      chunkDoc: Int32Array.from(order, (i) => chunkDoc[i]!),
      docStart,
      vectors,
      norms: Float64Array.from(order, (i) => norms[i]!),
      codes: encodeRows(vectors, order.length, width),
    })
  }
}

const finished = (segment: Omit<VectorSegment, 'bytes' | 'weight'>): VectorSegment => ({
  ...segment,
  bytes: bytesOf(segment),
  weight: segment.chunkIds.length,
})

/** One segment holding the live documents of `parts`, which hold distinct documents, with their chunks. */
export function mergeSegments(model: string, dim: number, parts: Segment<VectorSegment>[]): VectorSegment {
  const live: { segment: VectorSegment; d: number; fields: DocumentFields }[] = []
  for (const { data: segment, dead } of parts)
    for (let d = 0; d < segment.columns.count; d++) if (!dead?.[d]) live.push({ segment, d, fields: fieldsOf(segment.columns, d) })
  live.sort((a, b) => byId(a.fields, b.fields))
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
  return finished({
    model,
    dim,
    columns: columnsOf(live.map((l) => l.fields)),
    chunkIds,
    chunkDoc,
    docStart,
    vectors,
    norms,
    codes: encodeRows(vectors, chunks, dim),
  })
}
