// Users' indexes cached in process — the keyword index (keyword-cache.ts: postings, for BM25 with dynamic pruning)
// and the vector index (vector-cache.ts: chunk vectors, for exact cosine) — so ranking runs over typed arrays
// instead of SQL rows. A cached index is only an accelerator, and never a stale one: every write changing what
// ranking reads moves the user's version and logs the documents it changed (triggers), and each search brings the
// user's index to the current version in one statement — the changed documents applied as a delta segment
// (segment-set.ts) — before it ranks, exactly as the SQL does. This class is the one cache both kinds share; a
// source (IndexSource) says how its kind loads, reads changes and applies them. The rules, the same for both:
//
// - Budget: cached indexes share a budget in bytes (their typed arrays); the least recently used go first. A load
//   stops as soon as its running size passes the whole budget; such a user is ranked in SQL, is told so (the
//   search notice names the setting), and is not tried again for TOO_LARGE_RETRY_MS.
// - Worth caching: a search starts a load for a user with at least minDocuments documents (below, SQL is fast
//   enough); a search never waits for a load (SQL answers meanwhile). A job (link suggestions) waits for the load
//   when the user is worth caching: it must not scan a large corpus in SQL.
// - Load or join: one load a user at a time; a caller asking for the same key (the vector index's model) joins it,
//   another key's load starts when it ends. Loads back off: after one, no other for as long as it took (at least
//   2 s, twice as long, after a failure; a minute after an error).
// - Writes are followed: a bulk ingest's group, once committed, starts the user's catch-up in the background
//   (follow), so a search after a large write finds its index a group behind at most.
// - Catch-ups are shared (shared-catch-ups.ts): concurrent callers of a user cost at most two statements, each
//   seeing every write committed before it asked. A catch-up reads at most CATCH_UP_DOCUMENTS documents (or a
//   quarter of the base); more, or a log pruned past the index (change-logs.ts), and a full reload starts. The
//   catch-up that ends a load obeys the same bound: past it, the load was outrun by writes and is dropped.
// - A catch-up's result is installed unless a newer index (strictly higher version) was installed meanwhile.
// - Deltas past deltaShare of the base — documents (those the deltas hold or marked dead in the base) or weight
//   (postings, chunks), against at least 100 of each — start a compaction in the background: the index merged in
//   memory into one segment (source.compact), in slices of SLICE_MS with requests served between them, then caught
//   up as a load is. So a corpus growing by bulk ingests is never re-read from the database, which a reload at
//   every tenth of growth did (~10× the corpus over an ingest from nothing, each page a statement others waited
//   behind). A compaction is a load for every other rule here (one at a time, back-off, installed if newer).
// - A full load from the database happens for a user with no index, or one the log cannot bring up to date.
// - Changes a source cannot apply (vectors of another dimension) drop the user's index: SQL answers (and raises).
import type { Tx } from '../../db/client'
import type { Logger } from '../log'
import type { SegmentData, SegmentSet } from './segment-set'
import { inSlices } from './slices'
import { SharedCatchUps } from './shared-catch-ups'

/** A user's cached index: its segments, the version it is exact at, and its key (the model of a vector index). */
export interface CachedIndex extends SegmentSet<SegmentData> {
  key: string
  version: number
}

/** What changed since an index's version: the version now and the documents that changed (source's payload besides). */
export interface Changes {
  version: number
  changed: string[]
}

/** What a kind of index gives the cache. */
export interface IndexSource<I extends CachedIndex, C extends Changes> {
  /** What the index holds, for logs and the notice: "keyword index", "vector index". */
  name: string
  /** The search it serves, for the notice: "keyword search", "semantic search". */
  search: string
  /** The setting that sets the budget, named by the notice. */
  setting: string
  /** The user's version and documents now; null when the user has none. */
  stats(db: Tx, userId: string): Promise<{ version: number; documents: number } | null>
  /** A full load in pages, labelled with the version read first; stopped once past `maxBytes`; null when there is nothing. */
  load(db: Tx, userId: string, key: string, maxBytes: number): Promise<I | { tooLarge: number } | null>
  /** What changed since the index's version; incomplete when the log cannot say (pruned) or more than `maxDocuments` changed. */
  changesSince(db: Tx, userId: string, index: I, maxDocuments: number): Promise<C | { incomplete: true } | null>
  /** A new index with the changes applied as a delta segment; null when they cannot be (the index is dropped). */
  apply(index: I, changes: C): I | null
  /** The index as one segment of its live documents, at its version: a merge in memory, yielding now and then (run in slices). */
  compact(index: I): Generator<void, I>
}

export interface IndexCacheOptions {
  /** Users with fewer documents are ranked in SQL (fast enough there; not worth the memory). */
  minDocuments: number
  /** Bytes kept across all users' indexes; the least recently used go first. 0 = off. */
  maxBytes: number
  /** Deltas holding more than this share of the base start a compaction (0.1). */
  deltaShare?: number
  log: Logger
}

/** An index bigger than the whole budget is not tried again before this long. */
const TOO_LARGE_RETRY_MS = 10 * 60_000
/** Documents one catch-up reads at most (or a quarter of the base, if more): past it a reload costs less. */
const CATCH_UP_DOCUMENTS = 1_000
/** The base sizes the delta share is taken of at least: small indexes do not compact at every write. */
const MIN_BASE = 100

/** Documents one catch-up reads at most: CATCH_UP_DOCUMENTS, or a quarter of the index's base if more. */
const catchUpLimit = (index: CachedIndex) => Math.max(CATCH_UP_DOCUMENTS, index.documents >> 2)

export class IndexCache<I extends CachedIndex, C extends Changes = Changes> {
  private readonly indexes = new Map<string, I>()
  /** The load running for each user, and of which key. */
  private readonly loading = new Map<string, { key: string; promise: Promise<I | null> }>()
  private readonly shared = new SharedCatchUps<I | null>()
  /** No new load for a user before this time: a failed or outdated load backs off. */
  private readonly notBefore = new Map<string, number>()
  /** Users whose index alone passes the budget, with the bytes it had reached when the load stopped. */
  private readonly tooLarge = new Map<string, number>()
  /** Full loads and compactions finished, and catch-ups applied (tests and benchmarks read them). */
  loads = 0
  compactions = 0
  catchUps = 0

  constructor(
    private readonly source: IndexSource<I, C>,
    private readonly options: IndexCacheOptions,
  ) {}

  get enabled(): boolean {
    return this.options.maxBytes > 0
  }

  get maxBytes(): number {
    return this.options.maxBytes
  }

  /** Bytes the cached indexes hold now. */
  get bytes(): number {
    let total = 0
    for (const index of this.indexes.values()) total += index.bytes
    return total
  }

  /**
   * The one place that decides between the cache and SQL: the user's index brought up to date ranks (`inCache`;
   * null when it cannot, e.g. a query of another dimension), else `inSql` does, with the over-budget notice when
   * that is for want of memory. `wait`: a job's ranking, which waits for a load (see the header).
   */
  async rank<R>(
    db: Tx,
    userId: string,
    inCache: (index: I) => R | null,
    inSql: () => Promise<R>,
    options: { key?: string; wait?: boolean } = {},
  ): Promise<{ result: R; notice?: string }> {
    const key = options.key ?? ''
    const index = options.wait ? await this.ready(db, userId, key) : await this.current(db, userId, key)
    const cached = index ? inCache(index) : null
    if (cached !== null) return { result: cached }
    const notice = this.tooLargeNotice(userId)
    return { result: await inSql(), ...(notice ? { notice } : {}) }
  }

  /**
   * The user's index brought to the current version (one statement, shared with concurrent callers, run after this
   * call began: it sees every write committed before); null when there is none or the log cannot bring it up to
   * date, and a load is started if worth it.
   */
  async current(db: Tx, userId: string, key = ''): Promise<I | null> {
    return this.enabled ? (await this.status(db, userId, key)).index : null
  }

  /** current(), and whether the user has at least minDocuments documents (below, SQL answers for good, and fast). */
  async status(db: Tx, userId: string, key = ''): Promise<{ index: I | null; large: boolean }> {
    if (this.enabled && this.indexes.get(userId)?.key === key) {
      const index = await this.shared.run(userId, () => this.advance(db, userId))
      if (index) return { index, large: true }
    }
    const stats = await this.source.stats(db, userId)
    if (!stats) return { index: null, large: false }
    return { index: this.lookup(db, userId, stats.version, stats.documents, key), large: stats.documents >= this.options.minDocuments }
  }

  /** The user's index when it is at `version`; otherwise null, and a load is started if there is none and it is worth it. */
  lookup(db: Tx, userId: string, version: number, documents: number, key = ''): I | null {
    const index = this.indexes.get(userId)
    if (index?.key === key && index.version === version) {
      this.touch(userId, index)
      return index
    }
    if (this.enabled && index?.key !== key && documents >= this.options.minDocuments && this.mayLoad(userId))
      void this.load(db, userId, key)
    return null
  }

  /**
   * A write of the user's has just committed: their cached index catches up now, in the background (a catch-up
   * shared with searches), or a load starts if they have none and are now worth one. So after a bulk ingest the
   * index is a group of writes behind at most, and the search that follows catches up a few documents — instead of
   * finding thousands changed, past what one catch-up reads, and being ranked in SQL while the index reloads
   * (bench:search --after-ingest). Resolves when done (tests await it); never fails.
   */
  follow(db: Tx, userId: string, key = ''): Promise<void> {
    if (!this.enabled) return Promise.resolve()
    const work = this.indexes.has(userId) ? this.shared.run(userId, () => this.advance(db, userId)) : this.status(db, userId, key)
    return work.then(nothing, nothing)
  }

  /** For jobs: the user's index brought up to date, loading it first (and waiting) when the user is worth one. */
  async ready(db: Tx, userId: string, key = ''): Promise<I | null> {
    const { index, large } = await this.status(db, userId, key)
    if (index || !large || !this.enabled) return index
    const running = this.loading.get(userId)
    const loaded = await (running?.key === key ? running.promise : this.mayLoad(userId) ? this.load(db, userId, key) : null)
    return loaded?.key === key ? loaded : null
  }

  /**
   * Why the user's searches rank in SQL when it is for want of memory (their index alone passes the budget), as a
   * search notice; undefined otherwise (no index wanted, or one loading).
   */
  tooLargeNotice(userId: string): string | undefined {
    const bytes = this.tooLarge.get(userId)
    if (bytes === undefined) return undefined
    const { name, search, setting } = this.source
    return (
      `${search} ranked in the database, more slowly: your ${name} needs over ${megabytes(bytes)} in memory, ` +
      `more than this server's budget for it (${setting}, ${megabytes(this.options.maxBytes)})`
    )
  }

  /**
   * Loads (or reloads) the user's index — compacts `from`, an index of theirs, instead of reading the database when
   * given — or joins the load of that key running; resolves when done. Tests and benchmarks await it.
   */
  load(db: Tx, userId: string, key = '', from?: I): Promise<I | null> {
    if (!this.enabled) return Promise.resolve(null)
    const running = this.loading.get(userId)
    if (running?.key === key) return running.promise
    // Another key's load first (an index holds one model's vectors): this one replaces it when it is done.
    const after = running ? running.promise.then(nothing, nothing) : Promise.resolve()
    const promise: Promise<I | null> = after
      .then(() => this.loadNow(db, userId, key, from))
      .finally(() => {
        if (this.loading.get(userId)?.promise === promise) this.loading.delete(userId)
      })
    this.loading.set(userId, { key, promise })
    return promise
  }

  /** Whether a full load of the user's index is running. */
  isLoading(userId: string): boolean {
    return this.loading.has(userId)
  }

  forget(userId: string): void {
    this.indexes.delete(userId)
  }

  private mayLoad(userId: string): boolean {
    return !this.loading.has(userId) && (this.notBefore.get(userId) ?? 0) <= Date.now()
  }

  private startLoad(db: Tx, userId: string, key: string, from?: I): void {
    if (this.mayLoad(userId)) void this.load(db, userId, key, from)
  }

  /** One catch-up: what changed since the index's version, applied as a delta. Null (SQL ranks) if it fails. */
  private async advance(db: Tx, userId: string): Promise<I | null> {
    const index = this.indexes.get(userId)
    if (!index) return null
    try {
      const changes = await this.source.changesSince(db, userId, index, catchUpLimit(index))
      if (!changes) return null
      if ('incomplete' in changes) {
        this.startLoad(db, userId, index.key)
        return null
      }
      if (changes.version === index.version) {
        if (this.indexes.get(userId) === index) this.touch(userId, index)
        return index
      }
      const next = this.source.apply(index, changes)
      if (!next) {
        this.forget(userId)
        return null
      }
      this.catchUps++
      const installed = this.indexes.get(userId)
      if (installed === index || (installed && installed.key === next.key && installed.version < next.version)) this.install(userId, next)
      if (this.compactionDue(next)) this.startLoad(db, userId, next.key, next)
      return next
    } catch (error) {
      this.options.log.warn(`${this.source.name} could not catch up in memory`, { user_id: userId, error: String(error) })
      return null
    }
  }

  private compactionDue(index: I): boolean {
    const share = this.options.deltaShare ?? 0.1
    return (
      index.deltaDocuments > share * Math.max(index.documents, MIN_BASE) || index.deltaWeight > share * Math.max(index.baseWeight, MIN_BASE)
    )
  }

  private async loadNow(db: Tx, userId: string, key: string, from?: I): Promise<I | null> {
    const started = performance.now()
    const { name } = this.source
    try {
      const loaded = from ? await inSlices(this.source.compact(from)) : await this.source.load(db, userId, key, this.options.maxBytes)
      if (loaded && 'tooLarge' in loaded) return this.overBudget(userId, loaded.tooLarge)
      // Writes landed while the pages were read: the documents they changed since the version read first are
      // replaced from the log, which also brings the index to the current version — as much as one catch-up reads,
      // no more: a load outrun by a large ingest is dropped (and tried again after its back-off) rather than caught
      // up in one statement of tens of thousands of documents, which would hold the embedded database for seconds;
      // the index it was to replace, following the ingest (follow), keeps answering.
      const changes = loaded && (await this.source.changesSince(db, userId, loaded, catchUpLimit(loaded)))
      const took = performance.now() - started
      // Reloads are not run back to back: at most half the time goes to them (more when they fail).
      const failed = !changes || 'incomplete' in changes
      this.notBefore.set(userId, Date.now() + (failed ? Math.max(2_000, 2 * took) : took))
      if (!loaded || !changes || 'incomplete' in changes) {
        if (changes)
          this.options.log.debug(`${name} ${from ? 'compaction' : 'load'} dropped: writes outran it`, {
            user_id: userId,
            ms: Math.round(took),
          })
        return null
      }
      const index = this.source.apply(loaded, changes)
      if (!index) return null
      if (index.bytes > this.options.maxBytes) return this.overBudget(userId, index.bytes)
      this.tooLarge.delete(userId)
      if (from) this.compactions++
      else this.loads++
      this.install(userId, index)
      this.options.log.debug(from ? `${name} compacted in memory` : `${name} loaded in memory`, {
        user_id: userId,
        documents: index.documents,
        weight: index.weight,
        bytes: index.bytes,
        caught_up: changes.changed.length,
        ms: Math.round(took),
      })
      return index
    } catch (error) {
      this.notBefore.set(userId, Date.now() + 60_000)
      this.options.log.warn(`${name} could not be loaded in memory`, { user_id: userId, error: String(error) })
      return null
    }
  }

  /** Bigger than the whole budget: keep ranking this user in SQL, say so, and do not try again soon. */
  private overBudget(userId: string, bytes: number): null {
    this.tooLarge.set(userId, bytes)
    this.forget(userId)
    this.notBefore.set(userId, Date.now() + TOO_LARGE_RETRY_MS)
    this.options.log.warn(`${this.source.name} too large for its memory budget: ranked in SQL`, {
      user_id: userId,
      bytes,
      max_bytes: this.options.maxBytes,
    })
    return null
  }

  /** Most recently used last. */
  private touch(userId: string, index: I): void {
    this.indexes.delete(userId)
    this.indexes.set(userId, index)
  }

  private install(userId: string, index: I): void {
    this.touch(userId, index)
    let total = this.bytes
    for (const [user, held] of this.indexes) {
      if (total <= this.options.maxBytes) break
      this.forget(user)
      total -= held.bytes
    }
  }
}

const nothing = () => undefined

const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(bytes < 10 * 1024 ** 2 ? 1 : 0)} MB`
