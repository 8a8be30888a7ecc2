// suggest-links: after a document is indexed, its nearest neighbours become pending link suggestions. The worker
// claims these jobs many at a time (suggestionBatch): a bulk ingest queues one a document, and a job's statements —
// claim, reads, catch-up, write, completion — are what searches wait behind on the embedded database.
import { suggestLinks, suggestLinksFor } from '../modules/documents/link-suggestions.service'
import { JOB_ATTEMPTS, type JobBatch, type JobDefinition, type PayloadOf } from '../queue/job-kinds'

/** Jobs claimed at once: the statements of one job shared by this many; the in-memory rankings few enough not to hold requests. */
export const SUGGEST_CLAIM = 16

export const suggestionBatch: JobBatch = {
  size: SUGGEST_CLAIM,
  async run(deps, jobs) {
    const outcomes = await suggestLinksFor(
      deps,
      jobs.map((job) => (job.payload as PayloadOf<'suggest-links'>).document_id),
    )
    return outcomes.map((outcome) => (outcome instanceof Error ? outcome.message : null))
  },
}

export const suggestLinksJob: JobDefinition<PayloadOf<'suggest-links'>> = {
  maxAttempts: JOB_ATTEMPTS['suggest-links'],
  batch: suggestionBatch,
  async run(deps, { document_id }) {
    await suggestLinks(deps, document_id)
  },
}
