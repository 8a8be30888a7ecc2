// An in-process copy of a user's chunk vectors (of the loaded model) and the few document fields semantic
// ranking reads, so exact cosine runs in memory (int8 codes scanned, the best candidates rescored from float32:
// vector-memory-rank.ts) instead of pgvector's scan through SQL rows (~300 ms per 100k vectors on PGlite). Like
// the keyword copy it is only an accelerator: search uses it while keyword_stats.version (documents: statuses,
// filters, boosts) and embedding_version (chunks: a trigger bumps it on every insert, delete or embedding write)
// both equal what the copy was loaded at — one read per search — and it ranks exactly as semantic.ts's SQL.
// Stale or missing, the SQL answers and a fresh copy loads in the background (vector-memory-load.ts, in pages).
// Link suggestions use a copy even when stale, with the vectors this process wrote since its load began laid over
// it (vector-memory-recent.ts) and the neighbours' documents checked in SQL (link-neighbours.ts).
import type { Tx } from '../../db/client'
import type { Logger } from '../log'
import { loadUserVectors, versionsOf } from './vector-memory-load'
import { bytesOf, type UserVectors } from './vector-memory-rank'
import { RecentVectors } from './vector-memory-recent'

export interface VectorMemoryOptions {
  /** Search ranks users with fewer documents in SQL (fast enough there; not worth the memory). */
  minDocuments: number
  /** Bytes kept across all users (0 turns the copies off); the least recently used copies go first. */
  maxBytes: number
  log: Logger
}

/** A copy is reloaded for link suggestions once the vectors noted over it outnumber its own (and this many). */
const RECENT_RELOAD_MIN = 2_000
/** A copy older than this, not current, is reloaded for link suggestions: it may miss other processes' writes. */
const FOREIGN_RELOAD_MS = 5 * 60_000

/** What link suggestions rank over: a copy (possibly stale) and what this process embedded since its load began. */
export interface LinkView {
  copy: UserVectors
  recent: RecentVectors
}

export class VectorMemory {
  private readonly copies = new Map<string, UserVectors>()
  /** When (performance.now()) the load of each copy held began. */
  private readonly loadedFrom = new Map<string, number>()
  private readonly recent = new Map<string, RecentVectors>()
  private readonly loading = new Map<string, Promise<UserVectors | null>>()
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
      this.touch(userId, copy)
      return { copy, large }
    }
    if (large && this.mayLoad(userId)) void this.load(db, userId, model)
    return { copy: null, large }
  }

  /**
   * For link suggestions: the user's copy, current or not, with the vectors noted since its load began — loading
   * it first (and waiting) when there is none. Null when copies are off, or this user's does not fit or failed.
   */
  async forLinks(db: Tx, userId: string, model: string): Promise<LinkView | null> {
    if (!this.enabled) return null
    let copy = this.copies.get(userId)
    if (copy?.model !== model) {
      const loaded = await (this.loading.get(userId) ?? (this.mayLoad(userId) ? this.load(db, userId, model) : null))
      copy = loaded?.model === model ? loaded : undefined
      if (!copy) return null
    } else {
      this.touch(userId, copy)
      const recent = this.recent.get(userId)?.chunks ?? 0
      const age = performance.now() - (this.loadedFrom.get(userId) ?? 0)
      const worth = recent > Math.max(RECENT_RELOAD_MIN, copy.chunkIds.length) || (age > FOREIGN_RELOAD_MS && copy.version === -1)
      if (worth && this.mayLoad(userId)) void this.load(db, userId, model)
    }
    const recent = this.recent.get(userId)
    return { copy, recent: recent?.model === model ? recent : new RecentVectors(model) }
  }

  /**
   * A document's vectors as this process just committed them (the embedding worker): laid over the user's copy for
   * link suggestions until a copy loaded later holds them. Kept only while there is a copy (or a load) to lay them on.
   */
  noteEmbedded(userId: string, model: string, documentId: string, workspaceId: string, vectors: (number[] | null)[]): void {
    if (!this.enabled || (this.copies.get(userId)?.model !== model && !this.loading.has(userId))) return
    let recent = this.recent.get(userId)
    if (recent?.model !== model) this.recent.set(userId, (recent = new RecentVectors(model)))
    recent.note(documentId, workspaceId, vectors)
  }

  /** Loads (or reloads) the user's copy; resolves when done (with the load under way, if one is). Tests and benchmarks await it. */
  load(db: Tx, userId: string, model: string): Promise<UserVectors | null> {
    const running = this.loading.get(userId)
    if (running) return running
    const loading = this.loadNow(db, userId, model).finally(() => this.loading.delete(userId))
    this.loading.set(userId, loading)
    return loading
  }

  private async loadNow(db: Tx, userId: string, model: string): Promise<UserVectors | null> {
    const started = performance.now()
    try {
      const loaded = await loadUserVectors(db, userId, model)
      const took = performance.now() - started
      // Under steady writes (an embedding backlog draining) a copy goes stale as it loads: back off in proportion.
      this.notBefore.set(userId, Date.now() + Math.max(2_000, 2 * took))
      if (!loaded) return null
      const { copy } = loaded
      if (bytesOf(copy) > this.options.maxBytes) {
        this.notBefore.set(userId, Date.now() + 10 * 60_000) // bigger than the whole budget: SQL it is, for a while
        this.forget(userId)
        return null
      }
      this.copies.delete(userId)
      this.copies.set(userId, copy)
      this.loadedFrom.set(userId, started)
      this.recent.get(userId)?.trim(started)
      this.evict()
      this.options.log.debug('chunk vectors loaded in memory', {
        user_id: userId,
        chunks: copy.chunkIds.length,
        exact: loaded.exact,
        ms: Math.round(took),
      })
      return copy
    } catch (error) {
      this.notBefore.set(userId, Date.now() + 60_000)
      this.options.log.warn('chunk vectors could not be loaded in memory', { user_id: userId, error: String(error) })
      return null
    }
  }

  forget(userId: string): void {
    this.copies.delete(userId)
    this.recent.delete(userId)
    this.loadedFrom.delete(userId)
  }

  private mayLoad(userId: string): boolean {
    return !this.loading.has(userId) && (this.notBefore.get(userId) ?? 0) <= Date.now()
  }

  /** Most recently used last. */
  private touch(userId: string, copy: UserVectors): void {
    this.copies.delete(userId)
    this.copies.set(userId, copy)
  }

  private evict(): void {
    let total = 0
    for (const copy of this.copies.values()) total += bytesOf(copy)
    for (const [userId, copy] of this.copies) {
      if (total <= this.options.maxBytes) break
      this.forget(userId)
      total -= bytesOf(copy)
    }
  }
}
