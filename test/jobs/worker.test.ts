// startWorker: polls and runs due jobs until stopped; stop() ends the loop promptly, after the job in hand.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { Embedder } from '../../src/embedding/embeddings'
import { enqueue } from '../../src/queue/queue'
import { drainJobs, startWorker } from '../../src/jobs/worker'
import { createTestApp, type TestApp } from '../harness'
import { deferred, indexStatus, ingest, jobById, jobsFor, realEmbed, registerKind, until, withDoEmbed } from './jobs.fixtures'

let t: TestApp
let original: Embedder
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
  original = t.deps.embedder!
})
afterAll(() => t.close())
afterEach(async () => {
  t.deps.embedder = original
  await drainJobs(t.deps)
})

/** Resolves with the milliseconds `promise` took, or 'timeout' after `ms`. */
async function timed(promise: Promise<unknown>, ms: number): Promise<number | 'timeout'> {
  const started = performance.now()
  const result = await Promise.race([promise.then(() => 'done' as const), Bun.sleep(ms).then(() => 'timeout' as const)])
  return result === 'timeout' ? 'timeout' : performance.now() - started
}

describe('startWorker', () => {
  test('runs jobs as they are enqueued, then stop() ends the loop and nothing more is claimed', async () => {
    const u = await t.signUp()
    const worker = startWorker(t.deps, { pollMs: 20 })
    let stopped = false
    try {
      const doc = await ingest(t, u)
      await until(async () => (await indexStatus(t.deps, doc.id)) === 'indexed', 5_000, 'the first document to be indexed')
      const later = await ingest(t, u)
      await until(async () => (await indexStatus(t.deps, later.id)) === 'indexed', 5_000, 'the second document to be indexed')

      const took = await timed(worker.stop(), 2_000)
      stopped = true
      expect(took).not.toBe('timeout')
      // Default-ish poll: the loop ends within one poll interval at most.
      expect(took as number).toBeLessThan(500)

      const afterStop = await ingest(t, u)
      await Bun.sleep(150)
      expect(await jobsFor(t.deps, afterStop.id)).toMatchObject([{ status: 'queued', attempts: 0 }])
    } finally {
      if (!stopped) await worker.stop()
    }
  })

  test('stop() with the default poll interval (500 ms) resolves within that interval', async () => {
    const worker = startWorker(t.deps)
    await Bun.sleep(50) // idle: the queue is empty, the loop sleeps
    const took = await timed(worker.stop(), 2_000)
    expect(took).not.toBe('timeout')
    expect(took as number).toBeLessThan(700)
  })

  test('stop() during a job waits for that job to finish, and the next due job is left queued', async () => {
    const u = await t.signUp()
    const first = await ingest(t, u)
    const gate = deferred<void>()
    let calls = 0
    t.deps.embedder = withDoEmbed(original, async (values) => {
      if (++calls === 1) await gate.promise
      return realEmbed(original.model, values)
    }).embedder

    const worker = startWorker(t.deps, { pollMs: 10 })
    await until(() => calls === 1, 5_000, 'the first job to start embedding')
    // Queued once the first job's batch was claimed, so it is due but in no worker's hands.
    const second = await ingest(t, u)
    const stopping = worker.stop()
    expect(await timed(stopping, 100)).toBe('timeout') // still inside the first job
    gate.resolve()
    expect(await timed(stopping, 2_000)).not.toBe('timeout')

    expect((await jobsFor(t.deps, first.id))[0]).toMatchObject({ status: 'succeeded', attempts: 1 })
    expect(await indexStatus(t.deps, first.id)).toBe('indexed')
    expect((await jobsFor(t.deps, second.id))[0]).toMatchObject({ status: 'queued', attempts: 0 })
    expect(calls).toBe(1)
  })

  test('a failing job does not stop the loop: the next job still runs', async () => {
    const kind = `test-fails-${crypto.randomUUID().slice(0, 8)}`
    const unregister = registerKind(kind, {
      maxAttempts: 1,
      run: async () => {
        throw new Error('always')
      },
    })
    const worker = startWorker(t.deps, { pollMs: 10 })
    try {
      const bad = t.deps.ids.next()
      await enqueue(t.deps.db, { id: bad, kind, payload: {}, userId: null, runAt: t.clock.now(), maxAttempts: 1 })
      const u = await t.signUp()
      const doc = await ingest(t, u)
      await until(async () => (await indexStatus(t.deps, doc.id)) === 'indexed', 5_000, 'the good job to run')
      expect(await jobById(t.deps, bad)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'always' })
    } finally {
      await worker.stop()
      unregister()
    }
  })

  // Defect (src/jobs/worker.ts startWorker): an idle loop sits in Bun.sleep(pollMs), which stop() does not
  // interrupt, so stop() — and with it server and worker shutdown — takes up to a whole poll interval.
  test('stop() on an idle worker does not wait out a long poll interval', async () => {
    const worker = startWorker(t.deps, { pollMs: 3_000 })
    await Bun.sleep(50) // idle: the queue is empty, the loop sleeps
    const took = await timed(worker.stop(), 1_000)
    expect(took).not.toBe('timeout')
  })
})
