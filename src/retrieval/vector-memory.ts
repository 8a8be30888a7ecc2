// An in-process copy of a user's chunk vectors (of the loaded model) and the few document fields semantic
// ranking reads, so exact cosine runs in memory (int8 codes scanned, the best candidates rescored from float32:
// vector-memory-rank.ts) instead of pgvector's scan through SQL rows (~300 ms per 100k vectors on PGlite). Like
// the keyword copy it is only an accelerator: used while keyword_stats.version (documents: statuses, filters, boosts) and embedding_version (chunks: a trigger
// bumps it on every insert, delete or embedding write) both equal what the copy was loaded at — one read per
// search — and it ranks exactly as semantic.ts's SQL (vector-memory-rank.ts). Stale or missing, the SQL answers
// and a fresh copy loads in the background, in pages, so other queries interleave with the load.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { Logger } from '../log'
import { encodeRows } from './vector-codes'
import { bytesOf, type UserVectors } from './vector-memory-rank'

export interface VectorMemoryOptions {
  /** Users with fewer documents are ranked in SQL (fast enough there; not worth the memory). */
  minDocuments: number
  /** Bytes kept across all users (0 turns the copies off); the least recently used copies go first. */
  maxBytes: number
  log: Logger
}

/** Chunks per query of a load (~1.5 MB of vectors at 384 dimensions): small enough that other queries interleave. */
const CHUNKS_PAGE = 4_000

interface Versions {
  version: number
  embeddingVersion: number
  documents: number
}

export class VectorMemory {
  private readonly copies = new Map<string, UserVectors>()
  private readonly loading = new Set<string>()
  /** No new load for a user before this time: a failed or outdated load backs off. */
  private readonly notBefore = new Map<string, number>()

  constructor(private readonly options: VectorMemoryOptions) {}

  get enabled(): boolean {
    return this.options.maxBytes > 0
  }

  /** The user's copy of `model`'s vectors if it is current (one read of keyword_stats); otherwise null, and a load is started if worth it. */
  async current(db: Tx, userId: string, model: string): Promise<UserVectors | null> {
    return this.enabled ? (await this.status(db, userId, model)).copy : null
  }

  /** current(), and whether the user has at least minDocuments documents (below, SQL answers for good, and fast). */
  async status(db: Tx, userId: string, model: string): Promise<{ copy: UserVectors | null; large: boolean }> {
    const versions = await versionsOf(db, userId)
    if (!versions) return { copy: null, large: false }
    const large = versions.documents >= this.options.minDocuments
    if (!this.enabled) return { copy: null, large }
    const copy = this.copies.get(userId)
    if (copy && copy.model === model && copy.version === versions.version && copy.embeddingVersion === versions.embeddingVersion) {
      this.copies.delete(userId)
      this.copies.set(userId, copy) // most recently used last
      return { copy, large }
    }
    if (large && !this.loading.has(userId) && (this.notBefore.get(userId) ?? 0) <= Date.now()) void this.load(db, userId, model)
    return { copy: null, large }
  }

  /** Loads (or reloads) the user's copy; resolves when done. Tests and benchmarks await it. */
  async load(db: Tx, userId: string, model: string): Promise<UserVectors | null> {
    if (this.loading.has(userId)) return null
    this.loading.add(userId)
    const started = performance.now()
    try {
      const copy = await loadUserVectors(db, userId, model)
      const took = performance.now() - started
      // Under steady writes (an embedding backlog draining) a copy goes stale as it loads: back off in proportion.
      this.notBefore.set(userId, Date.now() + Math.max(2_000, 2 * took))
      if (!copy) return null
      if (bytesOf(copy) > this.options.maxBytes) {
        this.notBefore.set(userId, Date.now() + 10 * 60_000) // bigger than the whole budget: SQL it is, for a while
        return null
      }
      this.copies.delete(userId)
      this.copies.set(userId, copy)
      this.evict()
      this.options.log.debug('chunk vectors loaded in memory', { user_id: userId, chunks: copy.chunkIds.length, ms: Math.round(took) })
      return copy
    } catch (error) {
      this.notBefore.set(userId, Date.now() + 60_000)
      this.options.log.warn('chunk vectors could not be loaded in memory', { user_id: userId, error: String(error) })
      return null
    } finally {
      this.loading.delete(userId)
    }
  }

  forget(userId: string): void {
    this.copies.delete(userId)
  }

  private evict(): void {
    let total = 0
    for (const copy of this.copies.values()) total += bytesOf(copy)
    for (const [userId, copy] of this.copies) {
      if (total <= this.options.maxBytes) break
      this.copies.delete(userId)
      total -= bytesOf(copy)
    }
  }
}

async function versionsOf(db: Tx, userId: string): Promise<Versions | null> {
  const [row] = await queryRows<{ version: number; embedding_version: number; documents: number }>(
    db,
    sql`select version::float8 as version, embedding_version::float8 as embedding_version, documents from keyword_stats where user_id = ${userId}`,
  )
  return row ? { version: Number(row.version), embeddingVersion: Number(row.embedding_version), documents: Number(row.documents) } : null
}

/** Reads the user's vectors in pages; null when a write moved either version meanwhile (the copy would be mixed). */
async function loadUserVectors(db: Tx, userId: string, model: string): Promise<UserVectors | null> {
  const versions = await versionsOf(db, userId)
  if (!versions) return null
  const docs = await queryRows<{
    id: string
    status: string
    workspace_id: string
    kind: string
    source: string
    tags: string[]
    pinned: boolean
    rating: number
  }>(db, sql`select id, status, workspace_id, kind, source, tags, pinned, rating from documents where user_id = ${userId} order by id`)
  const at = new Map(docs.map((d, i) => [d.id, i]))
  const chunkIds: string[] = []
  const chunkDoc: number[] = []
  const parts: Float32Array[] = []
  const norms: number[] = []
  let dim = -1
  let after: string | null = null
  for (;;) {
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
      if (d === undefined) return null // a document written after the list was read
      if (dim === -1) dim = size
      const vector = new Float32Array(size)
      let norm = 0
      for (let i = 0; i < size; i++) {
        const v = view.getFloat32(offset + 4 * i)
        vector[i] = v
        norm += v * v
      }
      offset += 4 * size
      // A zero or NaN vector has a NaN cosine: SQL leaves it out, so it is never held. Another dimension cannot be
      // compared with the query at all (SQL raises): such a copy is not used.
      if (size !== dim) return null
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
  if (!now || now.version !== versions.version || now.embeddingVersion !== versions.embeddingVersion) return null

  // Grouped by document (then by chunk id, the order SQL breaks ties in), so ranking takes each document's chunks in one run.
  const order = chunkDoc.map((_, i) => i).sort((a, b) => chunkDoc[a]! - chunkDoc[b]! || (chunkIds[a]! < chunkIds[b]! ? -1 : 1))
  const width = Math.max(dim, 0)
  const vectors = new Float32Array(order.length * width)
  order.forEach((from, to) => vectors.set(parts[from]!, to * width))
  const docStart = new Int32Array(docs.length + 1)
  for (const from of order) docStart[chunkDoc[from]! + 1]!++
  for (let d = 0; d < docs.length; d++) docStart[d + 1]! += docStart[d]!
  return {
    version: versions.version,
    embeddingVersion: versions.embeddingVersion,
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
}
