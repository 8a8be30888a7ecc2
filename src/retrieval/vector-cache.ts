// The vector index as a source of the index cache (index-cache.ts): a user's chunk vectors of one model (the
// cache's key) and their documents' fields, so exact cosine runs in memory (int8 codes scanned, the best candidates
// rescored from float32: vector-cache-rank.ts) instead of pgvector's scan through SQL rows (~300 ms per 100k
// vectors on PGlite). A load reads documents and chunks in small pages, each one short statement with the event
// loop handed back between them; a catch-up reads, in one statement (change-logs.ts), the version now, which
// documents changed (their fields or their chunks' vectors), and the fields and vectors of those that still exist —
// so the index ranks exactly as semantic.ts's SQL, also while an embedding backlog drains.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { changesSince, versionNow } from './change-logs'
import { idOf, boostAt } from './document-columns'
import { loadDocumentFields, type DocumentFields, type DocumentFilter } from './document-fields'
import type { IndexSource } from './index-cache'
import type { SemanticHit } from './ranking'
import { segmentOf, setOf, withSegment, type Segment, type SegmentSet } from './segment-set'
import { rankDocuments, type RankedDocument, type VectorSegment } from './vector-cache-rank'
import { mergeSegments, SegmentBuilder } from './vector-cache-segment'
import { nextTurn } from '../lib/next-turn'

export interface VectorIndex extends SegmentSet<VectorSegment> {
  /** The model whose vectors it holds. */
  key: string
  /** keyword_stats.version, which the index is exact at. */
  version: number
  /** The vectors' dimension (0 while the index holds none). */
  dim: number
  /** Chunks held, live or not. */
  chunks: number
}

export interface VectorChanges {
  version: number
  /** Every document that changed since, existing or gone. */
  changed: string[]
  /** Those that exist, as they are now. */
  documents: DocumentFields[]
  /** Their chunks with a vector of the model: ids and owners in chunk id order, vectors in pgvector's binary form. */
  chunkIds: string[]
  chunkDocuments: string[]
  vectors: Uint8Array
}

/** Chunks per query of a load (~190 KB of vectors at 384 dimensions): a few ms of PGlite each. */
const CHUNKS_PAGE = 500

export function indexOf(version: number, model: string, segments: Segment<VectorSegment>[]): VectorIndex {
  const set = setOf(segments)
  let dim = 0
  for (const { data } of segments) if (data.chunkIds.length) dim = data.dim
  return { ...set, key: model, version, dim, chunks: set.weight }
}

/**
 * The index with `changes` applied: every changed document marked dead where it was, those that exist with vectors
 * in a new delta segment. A new index: the one given is left as it was (a search may still be ranking it). Null
 * when the changes bring vectors of another dimension than the index's (they cannot be ranked together).
 */
export function withChanges(index: VectorIndex, changes: VectorChanges): VectorIndex | null {
  const withVectors = new Set(changes.chunkDocuments)
  const builder = new SegmentBuilder(changes.documents.filter((d) => withVectors.has(d.id)))
  if (!builder.addChunks(changes.chunkIds, changes.chunkDocuments, changes.vectors)) return null
  if (builder.dim !== -1 && index.dim > 0 && builder.dim !== index.dim) return null
  const added = withVectors.size ? builder.build(index.key) : null
  const dim = Math.max(index.dim, builder.dim)
  const segments = withSegment(index.segments, changes.changed, added, (older, newer) => mergeSegments(index.key, dim, [older, newer]))
  return indexOf(changes.version, index.key, segments)
}

export interface RankedChunk extends RankedDocument {
  segment: VectorSegment
}

/** rankDocuments over the whole index: each segment's best (dead documents left out), the best `limit` of all. */
export function rankVectorIndex(
  index: VectorIndex,
  queries: Float32Array[],
  filter: DocumentFilter,
  limit: number,
  options: { boost: boolean; atLeast?: number },
): (RankedChunk & { id: string })[] {
  const all = index.segments.flatMap(({ data: segment, dead }) =>
    rankDocuments(segment, queries, filter, limit, { ...options, dead }).map((r) => ({ ...r, segment, id: idOf(segment.columns, r.d) })),
  )
  // As within a segment: higher score first, then the lower document id.
  all.sort((a, b) => b.ranked - a.ranked || (a.id < b.id ? -1 : 1))
  return all.slice(0, limit)
}

/** Null when the query cannot be compared with the index (another dimension): the SQL path answers, as before. */
export function searchVectorIndex(index: VectorIndex, query: number[], filter: DocumentFilter, limit: number): SemanticHit[] | null {
  if (index.dim > 0 && query.length !== index.dim) return null
  return rankVectorIndex(index, [Float32Array.from(query)], filter, limit, { boost: true }).map(
    ({ segment, id, d, chunk, similarity }) => ({
      document_id: id,
      chunk_id: segment.chunkIds[chunk]!,
      similarity,
      boost: boostAt(segment.columns, d),
    }),
  )
}

/**
 * Reads the user's vectors of `model` in pages: a segment labelled with the version read first. The pages are not
 * one snapshot — writes may land while they are read — but every document written meanwhile is in the log of
 * changes after that version, so the catch-up that follows the load replaces each of them. Null when the user
 * has no statistics row (no documents) or holds vectors of two dimensions.
 */
async function loadVectorIndex(
  db: Tx,
  userId: string,
  model: string,
  maxBytes: number,
): Promise<VectorIndex | { tooLarge: number } | null> {
  const stats = await versionNow(db, userId)
  if (!stats) return null
  const builder = new SegmentBuilder(await loadDocumentFields(db, userId))
  for (let after: string | null = null; ; ) {
    await nextTurn()
    // A page as two strings and one bytea: a row per page instead of per chunk, and no text parsing of 384 numbers a chunk.
    const [page]: { ids: string | null; docs: string | null; vecs: Uint8Array | null; n: number }[] = await queryRows(
      db,
      sql`select string_agg(c.id::text, ' ' order by c.id) as ids, string_agg(c.document_id::text, ' ' order by c.id) as docs,
            string_agg(vector_send(c.embedding), ''::bytea order by c.id) as vecs, count(*)::int as n
          from (select id, document_id, embedding from chunks
                where user_id = ${userId} and embedding_model = ${model} and embedding is not null ${after !== null ? sql`and id > ${after}` : sql``}
                order by id limit ${CHUNKS_PAGE}) c`,
    )
    const n: number = Number(page?.n ?? 0)
    if (n === 0 || !page!.ids || !page!.docs || !page!.vecs) break
    const ids: string[] = page!.ids.split(' ')
    if (!builder.addChunks(ids, page!.docs.split(' '), page!.vecs)) return null
    if (builder.bytes > maxBytes) return { tooLarge: builder.bytes }
    if (n < CHUNKS_PAGE) break
    after = ids[n - 1]!
  }
  const segment = builder.build(model)
  if (segment.bytes > maxBytes) return { tooLarge: segment.bytes }
  return indexOf(stats.version, model, [segmentOf(segment)])
}

/** Changes since the index's version: its changed documents' fields and their chunks' vectors of its model. */
async function vectorChanges(db: Tx, userId: string, index: VectorIndex, maxDocuments: number) {
  const changes = await changesSince<DocumentFields>(db, userId, index.version, index.key, maxDocuments)
  if (!changes || 'incomplete' in changes) return changes
  const { version, changed, current, chunkIds, chunkDocuments, vectors } = changes
  return { version, changed, documents: current, chunkIds, chunkDocuments, vectors }
}

export const vectorSource: IndexSource<VectorIndex, VectorChanges> = {
  name: 'vector index',
  search: 'semantic search',
  setting: 'VECTOR_MEMORY_MAX_MB',
  stats: versionNow,
  load: loadVectorIndex,
  changesSince: vectorChanges,
  apply: withChanges,
  // Vectors are copied and their codes made again in one step (a vector index grows with embedding, which is slower).
  compact: function* (index) {
    yield
    return indexOf(index.version, index.key, [segmentOf(mergeSegments(index.key, index.dim, index.segments))])
  },
}
