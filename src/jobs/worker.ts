// The worker loop: claims due jobs from the shared queue (any number of workers, in any number of processes)
// and runs them through the catalog; failures retry with backoff until the job's attempts are spent.
import type { Deps } from '../deps'
import { catalog, type JobDefinition } from './catalog'
import { claimNext, completeJob, failAbandoned, failJob } from './queue'

/** A job still `running` this long after its claim is taken to belong to a crashed worker. */
export const STALE_AFTER_MS = 5 * 60_000

/** Claims and runs one due job; answers false when none was due. */
export async function runNextJob(deps: Deps, workerId: string, kinds?: readonly string[]): Promise<boolean> {
  for (const abandoned of await failAbandoned(deps.db, deps.clock.now(), STALE_AFTER_MS)) {
    deps.log.warn('job failed', { job_id: abandoned.id, kind: abandoned.kind, attempt: abandoned.attempts, outcome: 'failed', error: abandoned.last_error })
    await definitionOf(abandoned.kind)?.onFailed?.(deps, abandoned.payload, abandoned.last_error ?? '')
  }
  const job = await claimNext(deps.db, workerId, deps.clock.now(), STALE_AFTER_MS, kinds)
  if (!job) return false
  const definition = definitionOf(job.kind)
  try {
    if (!definition) throw new Error(`unknown job kind ${job.kind}`)
    await definition.run(deps, job.payload, job)
    await completeJob(deps.db, job, deps.clock.now())
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const outcome = await failJob(deps.db, job, message, deps.clock.now())
    deps.log.warn('job failed', { job_id: job.id, kind: job.kind, attempt: job.attempts, outcome, error: message })
    if (outcome === 'failed') await definition?.onFailed?.(deps, job.payload, message)
  }
  return true
}

const definitionOf = (kind: string) => (catalog as Record<string, JobDefinition<unknown> | undefined>)[kind]

/** Runs due jobs until none is left (tests, scripts); answers how many ran. */
export async function drainJobs(deps: Deps, workerId = `drain-${process.pid}`, kinds?: readonly string[]): Promise<number> {
  let ran = 0
  while (await runNextJob(deps, workerId, kinds)) ran++
  return ran
}

export interface Worker {
  stop(): Promise<void>
}

/** Polls for work until stopped; busy, it goes straight to the next job. */
export function startWorker(deps: Deps, { pollMs = 500 }: { pollMs?: number } = {}): Worker {
  const id = `worker-${process.pid}-${crypto.randomUUID().slice(0, 8)}`
  let stopping = false
  let wake: () => void = () => {}
  // An idle wait that stop() cuts short.
  const idle = () => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, pollMs)
    wake = () => (clearTimeout(timer), resolve())
  })
  const loop = (async () => {
    while (!stopping) {
      let ran = false
      try {
        ran = await runNextJob(deps, id)
      } catch (error) {
        deps.log.error('worker loop error', { error: String(error) })
      }
      if (!ran && !stopping) await idle()
      // Between jobs, let timers and I/O run: on PGlite every query settles as a microtask, so a worker going
      // straight from job to job would never hand the event loop back — an in-process API would not answer
      // until a whole backlog was done.
      else await new Promise<void>((resolve) => setImmediate(resolve))
    }
  })()
  deps.log.info('worker started', { worker: id })
  return {
    async stop() {
      stopping = true
      wake()
      await loop
    },
  }
}
