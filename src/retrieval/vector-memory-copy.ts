// A user's vector copy brought up to date by deltas: an immutable base segment (a full load) and small delta
// segments (one a catch-up: the documents changed since, as they are now), each document live in exactly one
// segment — a document changed later is marked dead where it was. Semantic ranking has no corpus statistics, so
// ranking the copy is ranking each segment (dead documents left out) and keeping the best `limit` of all: exactly
// the ranking of one segment holding every live document, which is the SQL's (semantic.ts).
import type { MemoryFilter } from './keyword-memory-words'
import type { SemanticHit } from './ranking'
import type { VectorChanges } from './vector-memory-delta'
import { bytesOf, rankDocuments, type RankedDocument, type VectorSegment } from './vector-memory-rank'
import { documentOf, joinSegments, SegmentBuilder } from './vector-memory-segment'

/** Delta segments kept apart at most; one more and they are joined into one. */
const MAX_DELTAS = 8

export interface VectorPart {
  segment: VectorSegment
  /** dead[d] = 1: document d changed after this segment was made (a later segment holds it, or it is gone). */
  dead: Uint8Array
}

export interface VectorCopy {
  /** keyword_stats.version and embedding_version the copy is exact at. */
  version: number
  embeddingVersion: number
  model: string
  /** The vectors' dimension (0 while the copy holds none). */
  dim: number
  /** The base first, then the deltas, oldest first. */
  parts: VectorPart[]
  /** Live documents held by the deltas: past a share of the base's, a full reload costs less than the deltas. */
  deltaDocuments: number
  /** Chunks held, live or not. */
  chunks: number
  bytes: number
}

export function copyOf(segment: VectorSegment, versions: { version: number; embeddingVersion: number }): VectorCopy {
  return withParts(versions, segment.model, [{ segment, dead: new Uint8Array(segment.ids.length) }])
}

function withParts(versions: { version: number; embeddingVersion: number }, model: string, parts: VectorPart[]): VectorCopy {
  let [deltaDocuments, chunks, bytes, dim] = [0, 0, 0, 0]
  parts.forEach(({ segment, dead }, i) => {
    if (i > 0) for (let d = 0; d < segment.ids.length; d++) deltaDocuments += dead[d] ? 0 : 1
    chunks += segment.chunkIds.length
    bytes += bytesOf(segment) + dead.byteLength
    if (segment.chunkIds.length) dim = segment.dim
  })
  return { version: versions.version, embeddingVersion: versions.embeddingVersion, model, dim, parts, deltaDocuments, chunks, bytes }
}

/**
 * The copy with `changes` applied: every changed document marked dead where it was, those that exist with vectors
 * in a new delta segment. A new copy: the one given is left as it was (a search may still be ranking it). Null
 * when the changes bring vectors of another dimension than the copy's (they cannot be ranked together).
 */
export function withChanges(copy: VectorCopy, changes: Extract<VectorChanges, { changed: string[] }>): VectorCopy | null {
  const parts = copy.parts.map((part) => {
    let dead = part.dead
    for (const id of changes.changed) {
      const d = documentOf(part.segment, id)
      if (d < 0 || dead[d]) continue
      if (dead === part.dead) dead = Uint8Array.from(part.dead)
      dead[d] = 1
    }
    return dead === part.dead ? part : { segment: part.segment, dead }
  })
  const withVectors = new Set(changes.chunkDocuments)
  const builder = new SegmentBuilder(changes.documents.filter((d) => withVectors.has(d.id)))
  if (!builder.addChunks(changes.chunkIds, changes.chunkDocuments, changes.vectors)) return null
  if (builder.dim !== -1 && copy.dim > 0 && builder.dim !== copy.dim) return null
  if (withVectors.size) {
    const segment = builder.build(copy.model)
    parts.push({ segment, dead: new Uint8Array(segment.ids.length) })
  }
  const versions = { version: changes.version, embeddingVersion: changes.embeddingVersion }
  if (parts.length <= 1 + MAX_DELTAS) return withParts(versions, copy.model, parts)
  const dim = Math.max(copy.dim, builder.dim)
  const deltas = joinSegments(copy.model, dim, parts.slice(1))
  return withParts(versions, copy.model, [parts[0]!, { segment: deltas, dead: new Uint8Array(deltas.ids.length) }])
}

export interface RankedChunk extends RankedDocument {
  segment: VectorSegment
}

/** rankDocuments over the whole copy: each segment's best (dead documents left out), the best `limit` of all. */
export function rankCopy(
  copy: VectorCopy,
  queries: Float32Array[],
  filter: MemoryFilter,
  limit: number,
  options: { boost: boolean; atLeast?: number },
): RankedChunk[] {
  const all = copy.parts.flatMap(({ segment, dead }) =>
    rankDocuments(segment, queries, filter, limit, { ...options, dead }).map((r) => ({ ...r, segment })),
  )
  // As within a segment: higher score first, then the lower document id.
  all.sort((a, b) => b.ranked - a.ranked || (a.segment.ids[a.d]! < b.segment.ids[b.d]! ? -1 : 1))
  return all.slice(0, limit)
}

/** Null when the query cannot be compared with the copy (another dimension): the SQL path answers, as before. */
export function searchVectorCopy(copy: VectorCopy, query: number[], filter: MemoryFilter, limit: number): SemanticHit[] | null {
  if (copy.dim > 0 && query.length !== copy.dim) return null
  return rankCopy(copy, [Float32Array.from(query)], filter, limit, { boost: true }).map(({ segment, d, chunk, similarity }) => ({
    document_id: segment.ids[d]!,
    chunk_id: segment.chunkIds[chunk]!,
    similarity,
    boost: segment.boost[d]!,
  }))
}
