// When learnings are extracted without being asked: once EXTRACT_AFTER_MESSAGES new messages wait in a thread and a
// chat model is configured, one extract-learnings job is queued (never a second while one waits).
import { sql } from 'drizzle-orm'
import { queryRows } from '../../../db/client'
import type { Deps } from '../../deps'
import { enqueueJob } from '../../queue/job-kinds'

/** A chat model answers (CHAT_MODEL); the built-in extractive answerer only quotes documents, it cannot propose learnings. */
export const chatModelConfigured = (deps: Deps) => deps.chat.backedBy !== 'extractive'

/** Queues an extraction of the thread's new messages when enough of them wait; called after messages are written. */
export async function queueExtractionIfDue(deps: Deps, thread: { id: string; user_id: string }): Promise<boolean> {
  const every = deps.config.extractAfterMessages
  if (every === 0 || !chatModelConfigured(deps)) return false
  // extracted_through read here, not from the caller's row: an extraction may have moved it since.
  const [due] = await queryRows<{ waiting: number; queued: boolean }>(
    deps.db,
    sql`select (select count(*)::int from documents d
                 where d.thread_id = t.id and d.status = 'active' and d.position > t.extracted_through) as waiting,
               exists (select 1 from jobs j where j.user_id = t.user_id and j.kind = 'extract-learnings'
                 and j.status = 'queued' and j.payload->>'thread_id' = t.id::text) as queued
        from threads t where t.id = ${thread.id} and t.user_id = ${thread.user_id}`,
  )
  if (!due || due.queued || Number(due.waiting) < every) return false
  await enqueueJob(deps.db, deps, 'extract-learnings', { thread_id: thread.id }, thread.user_id)
  return true
}
