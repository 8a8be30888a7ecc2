// Switching in an embedding model that was unavailable at boot: the maintenance tick retries loading it
// (an OpenAI-compatible endpoint that was down, local model files that were missing) with backoff, and once
// it answers, this process embeds and searches with it — no restart.
import type { Deps } from '../deps'
import { loadEmbedder } from './embeddings'

/** First retry 30 s after a failure, doubling up to 10 minutes. */
const FIRST_RETRY_MS = 30_000
const MAX_RETRY_MS = 10 * 60_000

export interface EmbedderReload {
  /** Retries when a retry is due; answers true when a model was switched in. */
  retryIfDue(): Promise<boolean>
  /** When the next attempt may run (null: nothing to retry). */
  nextAttemptAt(): Date | null
}

export function createEmbedderReload(deps: Deps, { firstRetryMs = FIRST_RETRY_MS, maxRetryMs = MAX_RETRY_MS } = {}): EmbedderReload {
  let delay = firstRetryMs
  let next: number | null = deps.clock.now().getTime() + delay
  const retryable = () => !deps.embedder && !deps.embeddingStatus.permanent
  return {
    nextAttemptAt: () => (retryable() && next !== null ? new Date(next) : null),
    async retryIfDue() {
      if (!retryable()) return false
      const now = deps.clock.now().getTime()
      if (next !== null && now < next) return false
      const { embedder, status } = await loadEmbedder(deps.config, deps.log)
      if (!embedder) {
        deps.embeddingStatus = status
        delay = Math.min(maxRetryMs, delay * 2)
        next = deps.clock.now().getTime() + delay
        return false
      }
      // Another path (a test, a second tick) may have switched one in meanwhile: keep the first.
      if (deps.embedder) {
        await embedder.inference?.close()
        return false
      }
      deps.embedder = embedder
      deps.embeddingStatus = status
      deps.log.info('embedding model available: switched in; documents not embedded by it are re-embedded in the background', {
        model: embedder.id,
      })
      return true
    },
  }
}
