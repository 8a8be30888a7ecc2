// Background re-embedding: documents stored with no model (or another one) are embedded by the model a
// process starts with, with no command run — the boot's maintenance tick starts it and the worker does it,
// in batches that let people's jobs through. Until then documents say `pending`, GET / counts the backlog and
// searches needing vectors say how many documents they cannot see. Apps on one shared PGlite stand for
// processes on one database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { PGlite } from '@electric-sql/pglite'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { createDb, type Database } from '../../db/client'
import { chunks, documents, jobs } from '../../db/schema'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { createMaintenance, startMaintenance } from '../../src/jobs/maintenance'
import { SWEEP_BATCH } from '../../src/jobs/reembed.job'
import { drainJobs, runNextJob, startWorker } from '../../src/jobs/worker'
import { FakeClock } from '../fakes/clock'
import { BASE, createTestApp, migratedTemplate, type TestApp, type TestUser } from '../harness'
import { search } from '../search/search.fixtures'
import { chunksOf, instrument, realEmbed, until, withDoEmbed } from './jobs.fixtures'

let pglite: PGlite
let database: Database
/** One clock for every process: jobs one queues are due for the others. */
const clock = new FakeClock()
beforeAll(async () => {
  pglite = (await (await migratedTemplate()).clone()) as PGlite
  database = await createDb({ dataDir: 'memory://', databaseUrl: null }, { pglite })
})
afterAll(() => pglite.close())

/** A process on the shared database, configured by `env`, just started (nothing run yet). */
async function processOn(env: Record<string, string>): Promise<TestApp> {
  const config = loadConfig({ DATA_DIR: 'memory://', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', BASE_URL: BASE, ...env })
  const deps = await createDeps(config, { database: { ...database, close: async () => {} }, clock })
  return createTestApp({ env, deps })
}

/** What index.ts and jobs/main.ts do at start: the first maintenance tick (then it is stopped). */
async function boot(app: TestApp, stale: number): Promise<void> {
  const stop = startMaintenance(app.deps, 60_000)
  try {
    await until(async () => (await backlog(app)) === stale && (await sweeps(app)) > 0, 10_000, 'the boot tick to start re-embedding')
  } finally {
    stop()
  }
}

const health = async (app: TestApp) => (await app.json('GET', '/')).body.embeddings
const backlog = async (app: TestApp) => (await health(app)).backlog as number | null
const sweeps = async (app: TestApp) =>
  (
    await app.deps.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.kind, 'reembed-sweep'), inArray(jobs.status, ['queued', 'running'])))
  ).length

async function ingestAll(app: TestApp, u: TestUser, bodies: string[]): Promise<string[]> {
  const ids: string[] = []
  for (const body of bodies) {
    const res = await app.json('POST', '/api/documents', { key: u.key, body: { body } })
    expect(res.status).toBe(201)
    ids.push(res.body.id)
  }
  return ids
}

const statusOf = async (app: TestApp, u: TestUser, id: string) =>
  (await app.json('GET', `/api/documents/${id}`, { key: u.key })).body.index_status

/** The models that embedded a document's chunks, and their vectors' widths. */
async function modelsOf(app: TestApp, ids: string[]) {
  const rows = await app.deps.db
    .select({ model: chunks.embedding_model, dims: sql<number>`vector_dims(${chunks.embedding})` })
    .from(chunks)
    .where(inArray(chunks.document_id, ids))
  return [...new Set(rows.map((r) => `${r.model}/${r.dims}`))]
}

const TOPICS = ['tide tables for the harbour', 'sourdough starter feeding', 'glacier retreat in the alps', 'violin bow rehair']

describe('documents stored without a model', () => {
  test('with none configured, a document is indexed as it is written: no embedding job, its link suggestions queued', async () => {
    // A database of its own: the other tests count the documents of the shared one.
    const app = await createTestApp({ env: { EMBEDDING_PROVIDER: 'none' } })
    const u = await app.signUp()
    const single = await app.json('POST', '/api/documents', { key: u.key, body: { body: 'Tide tables for the harbour.' } })
    const bulk = await app.json('POST', '/api/documents/bulk', {
      key: u.key,
      body: { documents: TOPICS.map((t) => ({ body: `A page on ${t}.` })) },
    })
    expect(single.body.index_status).toBe('indexed')
    expect(bulk.body.results.map((r: { document: { index_status: string } }) => r.document.index_status)).toEqual(
      TOPICS.map(() => 'indexed'),
    )
    const ids = [single.body.id, ...bulk.body.results.map((r: { document: { id: string } }) => r.document.id)]
    expect(await Promise.all(ids.map((id) => statusOf(app, u, id)))).toEqual(ids.map(() => 'indexed'))
    const queued = await app.deps.db.select({ kind: jobs.kind, payload: jobs.payload }).from(jobs).where(eq(jobs.user_id, u.id))
    expect(queued.map((j) => j.kind)).toEqual(ids.map(() => 'suggest-links'))
    expect(queued.map((j) => (j.payload as { document_id: string }).document_id).sort()).toEqual([...ids].sort())
    await app.close()
  })

  test('a process started with a model embeds them on its own: pending → indexed, and semantic search finds them', async () => {
    const before = await processOn({ EMBEDDING_PROVIDER: 'none' })
    const u = await before.signUp()
    const ids = await ingestAll(
      before,
      u,
      TOPICS.map((t) => `Notes on ${t}, written down carefully.`),
    )
    await drainJobs(before.deps)
    expect(await Promise.all(ids.map((id) => statusOf(before, u, id)))).toEqual(ids.map(() => 'indexed'))
    expect(await modelsOf(before, ids)).toEqual(['null/null'])
    expect((await before.json('GET', '/')).body.embeddings).toMatchObject({ provider: 'none', backlog: null })

    const after = await processOn({ EMBEDDING_PROVIDER: 'hash' })
    await boot(after, ids.length)
    expect((await after.json('GET', '/')).body.embeddings).toMatchObject({
      provider: 'hash',
      model: 'hash-512',
      available: true,
      backlog: ids.length,
      failed: 0,
    })
    expect(await Promise.all(ids.map((id) => statusOf(after, u, id)))).toEqual(ids.map(() => 'pending'))
    const waiting = await search(after, u, { q: 'glacier retreat', mode: 'semantic' })
    expect(waiting.results).toEqual([])
    expect(waiting.notice).toStartWith(`${ids.length} of the documents searched are not embedded by the current model yet`)
    expect((await search(after, u, { q: 'glacier retreat', mode: 'hybrid' })).notice).toStartWith(`${ids.length} of the documents`)

    await drainJobs(after.deps)
    expect(await Promise.all(ids.map((id) => statusOf(after, u, id)))).toEqual(ids.map(() => 'indexed'))
    expect(await modelsOf(after, ids)).toEqual(['hash-512/512'])
    const found = await search(after, u, { q: 'glacier retreat', mode: 'semantic' })
    expect(found.notice).toBeUndefined()
    expect(found.results[0]!.document.id).toBe(ids[2]!)
    expect(found.results[0]!.signals.semantic_rank).toBe(1)
    expect((await after.json('GET', '/')).body.embeddings).toMatchObject({ backlog: 0, failed: 0 })
  })
})

describe('a change of model', () => {
  test('hash-256 → hash-512: old vectors are never compared with new ones, and are replaced', async () => {
    const old = await processOn({ EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '256' })
    const u = await old.signUp()
    const ids = await ingestAll(
      old,
      u,
      TOPICS.map((t) => `A second notebook about ${t}.`),
    )
    await drainJobs(old.deps)
    expect(await modelsOf(old, ids)).toEqual(['hash-256/256'])
    expect((await search(old, u, { q: 'violin bow', mode: 'semantic' })).results[0]!.document.id).toBe(ids[3]!)

    const next = await processOn({ EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '512' })
    await boot(next, ids.length)
    // 256-dimensional vectors cannot even be compared with a 512-dimensional query: they are not.
    for (const mode of ['semantic', 'hybrid']) {
      const waiting = await search(next, u, { q: 'violin bow', mode })
      expect(waiting.results.filter((r) => r.signals.semantic_rank !== null)).toEqual([])
      expect(waiting.notice).toStartWith(`${ids.length} of the documents`)
    }

    await drainJobs(next.deps)
    expect(await modelsOf(next, ids)).toEqual(['hash-512/512'])
    for (const c of await chunksOf(next.deps, ids[3]!)) {
      const expected = hashEmbed(c.content, 512)
      expect(Math.max(...c.embedding!.map((v, i) => Math.abs(v - expected[i]!)))).toBeLessThan(1e-6)
    }
    const found = await search(next, u, { q: 'violin bow', mode: 'semantic' })
    expect(found.notice).toBeUndefined()
    expect(found.results[0]!.document.id).toBe(ids[3]!)
  })
})

describe('idempotent across processes and restarts; people’s jobs are not starved', () => {
  test('two processes booting with the model start one chain; their workers re-embed each document once', async () => {
    const before = await processOn({ EMBEDDING_PROVIDER: 'none' })
    const u = await before.signUp()
    const ids = await ingestAll(
      before,
      u,
      Array.from({ length: 12 }, (_, i) => `Entry ${i} of the ${TOPICS[i % 4]} log.`),
    )
    await drainJobs(before.deps)

    const [a, b] = [await processOn({ EMBEDDING_PROVIDER: 'hash' }), await processOn({ EMBEDDING_PROVIDER: 'hash' })]
    await Promise.all([boot(a, ids.length), boot(b, ids.length)])
    expect(await sweeps(a)).toBe(1)
    const counter = instrument('reembed-document')
    try {
      await Promise.all([drainJobs(a.deps, 'worker-a'), drainJobs(b.deps, 'worker-b')])
    } finally {
      counter.restore()
    }
    const mine = await a.deps.db
      .select({ id: jobs.id, payload: jobs.payload, status: jobs.status })
      .from(jobs)
      .where(and(eq(jobs.kind, 'reembed-document'), eq(jobs.user_id, u.id)))
    expect(mine.map((j) => j.payload.document_id).sort()).toEqual([...ids].sort())
    expect(mine.filter((j) => j.status !== 'succeeded')).toEqual([])
    expect(counter.runs).toHaveLength(ids.length)
    expect(await modelsOf(a, ids)).toEqual(['hash-512/512'])
    // Booting again finds nothing left to do.
    const again = await processOn({ EMBEDDING_PROVIDER: 'hash' })
    await boot(again, 0)
    await drainJobs(again.deps)
    expect(
      await a.deps.db
        .select({ id: jobs.id })
        .from(jobs)
        .where(and(eq(jobs.kind, 'reembed-document'), eq(jobs.user_id, u.id))),
    ).toHaveLength(ids.length)
  })

  test('a restart half-way resumes the chain; a new document waits for one batch at most, not for the backlog', async () => {
    const before = await processOn({ EMBEDDING_PROVIDER: 'none' })
    const u = await before.signUp()
    const n = SWEEP_BATCH * 2 + 5
    const ids = await ingestAll(
      before,
      u,
      Array.from({ length: n }, (_, i) => `Log line ${i}: ${TOPICS[i % 4]}.`),
    )
    await drainJobs(before.deps)

    const first = await processOn({ EMBEDDING_PROVIDER: 'hash' })
    await boot(first, n)
    // The first sweep queues one batch; its documents are embedded (claimed together); then the process stops.
    expect(await runNextJob(first.deps, 'first')).toBe(true)
    expect(await runNextJob(first.deps, 'first')).toBe(true)

    const second = await processOn({ EMBEDDING_PROVIDER: 'hash' })
    await boot(second, n - SWEEP_BATCH)
    expect(await sweeps(second)).toBe(1)
    // Someone adds a document now: its embedding job runs before the backlog's next batch is even queued.
    const [fresh] = await ingestAll(second, u, ['A brand new note about lighthouse lenses.'])
    const order: string[] = []
    const reembeds = instrument('reembed-document', () => void order.push('reembed'))
    const embeds = instrument('embed-document', (job) => void order.push(job.payload.document_id === fresh ? 'fresh' : 'other'))
    try {
      await drainJobs(second.deps)
    } finally {
      reembeds.restore()
      embeds.restore()
    }
    expect(order.indexOf('fresh')).toBeGreaterThanOrEqual(0)
    expect(order.slice(0, order.indexOf('fresh')).length).toBeLessThanOrEqual(SWEEP_BATCH)
    expect(order.slice(order.indexOf('fresh')).filter((k) => k === 'reembed').length).toBeGreaterThan(SWEEP_BATCH)
    // Every document embedded once by the model, none twice, all indexed.
    expect(order.filter((k) => k === 'reembed')).toHaveLength(n - SWEEP_BATCH)
    expect(await modelsOf(second, [...ids, fresh!])).toEqual(['hash-512/512'])
    const statuses = await second.deps.db.select({ s: documents.index_status }).from(documents).where(eq(documents.user_id, u.id))
    expect(statuses.filter((r) => r.s !== 'indexed')).toEqual([])
  })
})

describe('the worker loop, busy with a backlog', () => {
  test('hands the event loop back between jobs: a timer set as it starts fires long before the backlog is done', async () => {
    const before = await processOn({ EMBEDDING_PROVIDER: 'none' })
    const u = await before.signUp()
    const ids = await ingestAll(
      before,
      u,
      Array.from({ length: 40 }, (_, i) => `Page ${i} of the ${TOPICS[i % 4]} handbook.`),
    )
    await drainJobs(before.deps)
    const app = await processOn({ EMBEDDING_PROVIDER: 'hash' })
    await boot(app, ids.length)

    const counter = instrument('reembed-document')
    const worker = startWorker(app.deps, { pollMs: 10 })
    try {
      // On PGlite every query settles as a microtask: without a yield, timers and incoming requests wait for the whole backlog.
      // Jobs are claimed many at a time, so what counts is how many documents were written when the timer fired.
      const pendingWhenTimerFired = await new Promise<number>((resolve) =>
        setTimeout(() => void backlog(app).then((n) => resolve(n ?? 0)), 0),
      )
      expect(pendingWhenTimerFired).toBeGreaterThan((ids.length * 3) / 4)
      await until(async () => (await backlog(app)) === 0, 30_000, 'the backlog to be embedded')
    } finally {
      await worker.stop()
      counter.restore()
    }
    expect(counter.runs).toHaveLength(ids.length)
  })
})

describe('a document whose re-embedding fails', () => {
  test('ends `failed` (counted in GET / and in the notice), is left alone for an hour, then tried again', async () => {
    const before = await processOn({ EMBEDDING_PROVIDER: 'none' })
    const u = await before.signUp()
    const [poison, fine] = await ingestAll(before, u, ['A poison pill the endpoint refuses.', 'A harmless note about harbour tides.'])
    await drainJobs(before.deps)

    const app = await processOn({ EMBEDDING_PROVIDER: 'hash' })
    const original = app.deps.embedder!
    app.deps.embedder = withDoEmbed(original, async (values, model) => {
      if (values.some((v) => v.includes('poison'))) throw new Error('the endpoint refused the text')
      return realEmbed(model, values)
    }).embedder
    const tick = createMaintenance(app.deps)
    await tick() // the boot
    for (let i = 0; i < 4; i++) {
      await drainJobs(app.deps)
      clock.advance(60_000) // past the retry backoff
    }
    expect([await statusOf(app, u, poison!), await statusOf(app, u, fine!)]).toEqual(['failed', 'indexed'])
    expect(await health(app)).toMatchObject({ backlog: 0, failed: 1 })
    expect((await search(app, u, { q: 'harbour tides', mode: 'hybrid' })).notice).toStartWith('1 of the documents searched is not embedded')

    // Within the hour, neither this process's ticks nor a restart queue it again.
    await tick()
    await createMaintenance(app.deps)()
    expect(await drainJobs(app.deps)).toBe(1) // the restart's sweep, finding nothing to queue
    expect(await statusOf(app, u, poison!)).toBe('failed')

    app.deps.embedder = original
    clock.advance(60 * 60_000)
    await tick()
    expect(await statusOf(app, u, poison!)).toBe('pending')
    await drainJobs(app.deps)
    expect(await statusOf(app, u, poison!)).toBe('indexed')
    expect(await health(app)).toMatchObject({ backlog: 0, failed: 0 })
  })
})
