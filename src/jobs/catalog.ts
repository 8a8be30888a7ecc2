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
}

export const catalog = {
  'embed-document': embedDocumentJob,
  'reembed-sweep': reembedSweepJob,
  'reembed-document': reembedDocumentJob,
  'suggest-links': suggestLinksJob,
  'sync-connector': syncConnectorJob,
} satisfies Record<string, JobDefinition<any>>

export type JobKind = keyof typeof catalog
export type PayloadOf<K extends JobKind> = Parameters<(typeof catalog)[K]['run']>[1]

/** Enqueues in the caller's transaction, so a job exists exactly when the write that needs it commits. */
export async function enqueueJob<K extends JobKind>(tx: Tx, deps: Deps, kind: K, payload: PayloadOf<K>, userId: string | null): Promise<void> {
  await enqueue(tx, { id: deps.ids.next(), kind, payload: payload as Record<string, unknown>, userId, runAt: deps.clock.now(), maxAttempts: catalog[kind].maxAttempts })
}
