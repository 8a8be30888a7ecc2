// A model unavailable at boot is switched in once it answers, with no restart: the maintenance tick retries
// loading it with backoff (30 s, then 60 s, …) — an OpenAI-compatible endpoint that was down, local model
// files that were missing — and then the documents stored meanwhile are embedded in the background.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMaintenance } from '../../src/jobs/maintenance'
import { drainJobs } from '../../src/jobs/worker'
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-embeddings'
import { createTestApp, type TestApp } from '../harness'
import { chunksOf, indexStatus } from '../jobs/jobs.fixtures'
import { add, search } from '../search/search.fixtures'

const health = async (app: TestApp) => (await app.json('GET', '/')).body.embeddings

describe('an OpenAI-compatible endpoint down at boot', () => {
  let fake: FakeOpenAI
  let app: TestApp
  beforeAll(async () => {
    fake = startFakeOpenAI({ apiKey: 'sk-test', dimensions: 48 })
    fake.failAlways({ status: 503, message: 'warming up', retryAfterMs: 0 })
    app = await createTestApp({
      env: { EMBEDDING_PROVIDER: 'openai', EMBEDDING_MODEL: 'fake-embed', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test' },
    })
  })
  afterAll(async () => {
    await app?.close()
    await fake?.stop()
  })

  test('is retried on the maintenance tick with backoff, switched in when it answers, and the documents stored meanwhile are embedded', async () => {
    expect(await health(app)).toMatchObject({
      provider: 'none',
      model: null,
      configured: { provider: 'openai', model: 'fake-embed' },
      available: false,
      backlog: null,
    })
    const u = await app.signUp()
    const doc = await add(app, u, { title: 'Harbour', body: 'The ferry reached the harbour at noon.' })
    await drainJobs(app.deps)
    expect(await indexStatus(app.deps, doc.id)).toBe('indexed')

    const tick = createMaintenance(app.deps)
    const attempts = () => fake.embeddingRequests().length
    await tick()
    expect(attempts()).toBe(1) // the boot's ping only: the first retry is 30 s later
    app.clock.advance(30_000)
    await tick()
    expect(attempts()).toBe(2)
    expect(await health(app)).toMatchObject({ provider: 'none', available: false, reason: expect.stringContaining('warming up') })

    fake.healthy()
    app.clock.advance(30_000)
    await tick()
    expect(attempts()).toBe(2) // backing off: the next try is 60 s after the last
    expect(app.deps.embedder).toBeNull()
    app.clock.advance(30_000)
    await tick()
    expect(attempts()).toBe(3)
    expect(app.deps.embedder?.id).toBe('openai:fake-embed')
    expect(await health(app)).toEqual({
      provider: 'openai',
      model: 'fake-embed',
      dtype: null,
      configured: { provider: 'openai', model: 'fake-embed' },
      available: true,
      backlog: 1,
      failed: 0,
    })
    expect(await indexStatus(app.deps, doc.id)).toBe('pending')
    expect((await search(app, u, { q: 'ferry', mode: 'semantic' })).notice).toStartWith('1 of the documents searched is not embedded')

    await drainJobs(app.deps)
    expect(await indexStatus(app.deps, doc.id)).toBe('indexed')
    for (const c of await chunksOf(app.deps, doc.id)) expect(c.embedding_model).toBe('openai:fake-embed')
    const found = await search(app, u, { q: 'ferry at the harbour', mode: 'semantic' })
    expect(found).toMatchObject({ mode: 'semantic', results: [{ document: { id: doc.id } }] })
    expect(found.notice).toBeUndefined()
    expect((await health(app)).backlog).toBe(0)
  })
})

describe('local model files that appear after boot', () => {
  const MODEL = 'fixture/bge-tiny-en'
  let dir: string
  let app: TestApp
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'late-model-'))
    app = await createTestApp({ env: { EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: MODEL, EMBEDDING_MODEL_PATH: dir } })
  })
  afterAll(async () => {
    await app?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test('are loaded on a later tick, and the documents are embedded by them', async () => {
    expect(await health(app)).toMatchObject({ provider: 'none', configured: { provider: 'local', model: MODEL }, available: false })
    const u = await app.signUp()
    const doc = await add(app, u, { title: 'Market', body: 'apple banana fruit food apple banana' })
    await drainJobs(app.deps)
    const tick = createMaintenance(app.deps)
    await tick()
    expect(app.deps.embedder).toBeNull()

    cpSync(join(import.meta.dir, '../fixtures/models', MODEL), join(dir, MODEL), { recursive: true })
    app.clock.advance(30_000)
    await tick()
    expect(await health(app)).toMatchObject({ provider: 'local', model: MODEL, available: true, backlog: 1 })
    await drainJobs(app.deps)
    for (const c of await chunksOf(app.deps, doc.id))
      expect(c).toMatchObject({ embedding_model: `local:${MODEL}`, embedding: expect.any(Array) })
    expect((await search(app, u, { q: 'banana', mode: 'semantic' })).results[0]!.document.id).toBe(doc.id)
  })
})
