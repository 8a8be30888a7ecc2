// The job catalog: every kind of background job, its payload and retry policy, and how to enqueue one.
import type { Tx } from '../../db/client'
import type { Deps } from '../deps'
import { embedDocumentJob } from './embed-document.job'
import { enqueue, type JobRow } from './queue'
import { reembedDocumentJob, reembedSweepJob } from './reembed.job'
import { suggestLinksJob } from './suggest-links.job'
import { syncConnectorJob } from './sync-connector.job'

export interface JobDefinition<P> {
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

export const catalog = {
  'embed-document': embedDocumentJob,
  'reembed-sweep': reembedSweepJob,
  'reembed-document': reembedDocumentJob,
  'suggest-links': suggestLinksJob,
  'sync-connector': syncConnectorJob,
} satisfies Record<string, JobDefinition<unknown>>

export type JobKind = keyof typeof catalog
export type PayloadOf<K extends JobKind> = Parameters<(typeof catalog)[K]['run']>[1]

/** Enqueues in the caller's transaction, so a job exists exactly when the write that needs it commits. */
export async function enqueueJob<K extends JobKind>(tx: Tx, deps: Deps, kind: K, payload: PayloadOf<K>, userId: string | null): Promise<void> {
  await enqueue(tx, { id: deps.ids.next(), kind, payload: payload as Record<string, unknown>, userId, runAt: deps.clock.now(), maxAttempts: catalog[kind].maxAttempts })
}
