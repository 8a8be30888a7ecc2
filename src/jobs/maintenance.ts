// The periodic tick of a server or worker process: embeddings kept current (embedding-upkeep.ts: a model
// switched in once available, background re-embedding started), connector syncs that are due
// (sync.schedule.ts), expired Idempotency-Key records and activity entries past their retention swept, and planner statistics and visibility for the embedded database. PGlite runs no autovacuum, so without an
// ANALYZE the planner guesses table sizes and can pick plans hundreds of times slower (a keyword query read
// every posting), and without a VACUUM no page is marked all-visible, so the postings index (which carries
// tf and dl) cannot be read index-only. On PostgreSQL autovacuum does both and the analyzer does nothing.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { queueDueSyncs } from '../connectors/sync.schedule'
import { sweepIdempotencyKeys } from '../http/idempotency.store'
import type { Deps } from '../deps'
import { pruneActivity } from '../modules/activity/activity.service'
import { pruneChangeLogs } from '../retrieval/change-logs'
import { createEmbeddingUpkeep } from './embedding-upkeep'

/** Re-ANALYZE once the indexed corpus has changed by this share (or by MIN_CHANGE documents) since the last one. */
const CHANGE_SHARE = 0.1
const MIN_CHANGE = 200
/** The keyword and embedding change logs are pruned at most this often. */
const PRUNE_EVERY_MS = 60_000

export function createAnalyzer(deps: Deps) {
  let analyzedAt: number | null = null
  /** Runs VACUUM ANALYZE when the corpus moved enough; answers whether it ran. Pages already all-visible are
   * skipped, so each run costs about what changed since the last. */
  return async function analyzeIfStale(): Promise<boolean> {
    if (deps.dbKind !== 'pglite') return false
    const [row] = await queryRows<{ n: number | null }>(deps.db, sql`select sum(documents)::int as n from keyword_stats`)
    const size = Number(row?.n ?? 0)
    if (analyzedAt !== null && Math.abs(size - analyzedAt) < Math.max(MIN_CHANGE, analyzedAt * CHANGE_SHARE)) return false
    await deps.db.execute(sql`vacuum (analyze)`)
    analyzedAt = size
    return true
  }
}

/** One tick's work; the first call is what a process does at boot. */
export function createMaintenance(deps: Deps) {
  const analyzeIfStale = createAnalyzer(deps)
  const keepEmbeddingsCurrent = createEmbeddingUpkeep(deps)
  let running = false
  let prunedAt = Number.NEGATIVE_INFINITY
  return async function tick(): Promise<void> {
    if (running) return
    running = true
    try {
      await keepEmbeddingsCurrent()
    } catch (error) {
      deps.log.warn('keeping embeddings current failed', { error: String(error) })
    }
    try {
      await sweepIdempotencyKeys(deps)
    } catch (error) {
      deps.log.warn('sweeping expired idempotency keys failed', { error: String(error) })
    }
    try {
      if (Date.now() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = Date.now()
        await pruneChangeLogs(deps.db)
        await pruneActivity(deps)
      }
    } catch (error) {
      deps.log.warn('pruning the keyword and embedding change logs failed', { error: String(error) })
    }
    try {
      await analyzeIfStale()
    } catch (error) {
      deps.log.warn('maintenance failed', { error: String(error) })
    }
    try {
      const queued = await queueDueSyncs(deps)
      if (queued) deps.log.info('connector syncs queued', { runs: queued })
    } catch (error) {
      deps.log.warn('scheduling connector syncs failed', { error: String(error) })
    } finally {
      running = false
    }
  }
}

export function startMaintenance(deps: Deps, intervalMs = 10_000): () => void {
  const tick = createMaintenance(deps)
  void tick()
  const timer = setInterval(tick, intervalMs)
  return () => clearInterval(timer)
}
