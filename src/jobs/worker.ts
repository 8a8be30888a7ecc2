// The worker loop: claims due jobs from the shared queue (any number of workers, in any number of processes)
// and runs them through the catalog — kinds that share a JobBatch (embedding) claimed and run many at a time;
// failures retry with backoff until the job's attempts are spent.
import { inBackground } from '../../db/client'
import type { Deps } from '../deps'
import { catalog } from './catalog'
import type { JobDefinition } from '../queue/job-kinds'
import { claimDue, claimNext, completeJob, completeJobs, failAbandoned, failJob, touchJob, type JobRow } from '../queue/queue'
import { nextTurn } from '../lib/next-turn'

/** A job still `running` this long after its claim is taken to belong to a crashed worker. */
export const STALE_AFTER_MS = 5 * 60_000

/** Claims and runs one due job — with the jobs that batch with it (catalog JobBatch); false when none was due. */
export async function runNextJob(deps: Deps, workerId: string, kinds?: readonly string[]): Promise<boolean> {
  return (await runNextJobs(deps, workerId, kinds)) > 0
}

/** runNextJob, answering how many jobs ran. */
async function runNextJobs(deps: Deps, workerId: string, kinds?: readonly string[]): Promise<number> {
  for (const abandoned of await failAbandoned(deps.db, deps.clock.now(), STALE_AFTER_MS)) {
    deps.log.warn('job failed', {
      job_id: abandoned.id,
      kind: abandoned.kind,
      attempt: abandoned.attempts,
      outcome: 'failed',
      error: abandoned.last_error,
    })
    await definitionOf(abandoned.kind)?.onFailed?.(deps, abandoned.payload, abandoned.last_error ?? '')
  }
  const job = await claimNext(deps.db, workerId, deps.clock.now(), STALE_AFTER_MS, kinds)
  if (!job) return 0
  const definition = definitionOf(job.kind)
  const batch = definition?.batch
  if (!batch) {
    let error: string | null = null
    try {
      if (!definition) throw new Error(`unknown job kind ${job.kind}`)
      await definition.run(deps, job.payload, job)
    } catch (e) {
      error = e instanceof Error ? e.message : String(e)
    }
    await settle(deps, job, error)
    return 1
  }
  const together = Object.entries(catalog as Record<string, JobDefinition<unknown>>)
    .filter(([kind, d]) => d.batch === batch && (!kinds || kinds.includes(kind)))
    .map(([kind]) => kind)
  const more = batch.size > 1 ? await claimDue(deps.db, workerId, deps.clock.now(), STALE_AFTER_MS, together, batch.size - 1) : []
  const claimed = [job, ...more]
  let errors: (string | null)[]
  try {
    errors = await batch.run(deps, claimed, keepAlive(deps, claimed))
  } catch (e) {
    errors = claimed.map(() => (e instanceof Error ? e.message : String(e)))
  }
  // The batch's successes in one statement; each failure on its own (retry or failed, then onFailed), with the
  // event loop handed back between them — on PGlite every statement settles as a microtask.
  await completeJobs(
    deps.db,
    claimed.filter((_, i) => (errors[i] ?? null) === null),
    deps.clock.now(),
  )
  for (const [i, j] of claimed.entries()) {
    if ((errors[i] ?? null) === null) continue
    await settle(deps, j, errors[i]!)
    await nextTurn()
  }
  return claimed.length
}

/** Completes the job, or fails it (retry or `failed`, then onFailed) with its error. */
async function settle(deps: Deps, job: JobRow, error: string | null): Promise<void> {
  if (error === null) return completeJob(deps.db, job, deps.clock.now())
  const outcome = await failJob(deps.db, job, error, deps.clock.now())
  deps.log.warn('job failed', { job_id: job.id, kind: job.kind, attempt: job.attempts, outcome, error })
  if (outcome === 'failed') await definitionOf(job.kind)?.onFailed?.(deps, job.payload, error)
}

/** Renews a batch's claims once a minute of work has passed, well within STALE_AFTER_MS. */
function keepAlive(deps: Deps, jobs: JobRow[]): () => Promise<void> {
  let last = Date.now()
  return async () => {
    if (Date.now() - last < 60_000) return
    last = Date.now()
    for (const job of jobs) await touchJob(deps.db, job, deps.clock.now())
  }
}

const definitionOf = (kind: string) => (catalog as Record<string, JobDefinition<unknown> | undefined>)[kind]

/** Runs due jobs until none is left (tests, scripts); answers how many ran. */
export async function drainJobs(deps: Deps, workerId = `drain-${process.pid}`, kinds?: readonly string[]): Promise<number> {
  let ran = 0
  for (let n: number; (n = await runNextJobs(deps, workerId, kinds)); ) ran += n
  return ran
}

export interface Worker {
  stop(): Promise<void>
}

/** Polls for work (of `kinds` only, when given) until stopped; busy, it goes straight to the next job. */
export function startWorker(deps: Deps, { pollMs = 500, kinds }: { pollMs?: number; kinds?: readonly string[] } = {}): Worker {
  const id = `worker-${process.pid}-${crypto.randomUUID().slice(0, 8)}`
  let stopping = false
  let wake: () => void = () => {}
  // An idle wait that stop() cuts short.
  const idle = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pollMs)
      wake = () => (clearTimeout(timer), resolve())
    })
  const loop = (async () => {
    while (!stopping) {
      let ran = false
      try {
        // Requests first: a job's statements wait for theirs (inBackground) — on the embedded database every
        // statement runs on the process's one thread, and a search after a bulk ingest (a job or two queued a
        // document) otherwise waited behind a job's statement before each of its own.
        ran = await inBackground(() => runNextJob(deps, id, kinds))
      } catch (error) {
        deps.log.error('worker loop error', { error: String(error) })
      }
      if (!ran && !stopping) await idle()
      // Between jobs, let timers and I/O run: on PGlite every query settles as a microtask, so a worker going
      // straight from job to job would never hand the event loop back — an in-process API would not answer
      // until a whole backlog was done.
      else await nextTurn()
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
