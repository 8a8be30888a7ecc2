// In-process copies of users' keyword indexes — postings and the few document fields ranking reads, in typed
// arrays (keyword-memory-index.ts) — so BM25 runs with dynamic pruning over memory (keyword-memory-rank.ts)
// instead of over SQL rows (~7 µs a posting on PGlite). A copy is only an accelerator: it is used while its
// version equals keyword_stats.version, which every write changing what ranking reads moves (a trigger; one
// read per search), and it ranks exactly as the SQL in keyword.ts does. When it is stale or missing, the SQL
// ranking answers and a fresh copy is loaded in the background, in pages, so other queries interleave with
// the load. Copies share a budget in bytes; a user whose copy alone would pass it is ranked in SQL, and search
// says so (tooLargeNotice).
import type { Tx } from '../../db/client'
import type { Logger } from '../log'
import type { UserIndex } from './keyword-memory-index'
import { keywordStats, loadUserIndex } from './keyword-memory-load'

export interface KeywordMemoryOptions {
  /** Users with fewer documents are ranked in SQL (fast enough there; not worth the memory). */
  minDocuments: number
  /** Bytes kept across all users' copies (their typed arrays); the least recently used copies go first. 0 = off. */
  maxBytes: number
  log: Logger
}

/** A copy bigger than the whole budget is not tried again before this long (unless the budget were raised). */
const TOO_LARGE_RETRY_MS = 10 * 60_000

export class KeywordMemory {
  private readonly copies = new Map<string, UserIndex>()
  private readonly loading = new Set<string>()
  /** No new load for a user before this time: a failed or outdated load backs off. */
  private readonly notBefore = new Map<string, number>()
  /** Users whose copy alone passes the budget, with the bytes it had reached when the load stopped. */
  private readonly tooLarge = new Map<string, number>()

  constructor(private readonly options: KeywordMemoryOptions) {}

  get enabled(): boolean {
    return this.options.maxBytes > 0
  }

  get maxBytes(): number {
    return this.options.maxBytes
  }

  /** Bytes the copies hold now. */
  get bytes(): number {
    let total = 0
    for (const copy of this.copies.values()) total += copy.bytes
    return total
  }

  /** The user's copy if it is current (one read of keyword_stats); otherwise null, and a load is started if worth it. */
  async current(db: Tx, userId: string): Promise<UserIndex | null> {
    if (!this.enabled) return null
    const stats = await keywordStats(db, userId)
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

  /**
   * Why the user's searches rank in SQL when it is for want of memory (their copy alone passes the budget), as a
   * search notice; undefined otherwise (no copy wanted, or one loading).
   */
  tooLargeNotice(userId: string): string | undefined {
    const bytes = this.tooLarge.get(userId)
    if (bytes === undefined) return undefined
    return (
      `keyword search ranked in the database, more slowly: your keyword index needs over ${megabytes(bytes)} in memory, ` +
      `more than this server's budget for it (KEYWORD_MEMORY_MAX_BYTES, ${megabytes(this.options.maxBytes)})`
    )
  }

  /** Loads (or reloads) the user's copy; resolves when done. Tests and benchmarks await it. */
  async load(db: Tx, userId: string): Promise<UserIndex | null> {
    if (this.loading.has(userId) || !this.enabled) return null
    this.loading.add(userId)
    const started = performance.now()
    try {
      const loaded = await loadUserIndex(db, userId, this.options.maxBytes)
      const took = performance.now() - started
      // Under steady writes a copy goes stale as it loads: back off in proportion to what a load costs.
      this.notBefore.set(userId, Date.now() + Math.max(2_000, 2 * took))
      if ('tooLarge' in loaded) {
        // Bigger than the whole budget: keep ranking this user in SQL, say so, and do not try again soon.
        this.tooLarge.set(userId, loaded.bytes)
        this.copies.delete(userId)
        this.notBefore.set(userId, Date.now() + TOO_LARGE_RETRY_MS)
        this.options.log.warn('keyword index too large for its memory budget: ranked in SQL', {
          user_id: userId,
          bytes: loaded.bytes,
          max_bytes: this.options.maxBytes,
        })
        return null
      }
      if (!('copy' in loaded)) return null
      const { copy } = loaded
      this.tooLarge.delete(userId)
      this.copies.delete(userId)
      this.copies.set(userId, copy)
      this.evict()
      this.options.log.debug('keyword index loaded in memory', {
        user_id: userId,
        postings: copy.postings,
        bytes: copy.bytes,
        ms: Math.round(took),
      })
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
    let total = this.bytes
    for (const [userId, copy] of this.copies) {
      if (total <= this.options.maxBytes) break
      this.copies.delete(userId)
      total -= copy.bytes
    }
  }
}

const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(bytes < 10 * 1024 ** 2 ? 1 : 0)} MB`
