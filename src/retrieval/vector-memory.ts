// In-process copies of users' chunk vectors (of the loaded model) and the few document fields semantic ranking
// reads, so exact cosine runs in memory (int8 codes scanned, the best candidates rescored from float32:
// vector-memory-rank.ts) instead of pgvector's scan through SQL rows (~300 ms per 100k vectors on PGlite). Like
// the keyword copy it is only an accelerator, and never a stale one: every write changing what ranking reads moves
// one of keyword_stats' versions and logs the documents it changed (keyword_changes for statuses, filters and
// boosts; embedding_changes for chunk vectors — triggers), and each search or link suggestion brings the user's
// copy to the current versions in one statement (vector-memory-delta.ts), the changed documents applied as a small
// delta segment (vector-memory-copy.ts) — so it ranks exactly as semantic.ts's SQL, also while an embedding backlog
// drains. Concurrent callers of a user share one catch-up. A copy the logs cannot bring up to date (pruned), or
// whose deltas grow past a share of its base, is reloaded in full in the background, in pages; the SQL ranking
// answers while there is no copy.
import type { Tx } from '../../db/client'
import type { Logger } from '../log'
import { SharedCatchUps } from './shared-catch-ups'
import { copyOf, withChanges, type VectorCopy } from './vector-memory-copy'
import { vectorChangesSince } from './vector-memory-delta'
import { loadUserVectors, versionsOf } from './vector-memory-load'

export interface VectorMemoryOptions {
  /** Search ranks users with fewer documents in SQL (fast enough there; not worth the memory). */
  minDocuments: number
  /** Bytes kept across all users (0 turns the copies off); the least recently used copies go first. */
  maxBytes: number
  /** Deltas holding more than this share of the base's documents start a full reload (0.1). */
  deltaShare?: number
  log: Logger
}

/** Documents one catch-up reads at most (or a quarter of the base, if more): past it a reload costs less. */
const CATCH_UP_DOCUMENTS = 1_000
/** A copy bigger than the whole budget is not tried again before this long. */
const TOO_LARGE_RETRY_MS = 10 * 60_000

export class VectorMemory {
  private readonly copies = new Map<string, VectorCopy>()
  /** The load running for each user, and of which model's vectors. */
  private readonly loading = new Map<string, { model: string; promise: Promise<VectorCopy | null> }>()
  private readonly shared = new SharedCatchUps<VectorCopy | null>()
  /** No new load for a user before this time: a failed or outdated load backs off. */
  private readonly notBefore = new Map<string, number>()
  /** Full loads finished and catch-ups applied (tests and benchmarks read them). */
  loads = 0
  catchUps = 0

  constructor(private readonly options: VectorMemoryOptions) {}

  get enabled(): boolean {
    return this.options.maxBytes > 0
  }

  /**
   * The user's copy of `model`'s vectors brought to the current versions (one statement, shared with concurrent
   * callers, run after this call began); null when there is none or the logs cannot bring it up to date, and a
   * load is started if worth it.
   */
  async current(db: Tx, userId: string, model: string): Promise<VectorCopy | null> {
    return this.enabled ? (await this.status(db, userId, model)).copy : null
  }

  /** current(), and whether the user has at least minDocuments documents (below, SQL answers for good, and fast). */
  async status(db: Tx, userId: string, model: string): Promise<{ copy: VectorCopy | null; large: boolean }> {
    if (this.enabled && this.copies.get(userId)?.model === model) {
      const copy = await this.catchUp(db, userId)
      if (copy) return { copy, large: true }
    }
    const versions = await versionsOf(db, userId)
    if (!versions) return { copy: null, large: false }
    const large = versions.documents >= this.options.minDocuments
    if (this.enabled && large && this.mayLoad(userId)) void this.load(db, userId, model)
    return { copy: null, large }
  }

  /**
   * For link suggestions: the user's copy brought up to date, loading it first (and waiting) when there is none —
   * whatever the user's size, since a job must not scan the corpus in SQL. Null when copies are off, or this user's
   * does not fit or failed.
   */
  async forLinks(db: Tx, userId: string, model: string): Promise<VectorCopy | null> {
    if (!this.enabled) return null
    if (this.copies.get(userId)?.model === model) {
      const copy = await this.catchUp(db, userId)
      if (copy) return copy
    }
    const running = this.loading.get(userId)
    const loaded = await (running?.model === model ? running.promise : this.mayLoad(userId) ? this.load(db, userId, model) : null)
    return loaded?.model === model ? loaded : null
  }

  /** Loads (or reloads) the user's copy; resolves when done (with the load under way, if one is). Tests and benchmarks await it. */
  load(db: Tx, userId: string, model: string): Promise<VectorCopy | null> {
    const running = this.loading.get(userId)
    if (running?.model === model) return running.promise
    // Another model's load first (a copy holds one model's vectors): this one replaces it when it is done.
    const after = running
      ? running.promise.then(
          () => undefined,
          () => undefined,
        )
      : Promise.resolve()
    const promise: Promise<VectorCopy | null> = after
      .then(() => this.loadNow(db, userId, model))
      .finally(() => {
        if (this.loading.get(userId)?.promise === promise) this.loading.delete(userId)
      })
    this.loading.set(userId, { model, promise })
    return promise
  }

  forget(userId: string): void {
    this.copies.delete(userId)
  }

  private catchUp(db: Tx, userId: string): Promise<VectorCopy | null> {
    return this.shared.run(userId, () => this.advance(db, userId))
  }

  /** One catch-up: what changed since the copy's versions, applied as a delta. Null (SQL ranks) if it fails. */
  private async advance(db: Tx, userId: string): Promise<VectorCopy | null> {
    const copy = this.copies.get(userId)
    if (!copy) return null
    try {
      const base = copy.parts[0]!.segment.ids.length
      const changes = await vectorChangesSince(db, userId, copy, copy.model, Math.max(CATCH_UP_DOCUMENTS, base >> 2))
      if (!changes) return null
      if ('incomplete' in changes) {
        if (this.mayLoad(userId)) void this.load(db, userId, copy.model)
        return null
      }
      if (changes.version === copy.version && changes.embeddingVersion === copy.embeddingVersion) {
        this.touch(userId, copy)
        return copy
      }
      const next = withChanges(copy, changes)
      if (!next) {
        this.forget(userId) // vectors of another dimension arrived: the SQL path answers (and raises, as before)
        return null
      }
      this.catchUps++
      const installed = this.copies.get(userId)
      // Unless a load installed a copy newer than this one meanwhile.
      if (installed === copy || (installed && installed.version <= next.version && installed.embeddingVersion <= next.embeddingVersion))
        this.install(userId, next)
      if (next.deltaDocuments > (this.options.deltaShare ?? 0.1) * Math.max(base, 100) && this.mayLoad(userId))
        void this.load(db, userId, copy.model)
      return next
    } catch (error) {
      this.options.log.warn('chunk vectors could not catch up in memory', { user_id: userId, error: String(error) })
      return null
    }
  }

  private async loadNow(db: Tx, userId: string, model: string): Promise<VectorCopy | null> {
    const started = performance.now()
    try {
      const loaded = await loadUserVectors(db, userId, model)
      // Writes landed while the pages were read: the documents they changed since the versions read first are
      // replaced from the logs, which also brings the copy to the current versions.
      const changes = loaded && (await vectorChangesSince(db, userId, loaded.versions, model, 2 ** 31 - 1))
      const took = performance.now() - started
      const failed = !changes || 'incomplete' in changes
      // Reloads are not run back to back: at most half the time goes to them (more when they fail).
      this.notBefore.set(userId, Date.now() + (failed ? Math.max(2_000, 2 * took) : took))
      if (!loaded || !changes || 'incomplete' in changes) return null
      const copy = withChanges(copyOf(loaded.segment, loaded.versions), changes)
      if (!copy) return null
      if (copy.bytes > this.options.maxBytes) {
        this.notBefore.set(userId, Date.now() + TOO_LARGE_RETRY_MS) // bigger than the whole budget: SQL it is, for a while
        this.forget(userId)
        return null
      }
      this.loads++
      this.install(userId, copy)
      this.options.log.debug('chunk vectors loaded in memory', {
        user_id: userId,
        chunks: copy.chunks,
        caught_up: changes.changed.length,
        ms: Math.round(took),
      })
      return copy
    } catch (error) {
      this.notBefore.set(userId, Date.now() + 60_000)
      this.options.log.warn('chunk vectors could not be loaded in memory', { user_id: userId, error: String(error) })
      return null
    }
  }

  private mayLoad(userId: string): boolean {
    return !this.loading.has(userId) && (this.notBefore.get(userId) ?? 0) <= Date.now()
  }

  /** Most recently used last. */
  private touch(userId: string, copy: VectorCopy): void {
    this.copies.delete(userId)
    this.copies.set(userId, copy)
  }

  private install(userId: string, copy: VectorCopy): void {
    this.touch(userId, copy)
    this.evict()
  }

  private evict(): void {
    let total = 0
    for (const copy of this.copies.values()) total += copy.bytes
    for (const [userId, copy] of this.copies) {
      if (total <= this.options.maxBytes) break
      this.forget(userId)
      total -= copy.bytes
    }
  }
}
