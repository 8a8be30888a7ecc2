// An in-process copy of a user's keyword index — postings and the few document fields ranking reads — so BM25
// runs over typed arrays (tens of nanoseconds a posting) instead of SQL rows (~7 µs a posting on PGlite).
// It is only an accelerator: a copy is used while its version equals keyword_stats.version, which every write
// changing what ranking reads moves (a trigger; one read per search), and it ranks exactly as the SQL in
// keyword.ts does (keyword-memory-rank.ts). When it is stale or missing, the SQL ranking answers and a fresh
// copy is loaded in the background, in pages, so other queries interleave with the load.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { Logger } from '../log'
import type { PostingList, UserIndex } from './keyword-memory-rank'

export interface KeywordMemoryOptions {
  /** Users with fewer documents are ranked in SQL (fast enough there; not worth the memory). */
  minDocuments: number
  /** Postings kept across all users; the least recently used copies go first. */
  maxPostings: number
  log: Logger
}

/** Terms per query of a load: small enough that other queries interleave with it. */
const TERMS_PAGE = 4_000

export class KeywordMemory {
  private readonly copies = new Map<string, UserIndex>()
  private readonly loading = new Set<string>()
  /** No new load for a user before this time: a failed or outdated load backs off. */
  private readonly notBefore = new Map<string, number>()

  constructor(private readonly options: KeywordMemoryOptions) {}

  get enabled(): boolean {
    return this.options.maxPostings > 0
  }

  /** The user's copy if it is current (one read of keyword_stats); otherwise null, and a load is started if worth it. */
  async current(db: Tx, userId: string): Promise<UserIndex | null> {
    if (!this.enabled) return null
    const stats = await statsOf(db, userId)
    return stats ? this.lookup(db, userId, stats.version, stats.documents) : null
  }

  /** The user's copy when it is current at `version`; otherwise null, and a load is started if worth it. */
  lookup(db: Tx, userId: string, version: number, documents: number): UserIndex | null {
    const copy = this.copies.get(userId)
    if (copy && copy.version === version) {
      this.copies.delete(userId)
      this.copies.set(userId, copy) // most recently used last
      return copy
    }
    if (documents >= this.options.minDocuments && !this.loading.has(userId) && (this.notBefore.get(userId) ?? 0) <= Date.now()) {
      void this.load(db, userId)
    }
    return null
  }

  /** Loads (or reloads) the user's copy; resolves when done. Tests and benchmarks await it. */
  async load(db: Tx, userId: string): Promise<UserIndex | null> {
    if (this.loading.has(userId)) return null
    this.loading.add(userId)
    const started = performance.now()
    try {
      const copy = await loadUserIndex(db, userId)
      const took = performance.now() - started
      // Under steady writes a copy goes stale as it loads: back off in proportion to what a load costs.
      this.notBefore.set(userId, Date.now() + Math.max(2_000, 2 * took))
      if (!copy) return null
      if (copy.postings > this.options.maxPostings) {
        // Bigger than the whole budget: keep ranking this user in SQL, and do not try again soon.
        this.notBefore.set(userId, Date.now() + 10 * 60_000)
        return null
      }
      this.copies.delete(userId)
      this.copies.set(userId, copy)
      this.evict()
      this.options.log.debug('keyword index loaded in memory', { user_id: userId, postings: copy.postings, ms: Math.round(took) })
      return copy
    } catch (error) {
      this.notBefore.set(userId, Date.now() + 60_000)
      this.options.log.warn('keyword index could not be loaded in memory', { user_id: userId, error: String(error) })
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
    for (const copy of this.copies.values()) total += copy.postings
    for (const [userId, copy] of this.copies) {
      if (total <= this.options.maxPostings) break
      this.copies.delete(userId)
      total -= copy.postings
    }
  }
}

async function statsOf(db: Tx, userId: string) {
  const [row] = await queryRows<{ version: number; documents: number; total_len: number }>(
    db,
    sql`select version::float8 as version, documents, total_len from keyword_stats where user_id = ${userId}`,
  )
  return row ? { version: Number(row.version), documents: Number(row.documents), totalLen: Number(row.total_len) } : null
}

/** Reads the user's index in pages; null when a write moved the version meanwhile (the copy would be mixed). */
async function loadUserIndex(db: Tx, userId: string): Promise<UserIndex | null> {
  const stats = await statsOf(db, userId)
  if (!stats) return null
  const docs = await queryRows<{ id: string; status: string; workspace_id: string; kind: string; source: string; tags: string[]; pinned: boolean; rating: number }>(
    db,
    sql`select id, status, workspace_id, kind, source, tags, pinned, rating from documents where user_id = ${userId} order by id`,
  )
  const at = new Map(docs.map((d, i) => [d.id, i]))
  const dl = new Float64Array(docs.length)
  const terms = new Map<string, PostingList>()
  let postings = 0
  let after: string | null = null
  for (;;) {
    // A term's postings come as one string: a row per term instead of per posting (row handling is most of a load).
    const rows: { term: string; list: string }[] = await queryRows(
      db,
      sql`select term, string_agg(document_id::text || ' ' || tf::text || ' ' || dl::text, ' ') as list from postings
          where user_id = ${userId} ${after !== null ? sql`and term > ${after}` : sql``}
          group by term order by term limit ${TERMS_PAGE}`,
    )
    for (const { term, list } of rows) {
      const parts = list.split(' ')
      const size = parts.length / 3
      const docsOf = new Int32Array(size)
      const tfOf = new Float32Array(size)
      for (let k = 0; k < size; k++) {
        const i = at.get(parts[3 * k]!)
        if (i === undefined) return null // a document written after the list was read
        docsOf[k] = i
        tfOf[k] = Number(parts[3 * k + 1])
        dl[i] = Number(parts[3 * k + 2])
      }
      terms.set(term, { docs: docsOf, tf: tfOf })
      postings += size
    }
    if (rows.length < TERMS_PAGE) break
    after = rows[rows.length - 1]!.term
  }
  const now = await statsOf(db, userId)
  if (!now || now.version !== stats.version) return null
  return {
    version: stats.version,
    n: Math.max(stats.documents, 1),
    avgdl: Math.max(stats.totalLen / Math.max(stats.documents, 1), 1),
    ids: docs.map((d) => d.id),
    dl,
    active: Uint8Array.from(docs, (d) => (d.status === 'active' ? 1 : 0)),
    pinned: Uint8Array.from(docs, (d) => (d.pinned ? 1 : 0)),
    rating: Int8Array.from(docs, (d) => d.rating),
    workspace: docs.map((d) => d.workspace_id),
    kind: docs.map((d) => d.kind),
    source: docs.map((d) => d.source),
    tags: docs.map((d) => d.tags),
    terms,
    // Code-unit order: for the strings of one prefix range this agrees with the C collation the SQL uses.
    sorted: [...terms.keys()].sort(),
    postings,
  }
}
