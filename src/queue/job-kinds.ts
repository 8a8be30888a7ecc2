// The kinds of background job: each one's payload and attempts, the shape of a job's handler, and how to
// enqueue one. What a writer needs to queue work, without the handlers (jobs/catalog.ts), which sit above the rooms
// they call into (connectors, retrieval, embedding) — so queuing a job never imports the code that runs it.
import type { Tx } from '../../db/client'
import type { Deps } from '../deps'
import { enqueue, type JobRow } from './queue'

/** Every kind of job and its payload (jsonb in jobs.payload). */
export interface JobPayloads {
  'embed-document': { document_id: string }
  'reembed-sweep': { model: string; after: string | null }
  'reembed-document': { document_id: string; model: string }
  'suggest-links': { document_id: string }
  'sync-connector': { run_id: string }
  'extract-learnings': { thread_id: string }
  'extract-file': { document_id: string; sha256: string }
}

export type JobKind = keyof JobPayloads
export type PayloadOf<K extends JobKind> = JobPayloads[K]

/** How many times a job of each kind is tried before it is failed for good. */
export const JOB_ATTEMPTS: { [K in JobKind]: number } = {
  'embed-document': 5,
  'reembed-sweep': 5,
  'reembed-document': 3,
  'suggest-links': 3,
  'sync-connector': 3,
  // Each attempt is a chat model call (two with its retry of a malformed answer): a provider that keeps failing is not pressed.
  'extract-learnings': 2,
  // An unreadable file is not retried (it ends `failed` at once): only a worker that failed is.
  'extract-file': 2,
}

export interface JobDefinition<P> {
  /** JOB_ATTEMPTS of its kind: what enqueueJob gives each job (jobs.max_attempts), named here for the reader. */
  maxAttempts: number
  run(deps: Deps, payload: P, job: JobRow): Promise<void>
  /** Called once the last attempt failed. */
  onFailed?(deps: Deps, payload: P, error: string): Promise<void>
  /** Kinds sharing one batch are claimed together (up to its size) and run by it, not one by one by `run`. */
  batch?: JobBatch
}

/** Work that goes faster many jobs at a time (embedding: one forward pass over many documents' chunks). */
export interface JobBatch {
  size: number
  /**
   * Runs the claimed jobs together; answers each job's error message, or null when it succeeded, in order.
   * `keepAlive` renews the claims: called while the work goes on, so a long batch is not taken for a crash.
   */
  run(deps: Deps, jobs: JobRow[], keepAlive: () => Promise<void>): Promise<(string | null)[]>
}

/** Enqueues in the caller's transaction, so a job exists exactly when the write that needs it commits. */
/** Jobs of one kind queued in one statement (what a batch of jobs leads to). */
export async function enqueueJobs<K extends JobKind>(
  tx: Tx,
  deps: Deps,
  kind: K,
  items: { payload: PayloadOf<K>; userId: string | null }[],
): Promise<void> {
  const runAt = deps.clock.now()
  await enqueue(
    tx,
    items.map(({ payload, userId }) => ({
      id: deps.ids.next(),
      kind,
      payload: payload as Record<string, unknown>,
      userId,
      runAt,
      maxAttempts: JOB_ATTEMPTS[kind],
    })),
  )
}

export async function enqueueJob<K extends JobKind>(
  tx: Tx,
  deps: Deps,
  kind: K,
  payload: PayloadOf<K>,
  userId: string | null,
): Promise<void> {
  await enqueue(tx, {
    id: deps.ids.next(),
    kind,
    payload: payload as Record<string, unknown>,
    userId,
    runAt: deps.clock.now(),
    maxAttempts: JOB_ATTEMPTS[kind],
  })
}
