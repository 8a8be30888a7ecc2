// Two workers sharing one queue on PGlite: every job is claimed by one of them and runs exactly once,
// none is lost, none is run twice.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { jobs } from '../../db/schema'
import { EMBED_CLAIM, embeddingBatch } from '../../src/jobs/embed-document.job'
import { claimNext } from '../../src/queue/queue'
import { drainJobs, STALE_AFTER_MS, startWorker } from '../../src/jobs/worker'
import { createTestApp, type TestApp } from '../harness'
import { captureLog, enqueueEmbedJobs, expectEachRanOnce, instrument, until, EMBED } from './jobs.fixtures'

const N = 50
// Embedding jobs are claimed many at a time; claims of 8 make each worker come back for more, so the two
// really contend for the queue.
const CLAIM = 8
let t: TestApp
beforeAll(async () => {
  embeddingBatch.size = CLAIM
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
})
afterAll(async () => {
  embeddingBatch.size = EMBED_CLAIM
  await t.close()
})

describe('two workers on one PGlite', () => {
  test('concurrent claims never hand the same job to two workers', async () => {
    const { user, jobIds } = await enqueueEmbedJobs(t, 10)
    const now = t.clock.now()
    const claims = await Promise.all(Array.from({ length: 16 }, (_, i) => claimNext(t.deps.db, `claimer-${i}`, now, STALE_AFTER_MS)))
    const claimed = claims.filter((c) => c !== null)
    expect(claimed).toHaveLength(10)
    expect(new Set(claimed.map((c) => c.id)).size).toBe(10)
    expect(claimed.map((c) => c.id).sort()).toEqual([...jobIds].sort())
    const rows = await t.deps.db.select().from(jobs).where(eq(jobs.user_id, user.id))
    for (const row of rows) {
      const claim = claimed.find((c) => c.id === row.id)!
      expect(row).toMatchObject({ status: 'running', attempts: 1, locked_by: claim.locked_by })
    }
    // Leave the queue empty for the next tests.
    await t.deps.db.delete(jobs).where(eq(jobs.user_id, user.id))
  })

  test(`two concurrent drainJobs (different worker ids) run each of ${N} jobs exactly once`, async () => {
    const { docIds, jobIds } = await enqueueEmbedJobs(t, N)
    const counter = instrument('embed-document')
    let ran: number[]
    try {
      ran = await Promise.all([drainJobs(t.deps, 'worker-a', EMBED), drainJobs(t.deps, 'worker-b', EMBED)])
    } finally {
      counter.restore()
    }
    expect(ran[0]! + ran[1]!).toBe(N)
    await expectEachRanOnce(t.deps, jobIds, docIds, counter.runs, 'hash-512')
    // Both took part: the claims really were concurrent.
    const byWorker = Object.groupBy(counter.runs, (r) => r.worker ?? 'none')
    expect(Object.keys(byWorker).sort()).toEqual(['worker-a', 'worker-b'])
    expect(byWorker['worker-a']!.length).toBe(ran[0]!)
    expect(byWorker['worker-b']!.length).toBe(ran[1]!)
  })

  test(`two startWorker loops run each of ${N} jobs exactly once`, async () => {
    const { docIds, jobIds } = await enqueueEmbedJobs(t, N)
    const counter = instrument('embed-document')
    const log = captureLog(t.deps)
    const workers = [startWorker(t.deps, { pollMs: 10 }), startWorker(t.deps, { pollMs: 10 })]
    try {
      // A worker-loop error (a failing claim) ends the wait at once and is shown below.
      // Generous: two test processes share two cores in CI, and this proves exactly-once, not speed.
      await until(() => counter.runs.length >= N || log.errors().length > 0, 60_000, `${N} runs`)
      // Let any duplicate claim show itself before stopping.
      await Bun.sleep(50)
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
      counter.restore()
      log.restore()
    }
    expect(log.lines.slice(0, 2)).toEqual([])
    await expectEachRanOnce(t.deps, jobIds, docIds, counter.runs, 'hash-512')
    expect(new Set(counter.runs.map((r) => r.worker)).size).toBe(2)
  }, 90_000)
})
