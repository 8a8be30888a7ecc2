// Starting background re-embedding (the chain of jobs itself is jobs/reembed.job.ts): every document the loaded
// model has not embedded is marked `pending` and the first `reembed-sweep` job is queued. One chain per model at
// a time, across processes: chain starts and sweep batches take the same transaction-scoped advisory lock.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { Deps } from '../deps'
import { enqueueJob } from '../queue/job-kinds'
import { markStalePending } from './embedding-backlog'

/** Serialises chain starts and batches across processes (one transaction-scoped advisory lock). */
export async function lockSweeps(tx: Tx): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended('reembed-sweep', 0))`)
}

/**
 * Starts a chain for the loaded model unless one is under way: marks every stale document `pending` and
 * queues the first sweep. Answers how many documents were marked, or null when a chain was already running.
 */
export async function startReembedding(deps: Deps): Promise<number | null> {
  const embedder = deps.embedder
  if (!embedder) return null
  return deps.db.transaction(async (tx) => {
    await lockSweeps(tx)
    const running = await queryRows<{ id: string }>(
      tx,
      sql`select id from jobs where kind = 'reembed-sweep' and status in ('queued', 'running') and payload->>'model' = ${embedder.id} limit 1`,
    )
    if (running.length) return null
    const marked = await markStalePending(tx, embedder.id, deps.clock.now())
    await enqueueJob(tx, deps, 'reembed-sweep', { model: embedder.id, after: null }, null)
    if (marked) deps.log.info('background re-embedding started', { model: embedder.id, documents: marked })
    return marked
  })
}
