// extract-learnings: proposes learnings from a thread's new messages once EXTRACT_AFTER_MESSAGES of them wait
// (src/modules/threads/extraction.service.ts); a thread deleted meanwhile leaves nothing to do.
import { extractQueuedLearnings } from '../modules/threads/extraction.service'
import { JOB_ATTEMPTS, type JobDefinition, type PayloadOf } from '../queue/job-kinds'

export const extractLearningsJob: JobDefinition<PayloadOf<'extract-learnings'>> = {
  maxAttempts: JOB_ATTEMPTS['extract-learnings'],
  run: (deps, { thread_id }, job) => extractQueuedLearnings(deps, job.user_id!, thread_id),
}
