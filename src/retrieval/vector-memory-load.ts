// Reading a user's chunk vectors (of one model) into an in-memory copy: documents and chunks in small pages, each
// one short statement with the event loop handed back between them, so a load never holds the database (on PGlite,
// the API's own thread) for more than a few milliseconds at a time, however large the user.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { loadDocumentFields, yieldToRequests } from './document-fields'
import { encodeRows } from './vector-codes'
import type { UserVectors } from './vector-memory-rank'

/** Chunks per query of a load (~190 KB of vectors at 384 dimensions): a few ms of PGlite each. */
const CHUNKS_PAGE = 500

export interface Versions {
  version: number
  embeddingVersion: number
  documents: number
}

export async function versionsOf(db: Tx, userId: string): Promise<Versions | null> {
  const [row] = await queryRows<{ version: number; embedding_version: number; documents: number }>(
    db,
    sql`select version::float8 as version, embedding_version::float8 as embedding_version, documents from keyword_stats where user_id = ${userId}`,
  )
  return row ? { version: Number(row.version), embeddingVersion: Number(row.embedding_version), documents: Number(row.documents) } : null
}

/**
 * Reads the user's vectors in pages. `exact` when no write moved either version meanwhile: only then may search
 * rank from it (it equals the database at one moment). A copy written to while it loaded mixes moments — pages
 * read before and after a write —, which link suggestions can still use, with the writes noted since the load
 * began laid over it (vector-memory-recent.ts). Null when the user has no statistics row (no documents).
 */
export async function loadUserVectors(db: Tx, userId: string, model: string): Promise<{ copy: UserVectors; exact: boolean } | null> {
  const versions = await versionsOf(db, userId)
  if (!versions) return null
  const docs = await loadDocumentFields(db, userId)
  const at = new Map(docs.map((d, i) => [d.id, i]))
  const chunkIds: string[] = []
  const chunkDoc: number[] = []
  const parts: Float32Array[] = []
  const norms: number[] = []
  let dim = -1
  let mixed = false
  let after: string | null = null
  for (;;) {
    await yieldToRequests()
    // A page as three strings and one bytea (pgvector's binary form: int16 dim, int16 unused, big-endian float4s):
    // a row per page instead of per chunk, and no text parsing of 384 numbers a chunk.
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
    const owners = page!.docs.split(' ')
    const bytes = page!.vecs
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    let offset = 0
    for (let k = 0; k < n; k++) {
      const size = view.getInt16(offset)
      offset += 4
      const d = at.get(owners[k]!)
      if (dim === -1) dim = size
      // Another dimension cannot be compared with the query at all (SQL raises): such a copy is not used.
      if (size !== dim) return null
      const vector = new Float32Array(size)
      let norm = 0
      for (let i = 0; i < size; i++) {
        const v = view.getFloat32(offset + 4 * i)
        vector[i] = v
        norm += v * v
      }
      offset += 4 * size
      // A document written after its page of documents was read: left out (and the copy is not exact).
      if (d === undefined) {
        mixed = true
        continue
      }
      // A zero or NaN vector has a NaN cosine: SQL leaves it out, so it is never held.
      if (!(norm > 0) || !Number.isFinite(norm)) continue
      chunkIds.push(ids[k]!)
      chunkDoc.push(d)
      parts.push(vector)
      norms.push(norm)
    }
    if (n < CHUNKS_PAGE) break
    after = ids[n - 1]!
  }
  const now = await versionsOf(db, userId)
  const exact = !mixed && now?.version === versions.version && now?.embeddingVersion === versions.embeddingVersion

  // Grouped by document (then by chunk id, the order SQL breaks ties in), so ranking takes each document's chunks in one run.
  const order = chunkDoc.map((_, i) => i).sort((a, b) => chunkDoc[a]! - chunkDoc[b]! || (chunkIds[a]! < chunkIds[b]! ? -1 : 1))
  const width = Math.max(dim, 0)
  const vectors = new Float32Array(order.length * width)
  order.forEach((from, to) => vectors.set(parts[from]!, to * width))
  const docStart = new Int32Array(docs.length + 1)
  for (const from of order) docStart[chunkDoc[from]! + 1]!++
  for (let d = 0; d < docs.length; d++) docStart[d + 1]! += docStart[d]!
  const copy: UserVectors = {
    // An inexact copy carries versions no database holds, so search never takes it for current.
    version: exact ? versions.version : -1,
    embeddingVersion: exact ? versions.embeddingVersion : -1,
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
    chunkIds: order.map((i) => chunkIds[i]!),
    chunkDoc: Int32Array.from(order, (i) => chunkDoc[i]!),
    docStart,
    vectors,
    norms: Float64Array.from(order, (i) => norms[i]!),
    codes: encodeRows(vectors, order.length, width),
  }
  return { copy, exact }
}
