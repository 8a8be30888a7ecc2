// The periodic tick of a server or worker process: embeddings kept current (embedding/embedding-upkeep.ts: a
// model switched in once available, background re-embedding started), connector syncs that are due
// (modules/connectors/sync.schedule.ts), expired Idempotency-Key records and activity entries past their retention
// swept, the keyword index's newest blocks compacted (retrieval/block-compaction.ts), and on the embedded database,
// which runs no autovacuum, what autovacuum would do (table-upkeep.ts).
import { inBackground } from '../../db/client'
import { queueDueSyncs } from '../modules/connectors/sync.schedule'
import { sweepIdempotencyKeys } from '../http/idempotency.store'
import type { Deps } from '../deps'
import { pruneActivity } from '../modules/activity/activity.service'
import { pruneChangeLogs } from '../retrieval/change-logs'
import { createEmbeddingUpkeep } from '../embedding/embedding-upkeep'
import { compactDueBlocks } from '../retrieval/block-compaction'
import { upkeepTables } from './table-upkeep'

/** The keyword and embedding change logs are pruned at most this often. */
const PRUNE_EVERY_MS = 60_000

/** One tick's work; the first call is what a process does at boot. */
export function createMaintenance(deps: Deps) {
  const keepEmbeddingsCurrent = createEmbeddingUpkeep(deps)
  let running = false
  let prunedAt = Number.NEGATIVE_INFINITY
  const dueSince = new Map<string, number>()
  const lastNumbers = new Map<string, number>()
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
      await compactDueBlocks(deps, lastNumbers)
    } catch (error) {
      deps.log.warn('compacting the keyword index failed', { error: String(error) })
    }
    try {
      await upkeepTables(deps, dueSince)
    } catch (error) {
      deps.log.warn('vacuuming or analyzing the embedded database failed', { error: String(error) })
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
  const maintain = createMaintenance(deps)
  // Requests first: its statements wait for theirs (inBackground).
  const tick = () => inBackground(maintain)
  void tick()
  const timer = setInterval(tick, intervalMs)
  return () => clearInterval(timer)
}
