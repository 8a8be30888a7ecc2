// embed-document: embeds the chunks of a document with service-embed and marks it indexed. Chunks and the
// keyword index were written with the document; this adds what semantic search needs. The worker runs these
// jobs many at a time with re-embedding's (embeddingBatch, over embed-batch.ts): one document's failure is its
// job's alone. A chunk with nothing to embed (no letters or digits, for the hash embedder) is recorded as
// processed by the model with no vector: it is neither retried nor `failed`, and never enters a cosine (a
// zero vector's is NaN).
import { eq } from 'drizzle-orm'
import { documents } from '../../db/schema'
import type { Deps } from '../deps'
import { embedDocumentsTogether } from '../embedding/embed-batch'
import { JOB_ATTEMPTS, type JobBatch, type JobDefinition, type PayloadOf } from '../queue/job-kinds'
import type { JobRow } from '../queue/queue'

/** Documents claimed at once: enough for full, evenly padded forward passes; few enough to finish in seconds. */
export const EMBED_CLAIM = 64

/** embed-document and reembed-document jobs, claimed together and embedded in shared forward passes. */
export const embeddingBatch: JobBatch = {
  size: EMBED_CLAIM,
  async run(deps, jobs, keepAlive) {
    const targets = jobs.map((job) => documentToEmbed(deps, job))
    const ids = targets.filter((t): t is { id: string } => typeof t === 'object' && t !== null).map((t) => t.id)
    const outcomes = await embedDocumentsTogether(deps, ids, keepAlive)
    return targets.map((t) => (typeof t === 'string' ? t : t === null ? null : (outcomes.get(t.id) ?? null)))
  },
}

/** The document a job embeds; null when it has nothing to do here, a string when it cannot run here (why). */
function documentToEmbed(deps: Deps, job: JobRow): { id: string } | null | string {
  const payload = job.payload as { document_id: string; model?: string }
  if (job.kind === 'reembed-document') {
    // No model here (a process configured without one): retried later, or by a worker that has it.
    if (!deps.embedder) return `no embedding model is loaded in this process (${deps.embeddingStatus.reason})`
    // Superseded by another model: that model's chain re-embeds the document.
    if (deps.embedder.id !== payload.model) return null
  }
  return { id: payload.document_id }
}

export const embedDocumentJob: JobDefinition<PayloadOf<'embed-document'>> = {
  maxAttempts: JOB_ATTEMPTS['embed-document'],
  batch: embeddingBatch,
  run: (deps, _payload, job) => runAlone(deps, job),
  async onFailed(deps, { document_id }) {
    await markFailed(deps, document_id)
  },
}

export async function markFailed(deps: Deps, documentId: string): Promise<void> {
  await deps.db.update(documents).set({ index_status: 'failed' }).where(eq(documents.id, documentId))
}

/** One embedding job run as a batch of one; throws its failure. */
export async function runAlone(deps: Deps, job: JobRow): Promise<void> {
  const [error] = await embeddingBatch.run(deps, [job], async () => {})
  if (error) throw new Error(error)
}
