// In-process copies of users' keyword indexes — postings and the few document fields ranking reads, in typed
// arrays (keyword-memory-index.ts) — so BM25 runs with dynamic pruning over memory (keyword-memory-rank.ts)
// instead of over SQL rows (~7 µs a posting on PGlite). A copy is only an accelerator, and never a stale one:
// every write changing what ranking reads moves keyword_stats.version and logs the documents it changed
// (keyword_changes, a trigger), and each search brings the user's copy to the current version in one statement —
// the changed documents' fields and postings, applied as a small delta segment beside the immutable base
// (keyword-memory-copy.ts) — before it ranks, exactly as the SQL in keyword.ts does. Concurrent searches of a
// user share one catch-up. A copy the log cannot bring up to date (pruned), or whose deltas grow past a share of
// its base, is reloaded in full in the background, in pages, so other queries interleave with the load; the SQL
// ranking answers while there is no copy. Copies share a budget in bytes; a user whose copy alone would pass it
// is ranked in SQL, and search says so (tooLargeNotice).
import type { Tx } from '../../db/client'
import type { Logger } from '../log'
import { copyOf, segmentOf, withChanges, type KeywordCopy } from './keyword-memory-copy'
import { changesSince } from './keyword-memory-delta'
import { keywordStats, loadUserIndex } from './keyword-memory-load'
import { SharedCatchUps } from './shared-catch-ups'

export interface KeywordMemoryOptions {
  /** Users with fewer documents are ranked in SQL (fast enough there; not worth the memory). */
  minDocuments: number
  /** Bytes kept across all users' copies (their typed arrays); the least recently used copies go first. 0 = off. */
  maxBytes: number
  /** Deltas holding more than this share of the base's documents or postings start a full reload (0.1). */
  deltaShare?: number
  log: Logger
}

/** A copy bigger than the whole budget is not tried again before this long (unless the budget were raised). */
const TOO_LARGE_RETRY_MS = 10 * 60_000
/** Documents one catch-up reads at most (or a quarter of the base, if more): past it a reload costs less. */
const CATCH_UP_DOCUMENTS = 1_000

export class KeywordMemory {
  private readonly copies = new Map<string, KeywordCopy>()
  private readonly loading = new Map<string, Promise<KeywordCopy | null>>()
  private readonly shared = new SharedCatchUps<KeywordCopy | null>()
  /** No new load for a user before this time: a failed or outdated load backs off. */
  private readonly notBefore = new Map<string, number>()
  /** Users whose copy alone passes the budget, with the bytes it had reached when the load stopped. */
  private readonly tooLarge = new Map<string, number>()
  /** Full loads finished and catch-ups applied (tests and benchmarks read them). */
  loads = 0
  catchUps = 0

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

  /**
   * The user's copy brought to the current version (one statement, shared with concurrent searches of the user,
   * run after this call began: it sees every write committed before); null when there is none or the log cannot
   * bring it up to date, and a load is started if worth it.
   */
  async current(db: Tx, userId: string): Promise<KeywordCopy | null> {
    if (!this.enabled) return null
    if (this.copies.has(userId)) return this.catchUp(db, userId)
    const stats = await keywordStats(db, userId)
    return stats ? this.lookup(db, userId, stats.version, stats.documents) : null
  }

  /** The user's copy when it is at `version`; otherwise null, and a load is started if there is none and it is worth it. */
  lookup(db: Tx, userId: string, version: number, documents: number): KeywordCopy | null {
    const copy = this.copies.get(userId)
    if (copy && copy.version === version) {
      this.copies.delete(userId)
      this.copies.set(userId, copy) // most recently used last
      return copy
    }
    if (!copy && documents >= this.options.minDocuments) this.startLoad(db, userId)
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

  /** Loads (or reloads) the user's copy, or joins the load running; resolves when done. Tests and benchmarks await it. */
  load(db: Tx, userId: string): Promise<KeywordCopy | null> {
    if (!this.enabled) return Promise.resolve(null)
    const running = this.loading.get(userId)
    if (running) return running
    const load = this.loadNow(db, userId).finally(() => this.loading.delete(userId))
    this.loading.set(userId, load)
    return load
  }

  /** Whether a full load of the user's copy is running. */
  isLoading(userId: string): boolean {
    return this.loading.has(userId)
  }

  forget(userId: string): void {
    this.copies.delete(userId)
  }

  private startLoad(db: Tx, userId: string): void {
    if (!this.loading.has(userId) && (this.notBefore.get(userId) ?? 0) <= Date.now()) void this.load(db, userId)
  }

  private catchUp(db: Tx, userId: string): Promise<KeywordCopy | null> {
    return this.shared.run(userId, () => this.advance(db, userId))
  }

  /** One catch-up: what changed since the copy's version, applied as a delta. Null (SQL ranks) if it fails. */
  private async advance(db: Tx, userId: string): Promise<KeywordCopy | null> {
    const copy = this.copies.get(userId)
    if (!copy) return null
    try {
      const base = copy.segments[0]!.index
      const changes = await changesSince(db, userId, copy.version, Math.max(CATCH_UP_DOCUMENTS, base.count >> 2))
      if (!changes) return null
      if ('incomplete' in changes) {
        this.startLoad(db, userId)
        return null
      }
      if (changes.version === copy.version) return this.lookup(db, userId, copy.version, 0) ?? copy
      const next = withChanges(copy, changes.version, changes, changes.changed, changes.current)
      this.catchUps++
      const installed = this.copies.get(userId)
      if (installed === copy || (installed && installed.version < next.version)) this.install(userId, next)
      const share = this.options.deltaShare ?? 0.1
      if (next.deltaDocuments > share * base.count || next.deltaPostings > share * base.postings) this.startLoad(db, userId)
      return next
    } catch (error) {
      this.options.log.warn('keyword index could not catch up in memory', { user_id: userId, error: String(error) })
      return null
    }
  }

  private async loadNow(db: Tx, userId: string): Promise<KeywordCopy | null> {
    const started = performance.now()
    try {
      const loaded = await loadUserIndex(db, userId, this.options.maxBytes)
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
      if (!('index' in loaded)) return null
      // Writes landed while the pages were read: the documents they changed since the version read first are
      // replaced from the log, which also brings the copy to the current version.
      const base = copyOf(loaded.stats.version, loaded.stats, [segmentOf(loaded.index)])
      const changes = await changesSince(db, userId, base.version, 2 ** 31 - 1)
      const took = performance.now() - started
      // Reloads are not run back to back: at most half the time goes to them (more when they fail).
      const failed = !changes || 'incomplete' in changes
      this.notBefore.set(userId, Date.now() + (failed ? Math.max(2_000, 2 * took) : took))
      if (!changes || 'incomplete' in changes) return null
      const copy = withChanges(base, changes.version, changes, changes.changed, changes.current)
      this.tooLarge.delete(userId)
      this.loads++
      this.install(userId, copy)
      this.options.log.debug('keyword index loaded in memory', {
        user_id: userId,
        postings: loaded.index.postings,
        bytes: copy.bytes,
        caught_up: changes.changed.length,
        ms: Math.round(took),
      })
      return copy
    } catch (error) {
      this.notBefore.set(userId, Date.now() + 60_000)
      this.options.log.warn('keyword index could not be loaded in memory', { user_id: userId, error: String(error) })
      return null
    }
  }

  private install(userId: string, copy: KeywordCopy): void {
    this.copies.delete(userId)
    this.copies.set(userId, copy)
    this.evict()
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
