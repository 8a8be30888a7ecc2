// Failures and crashes: a failing job is retried with exponential backoff (claimable again once the clock
// passes run_at) until max_attempts, then `failed` with its document; a job left `running` by a crashed
// worker is claimed again after STALE_AFTER_MS and completes once.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { jobs } from '../../db/schema'
import type { Embedder } from '../../src/embedding/embeddings'
import { backoffMs, claimNext, completeJob, enqueue, failJob } from '../../src/queue/queue'
import { drainJobs, runNextJob, STALE_AFTER_MS } from '../../src/jobs/worker'
import { createTestApp, type TestApp } from '../harness'
import {
  chunksOf,
  deferred,
  indexStatus,
  ingest,
  instrument,
  jobById,
  jobsFor,
  patch,
  realEmbed,
  registerKind,
  uniqueBody,
  until,
  withDoEmbed,
  EMBED,
} from './jobs.fixtures'

let t: TestApp
let original: Embedder
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
  original = t.deps.embedder!
})
afterAll(() => t.close())
// Each test starts with an empty queue: earlier tests leave suggest-links jobs behind.
afterEach(async () => {
  t.deps.embedder = original
  await t.deps.db.delete(jobs)
})

/** deps.embedder replaced by one whose doEmbed rejects `failures` times (Infinity: always), then embeds. */
function failingEmbedder(failures = Infinity, message = 'embedding service down') {
  let failed = 0
  const wrapped = withDoEmbed(original, async (values) => {
    if (failed < failures) {
      failed++
      throw new Error(message)
    }
    return realEmbed(original.model, values)
  })
  t.deps.embedder = wrapped.embedder
  return wrapped
}

const BASE_MS = (attempt: number) => Math.min(600_000, 1000 * 2 ** attempt)

describe('backoff', () => {
  test('backoffMs is exponential from ~2 s, ±25 % jitter, capped at 10 minutes', () => {
    for (let attempt = 1; attempt <= 14; attempt++) {
      for (let i = 0; i < 50; i++) {
        const ms = backoffMs(attempt)
        expect(ms).toBeGreaterThanOrEqual(BASE_MS(attempt) * 0.75)
        expect(ms).toBeLessThanOrEqual(BASE_MS(attempt) * 1.25)
      }
    }
    expect(BASE_MS(20)).toBe(600_000)
  })
})

describe('a failing job', () => {
  test('is retried with backoff until max_attempts (5), then failed with its document', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    const embedder = failingEmbedder()
    const [queued] = await jobsFor(t.deps, doc.id)
    const jobId = queued!.id

    for (let attempt = 1; attempt <= 4; attempt++) {
      const now = t.clock.now()
      expect(await runNextJob(t.deps, 'w')).toBe(true)
      const job = await jobById(t.deps, jobId)
      expect(job).toMatchObject({
        status: 'queued',
        attempts: attempt,
        locked_at: null,
        locked_by: null,
        last_error: 'embedding service down',
      })
      const delay = job.run_at.getTime() - now.getTime()
      expect(delay).toBeGreaterThanOrEqual(BASE_MS(attempt) * 0.75)
      expect(delay).toBeLessThanOrEqual(BASE_MS(attempt) * 1.25)
      expect(await indexStatus(t.deps, doc.id)).toBe('pending')

      // Not claimable before run_at, claimable once the clock passes it.
      expect(await runNextJob(t.deps, 'w')).toBe(false)
      t.clock.advance(delay - 1)
      expect(await drainJobs(t.deps)).toBe(0)
      expect((await jobById(t.deps, jobId)).attempts).toBe(attempt)
      t.clock.advance(1)
    }

    const lastRunAt = (await jobById(t.deps, jobId)).run_at
    expect(await runNextJob(t.deps, 'w')).toBe(true)
    expect(await jobById(t.deps, jobId)).toMatchObject({
      status: 'failed',
      attempts: 5,
      max_attempts: 5,
      last_error: 'embedding service down',
      locked_at: null,
      locked_by: null,
    })
    expect((await jobById(t.deps, jobId)).run_at).toEqual(lastRunAt)
    expect(await indexStatus(t.deps, doc.id)).toBe('failed')
    expect((await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })).body.index_status).toBe('failed')
    // One embedding call per attempt (the AI SDK does not retry a plain error), and never again.
    expect(embedder.calls).toBe(5)
    t.clock.advance(24 * 3600_000)
    expect(await drainJobs(t.deps)).toBe(0)
    expect(embedder.calls).toBe(5)
    for (const c of await chunksOf(t.deps, doc.id)) expect(c.embedding).toBeNull()
  })

  test('a transient failure is retried and then succeeds: attempts counted, last_error cleared, document indexed', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    failingEmbedder(2, 'rate limited')
    expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
    expect((await jobsFor(t.deps, doc.id))[0]).toMatchObject({ status: 'queued', attempts: 1, last_error: 'rate limited' })
    t.clock.advance(10_000)
    expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
    expect((await jobsFor(t.deps, doc.id))[0]).toMatchObject({ status: 'queued', attempts: 2, last_error: 'rate limited' })
    t.clock.advance(10_000)
    expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
    expect((await jobsFor(t.deps, doc.id))[0]).toMatchObject({ status: 'succeeded', attempts: 3, last_error: null })
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    for (const c of await chunksOf(t.deps, doc.id)) expect(c.embedding_model).toBe('hash-512')
  })

  test('a document whose job failed is indexed again after an edit', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    const [job] = await jobsFor(t.deps, doc.id)
    await t.deps.db.update(jobs).set({ max_attempts: 1 }).where(eq(jobs.id, job!.id))
    failingEmbedder()
    await drainJobs(t.deps, undefined, EMBED)
    expect(await indexStatus(t.deps, doc.id)).toBe('failed')

    t.deps.embedder = original
    t.clock.advance(1_000)
    expect((await patch(t, u, doc.id, { body: uniqueBody('fixed') })).index_status).toBe('pending')
    expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    expect((await jobsFor(t.deps, doc.id)).map((j) => j.status)).toEqual(['failed', 'succeeded'])
  })

  test('an unknown job kind fails like any error and is not retried past its max_attempts', async () => {
    const id = t.deps.ids.next()
    await enqueue(t.deps.db, { id, kind: 'no-such-kind', payload: {}, userId: null, runAt: t.clock.now(), maxAttempts: 2 })
    expect(await drainJobs(t.deps)).toBe(1)
    expect(await jobById(t.deps, id)).toMatchObject({ status: 'queued', attempts: 1, last_error: 'unknown job kind no-such-kind' })
    t.clock.advance(5_000)
    expect(await drainJobs(t.deps)).toBe(1)
    expect(await jobById(t.deps, id)).toMatchObject({ status: 'failed', attempts: 2 })
    t.clock.advance(600_000)
    expect(await drainJobs(t.deps)).toBe(0)
  })

  test('onFailed runs once, with the last error, when the last attempt fails', async () => {
    const calls: string[] = []
    const kind = `test-always-fails-${crypto.randomUUID().slice(0, 8)}`
    const unregister = registerKind(kind, {
      maxAttempts: 3,
      run: async (_deps, _payload, job) => {
        throw new Error(`boom ${job.attempts}`)
      },
      onFailed: async (_deps, _payload, error) => {
        calls.push(error)
      },
    })
    try {
      const id = t.deps.ids.next()
      await enqueue(t.deps.db, { id, kind, payload: {}, userId: null, runAt: t.clock.now(), maxAttempts: 3 })
      for (let i = 0; i < 3; i++) {
        expect(await drainJobs(t.deps)).toBe(1)
        t.clock.advance(60_000)
      }
      expect(await drainJobs(t.deps)).toBe(0)
      expect(await jobById(t.deps, id)).toMatchObject({ status: 'failed', attempts: 3, last_error: 'boom 3' })
      expect(calls).toEqual(['boom 3'])
    } finally {
      unregister()
    }
  })
})

describe('a job left running by a crashed worker', () => {
  async function crashedJob(minutesAgo: number, attempts = 1) {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    const [job] = await jobsFor(t.deps, doc.id)
    const lockedAt = new Date(t.clock.now().getTime() - minutesAgo * 60_000)
    await t.deps.db
      .update(jobs)
      .set({ status: 'running', attempts, locked_at: lockedAt, locked_by: 'crashed-worker', updated_at: lockedAt })
      .where(eq(jobs.id, job!.id))
    return { doc, jobId: job!.id }
  }

  test('is claimed again once its claim is older than STALE_AFTER_MS, and completes exactly once', async () => {
    expect(STALE_AFTER_MS).toBe(5 * 60_000)
    const { doc, jobId } = await crashedJob(STALE_AFTER_MS / 60_000 + 1)
    const counter = instrument('embed-document')
    try {
      expect(await drainJobs(t.deps, 'rescuer', EMBED)).toBe(1)
      expect(await drainJobs(t.deps, 'rescuer', EMBED)).toBe(0)
    } finally {
      counter.restore()
    }
    expect(counter.runs).toEqual([{ jobId, worker: 'rescuer', attempt: 2 }])
    expect(await jobById(t.deps, jobId)).toMatchObject({ status: 'succeeded', attempts: 2, locked_at: null, locked_by: null })
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    for (const c of await chunksOf(t.deps, doc.id)) expect(c.embedding_model).toBe('hash-512')
  })

  test('is left alone while its claim is younger than STALE_AFTER_MS', async () => {
    const { jobId } = await crashedJob(1)
    const counter = instrument('embed-document')
    try {
      expect(await drainJobs(t.deps, undefined, EMBED)).toBe(0)
      expect(await jobById(t.deps, jobId)).toMatchObject({ status: 'running', attempts: 1, locked_by: 'crashed-worker' })
      t.clock.advance(STALE_AFTER_MS - 60_000)
      expect(await drainJobs(t.deps, undefined, EMBED)).toBe(0)
      t.clock.advance(1)
      expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
    } finally {
      counter.restore()
    }
    expect(counter.runs).toHaveLength(1)
    expect(await jobById(t.deps, jobId)).toMatchObject({ status: 'succeeded', attempts: 2 })
  })

  test("the first worker's late completion or failure does not overwrite the rescuer's result", async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    const first = await claimNext(t.deps.db, 'slow', t.clock.now(), STALE_AFTER_MS)
    expect(first).toMatchObject({ payload: { document_id: doc.id }, status: 'running', attempts: 1, locked_by: 'slow' })
    expect(await claimNext(t.deps.db, 'other', t.clock.now(), STALE_AFTER_MS)).toBeNull()

    t.clock.advance(STALE_AFTER_MS + 1)
    expect(await drainJobs(t.deps, 'rescuer', EMBED)).toBe(1)
    expect(await jobById(t.deps, first!.id)).toMatchObject({ status: 'succeeded', attempts: 2 })

    // The slow worker wakes up: its writes are keyed on its attempt, so they change nothing.
    await failJob(t.deps.db, first!, 'late failure', t.clock.now())
    expect(await jobById(t.deps, first!.id)).toMatchObject({ status: 'succeeded', attempts: 2, last_error: null })
    await completeJob(t.deps.db, first!, t.clock.now())
    expect(await jobById(t.deps, first!.id)).toMatchObject({ status: 'succeeded', attempts: 2 })
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
  })

  // Defect (src/queue/queue.ts claimNext): the stale branch of the claim ignores max_attempts, so a job that
  // crashes its worker (out of memory on a huge document, say) is claimed again every STALE_AFTER_MS forever,
  // each time with attempts + 1, and never reaches `failed`.
  test('a job whose worker crashed on its last attempt is not run a sixth time', async () => {
    const { doc, jobId } = await crashedJob(STALE_AFTER_MS / 60_000 + 1, 5)
    const counter = instrument('embed-document')
    try {
      await drainJobs(t.deps, 'rescuer')
    } finally {
      counter.restore()
    }
    const job = await jobById(t.deps, jobId)
    expect({ runs: counter.runs.length, attempts: job.attempts, status: job.status }).toEqual({ runs: 0, attempts: 5, status: 'failed' })
    expect(await indexStatus(t.deps, doc.id)).toBe('failed')
  })

  // Defect (src/queue/queue.ts failJob + worker.ts runNextJob): failJob answers 'failed' from the worker's own
  // snapshot of attempts even when its guarded update matched no row (the job was reclaimed meanwhile), and
  // runNextJob then calls onFailed — so a slow worker's late failure marks a document `failed` although the
  // rescuing worker embedded it and its job `succeeded`.
  test("a slow worker's late failure on its last attempt never leaves a succeeded job's document failed", async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    const [queued] = await jobsFor(t.deps, doc.id)
    await t.deps.db.update(jobs).set({ attempts: 4 }).where(eq(jobs.id, queued!.id))
    const gate = deferred<number[][]>()
    let calls = 0
    t.deps.embedder = withDoEmbed(original, (values) => (++calls === 1 ? gate.promise : realEmbed(original.model, values))).embedder

    const slow = runNextJob(t.deps, 'slow') // attempt 5 of 5, hangs in the embedding call
    await until(() => calls === 1, 5_000, 'the slow worker to start embedding')
    t.clock.advance(STALE_AFTER_MS + 1)
    await drainJobs(t.deps, 'rescuer')
    gate.reject(new Error('slow worker timed out'))
    expect(await slow).toBe(true)

    const job = await jobById(t.deps, queued!.id)
    const status = await indexStatus(t.deps, doc.id)
    if (job.status === 'succeeded') expect({ job: job.status, document: status }).toEqual({ job: 'succeeded', document: 'indexed' })
    else expect({ job: job.status, document: status }).toEqual({ job: 'failed', document: 'failed' })
  })
})
