// Keeping embeddings current, one step of the maintenance tick: switch in a model that was unavailable
// (retried with backoff), and start background re-embedding whenever this process has a model it has not
// started it for — at boot, after a switch-in or a change of model — and again every RETRY_FAILED_MS, so
// documents that failed, or went stale through another process, are picked up without a restart.
import { createEmbedderReload } from './embedder-reload'
import type { Deps } from '../deps'
import { RETRY_FAILED_MS } from './embedding-backlog'
import { startReembedding } from './reembedding'

export function createEmbeddingUpkeep(deps: Deps, options: { firstRetryMs?: number; maxRetryMs?: number } = {}) {
  const reload = createEmbedderReload(deps, options)
  let started: { model: string; at: number } | null = null
  /** Answers how many documents were marked for re-embedding (null: nothing was started). */
  return async function keepEmbeddingsCurrent(): Promise<number | null> {
    await reload.retryIfDue()
    const model = deps.embedder?.id
    if (!model) return null
    const now = deps.clock.now().getTime()
    if (started?.model === model && now - started.at < RETRY_FAILED_MS) return null
    const marked = await startReembedding(deps)
    started = { model, at: now }
    return marked
  }
}
