// Two workers over the Postgres wire protocol (postgres.js → wire gate → pglite-socket → PGlite), each with
// its own connection pool, as two worker processes would be: every job runs exactly once, none is lost.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createDb } from '../../db/client'
import { createDeps } from '../../src/create-deps'
import type { Deps } from '../../src/deps'
import { EMBED_CLAIM, embeddingBatch } from '../../src/jobs/embed-document.job'
import { drainJobs, startWorker } from '../../src/jobs/worker'
import { startWireApp, type WireApp } from '../wire/wire-harness'
import { captureLog, enqueueEmbedJobs, expectEachRanOnce, instrument, until, EMBED } from './jobs.fixtures'

const N = 50
// Embedding jobs are claimed many at a time; claims of 2 make each worker come back for more, so the two
// really contend for the queue (with claims of 8, one worker once ran all 50 before the other claimed any, on a busy
// CI machine).
const CLAIM = 2
let w: WireApp
let second: Deps
// Booting PGlite with pgvector and migrating over the wire takes several seconds on a loaded machine.
beforeAll(async () => {
  embeddingBatch.size = CLAIM
  w = await startWireApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
  // A second pool on the same database, as a second worker process would open (already migrated).
  second = await createDeps(w.config, { database: await createDb(w.config) })
}, 60_000)
afterAll(async () => {
  embeddingBatch.size = EMBED_CLAIM
  await second?.close()
  await w?.close()
}, 30_000)

describe('two workers over the wire, one pool each', () => {
  test('both deps speak postgres and embed with hash-512', () => {
    expect(w.deps.dbKind).toBe('postgres')
    expect(second.dbKind).toBe('postgres')
    expect(second.embedder?.id).toBe('hash-512')
  })

  test(`two concurrent drainJobs run each of ${N} jobs exactly once`, async () => {
    const { docIds, jobIds } = await enqueueEmbedJobs(w, N)
    const counter = instrument('embed-document')
    let ran: number[]
    try {
      ran = await Promise.all([drainJobs(w.deps, 'wire-a', EMBED), drainJobs(second, 'wire-b', EMBED)])
    } finally {
      counter.restore()
    }
    expect(ran[0]! + ran[1]!).toBe(N)
    await expectEachRanOnce(w.deps, jobIds, docIds, counter.runs, 'hash-512')
    const workers = new Set(counter.runs.map((r) => r.worker))
    expect([...workers].sort()).toEqual(['wire-a', 'wire-b'])
  }, 60_000)

  test(`two startWorker loops (one per pool) run each of ${N} jobs exactly once`, async () => {
    const { docIds, jobIds } = await enqueueEmbedJobs(w, N)
    const counter = instrument('embed-document')
    const logs = [captureLog(w.deps), captureLog(second)]
    const errors = () => logs.flatMap((l) => l.errors())
    const workers = [startWorker(w.deps, { pollMs: 10 }), startWorker(second, { pollMs: 10 })]
    try {
      // A worker-loop error (a failing claim) ends the wait at once and is shown below.
      await until(() => counter.runs.length >= N || errors().length > 0, 40_000, `${N} runs`)
      await Bun.sleep(100)
    } finally {
      await Promise.all(workers.map((wk) => wk.stop()))
      counter.restore()
      for (const l of logs) l.restore()
    }
    // The first lines say why (the loop logs once per poll while it fails).
    expect(logs.flatMap((l) => l.lines).slice(0, 2)).toEqual([])
    await expectEachRanOnce(w.deps, jobIds, docIds, counter.runs, 'hash-512')
    expect(new Set(counter.runs.map((r) => r.worker)).size).toBe(2)
  }, 60_000)
})
