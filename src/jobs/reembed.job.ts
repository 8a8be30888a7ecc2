// Background re-embedding: once a model is loaded (at boot, switched in later, or changed), every document
// it has not embedded is re-embedded through the job queue, with no command to run (embedding/reembedding.ts
// starts a chain). A chain of `reembed-sweep` jobs walks the documents in id order and queues one
// `reembed-document` job per stale document, SWEEP_BATCH at a time; the next sweep is queued behind its batch,
// so jobs queued meanwhile for people (a new document's embedding, a connector sync) wait for one batch at
// most, never for the backlog. The queue persists, so a restart resumes where the chain was; one chain per
// model at a time (a transaction lock and a check), and documents some job already holds are skipped, so any
// number of processes can start chains without doing work twice.
import { sql } from 'drizzle-orm'
import { nextStaleBatch } from '../embedding/embedding-backlog'
import { lockSweeps } from '../embedding/reembedding'
import { embeddingBatch, markFailed, runAlone } from './embed-document.job'
import { enqueueJob, JOB_ATTEMPTS, type JobDefinition, type PayloadOf } from '../queue/job-kinds'

export const SWEEP_BATCH = 32

export const reembedSweepJob: JobDefinition<PayloadOf<'reembed-sweep'>> = {
  maxAttempts: JOB_ATTEMPTS['reembed-sweep'],
  async run(deps, { model, after }) {
    // A chain for a model this process does not have: another model is loaded now (its own chain covers
    // the documents), or none is — then there is nothing to embed with, and a model loaded later starts anew.
    if (deps.embedder?.id !== model) return
    await deps.db.transaction(async (tx) => {
      await lockSweeps(tx)
      const batch = await nextStaleBatch(tx, model, after, SWEEP_BATCH, deps.clock.now())
      for (const doc of batch) {
        await tx.execute(sql`update documents set index_status = 'pending' where id = ${doc.id} and index_status <> 'pending'`)
        await enqueueJob(tx, deps, 'reembed-document', { document_id: doc.id, model }, doc.user_id)
      }
      const last = batch.at(-1)
      if (batch.length === SWEEP_BATCH && last) await enqueueJob(tx, deps, 'reembed-sweep', { model, after: last.id }, null)
      else if (after || batch.length) deps.log.info('background re-embedding: last batch queued', { model, documents: batch.length })
    })
  },
}

export const reembedDocumentJob: JobDefinition<PayloadOf<'reembed-document'>> = {
  maxAttempts: JOB_ATTEMPTS['reembed-document'],
  batch: embeddingBatch,
  // Alone or in the worker's batch, by the same rules (embed-document.job.ts documentToEmbed).
  run: (deps, _payload, job) => runAlone(deps, job),
  async onFailed(deps, { document_id }) {
    await markFailed(deps, document_id)
  },
}
