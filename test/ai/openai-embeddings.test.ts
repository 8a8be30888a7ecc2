// The openai embedding provider against a local fake of OpenAI's /v1/embeddings (test/fakes/openai-embeddings.ts):
// what @ai-sdk/openai sends (model, input array, encoding_format "float", the Bearer key), vectors stored as
// the fake answered them under "openai:<model>", semantic search embedding the query there; an endpoint
// failing at boot leaves the service on keyword search (never a crashed boot); failing during a job, the
// job is retried later.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-embeddings'
import { chunksOf, indexStatus, jobsFor } from '../jobs/jobs.fixtures'
import { add, search, searchRaw, type SearchResult } from '../search/search.fixtures'

const envFor = (fake: FakeOpenAI, overrides: Record<string, string> = {}) => ({
  EMBEDDING_PROVIDER: 'openai',
  EMBEDDING_MODEL: 'fake-embed',
  OPENAI_BASE_URL: fake.baseUrl,
  OPENAI_API_KEY: 'sk-test',
  ...overrides,
})

const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0)
const ids = (results: SearchResult[]) => results.map((r) => r.document.id)

/** A body of several paragraphs, long enough for several chunks. */
const longBody = (topic: string) =>
  Array.from(
    { length: 12 },
    (_, i) => `Paragraph ${i} on ${topic}: ${'the keeper wrote down the wind, the sea and the lamp. '.repeat(4)}`,
  ).join('\n\n')

let fake: FakeOpenAI
let t: TestApp
beforeAll(async () => {
  fake = startFakeOpenAI({ apiKey: 'sk-test', dimensions: 48 })
  t = await createTestApp({ env: envFor(fake) })
})
afterAll(async () => {
  await t?.close()
  await fake?.stop()
})

describe('a healthy OpenAI-compatible endpoint', () => {
  test('GET / shows embeddings available; boot sent one ping in the real wire format with the Bearer key', async () => {
    const res = await t.json('GET', '/')
    expect(res.status).toBe(200)
    expect(res.body.embeddings).toEqual({
      provider: 'openai',
      model: 'fake-embed',
      dtype: null,
      configured: { provider: 'openai', model: 'fake-embed' },
      available: true,
      backlog: 0,
      failed: 0,
    })
    expect(t.deps.embedder?.id).toBe('openai:fake-embed')

    const [ping] = fake.embeddingRequests()
    expect(ping).toBeDefined()
    expect(ping!.method).toBe('POST')
    expect(ping!.path).toBe('/v1/embeddings')
    expect(ping!.headers.authorization).toBe('Bearer sk-test')
    expect(ping!.headers['content-type']).toContain('application/json')
    // What @ai-sdk/openai sends: the input always as an array, and encoding_format "float".
    expect(ping!.body).toEqual({ model: 'fake-embed', input: ['ping'], encoding_format: 'float' })
  })

  test("ingest + drainJobs store the fake's vectors under openai:fake-embed, one request for the document's chunks", async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Lighthouse log', body: longBody('lighthouses') })
    const before = fake.embeddingRequests().length
    expect(await indexStatus(t.deps, doc.id)).toBe('pending')
    await drainJobs(t.deps)
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')

    const rows = await chunksOf(t.deps, doc.id)
    expect(rows.length).toBeGreaterThan(1)
    const sent = fake.embeddingRequests().slice(before)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.headers.authorization).toBe('Bearer sk-test')
    // Each chunk after the document's title, shortest first (the worker sorts what it embeds by length), every
    // chunk in the one request.
    const sortedByLength = rows.map((c) => `Lighthouse log\n${c.content}`).sort((a, b) => a.length - b.length)
    expect(sent[0]!.body).toEqual({ model: 'fake-embed', input: sortedByLength, encoding_format: 'float' })
    for (const c of rows) {
      expect(c.embedding_model).toBe('openai:fake-embed')
      expect(c.embedding).toHaveLength(48)
      const expected = fake.vectorFor(`Lighthouse log\n${c.content}`)
      expect(Math.max(...c.embedding!.map((v, i) => Math.abs(v - expected[i]!)))).toBeLessThan(1e-6)
    }
  })

  test('semantic search embeds the query at the endpoint and ranks by its vectors; hybrid runs as hybrid', async () => {
    const u = await t.signUp()
    const q = 'the ferry reached the harbour at noon'
    const near = await add(t, u, { title: 'Ferry', body: 'The ferry reached the harbour at noon, late again.' })
    const far = await add(t, u, { title: 'Bread', body: 'Sourdough bread rises slowly overnight.' })
    await drainJobs(t.deps)

    const before = fake.embeddingRequests().length
    const res = await search(t, u, { q, mode: 'semantic' })
    expect(res.mode).toBe('semantic')
    expect(res.notice).toBeUndefined()
    expect(ids(res.results)).toEqual([near.id, far.id])
    const queryRequests = fake.embeddingRequests().slice(before)
    expect(queryRequests.map((r) => r.body)).toEqual([{ model: 'fake-embed', input: [q], encoding_format: 'float' }])
    expect(queryRequests[0]!.headers.authorization).toBe('Bearer sk-test')
    const qv = fake.vectorFor(q)
    expect(res.results[0]!.signals.semantic_score!).toBeCloseTo(
      cosine(fake.vectorFor('Ferry\nThe ferry reached the harbour at noon, late again.'), qv),
      5,
    )
    expect(res.results[0]!.signals).toMatchObject({ semantic_rank: 1, keyword_rank: null })

    const hybrid = await search(t, u, { q, mode: 'hybrid' })
    expect(hybrid.mode).toBe('hybrid')
    expect(ids(hybrid.results)[0]).toBe(near.id)
    expect(hybrid.results[0]!.signals).toMatchObject({ keyword_rank: 1, semantic_rank: 1 })
  })

  test('the endpoint failing during a job: the job is retried later (attempts, run_at in the future), then succeeds', async () => {
    const u = await t.signUp()
    await drainJobs(t.deps) // nothing else due
    const doc = await add(t, u, { title: 'Storm', body: 'The storm closed the harbour for three days.' })
    // retry-after-ms: 0 keeps the SDK's own retries (embedMany's maxRetries 2) from waiting seconds.
    fake.failNext(3, { status: 500, retryAfterMs: 0 })
    const before = fake.embeddingRequests().length
    const started = t.clock.now()
    expect(await drainJobs(t.deps)).toBe(1)
    expect(fake.embeddingRequests().length - before).toBe(3)

    const [job] = await jobsFor(t.deps, doc.id)
    expect(job).toMatchObject({ kind: 'embed-document', status: 'queued', attempts: 1, locked_by: null })
    expect(job!.last_error!).toContain('The server had an error')
    expect(job!.run_at.getTime()).toBeGreaterThan(started.getTime())
    expect(await indexStatus(t.deps, doc.id)).toBe('pending')
    for (const c of await chunksOf(t.deps, doc.id)) expect(c).toMatchObject({ embedding: null, embedding_model: null })
    // Not due yet: draining again runs nothing.
    expect(await drainJobs(t.deps)).toBe(0)

    t.clock.set(new Date(job!.run_at.getTime() + 1))
    await drainJobs(t.deps)
    const [done] = await jobsFor(t.deps, doc.id)
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2 })
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    for (const c of await chunksOf(t.deps, doc.id)) expect(c.embedding_model).toBe('openai:fake-embed')
  })

  test('an endpoint that keeps failing: every attempt retried until max_attempts, then the job and the document are failed', async () => {
    const u = await t.signUp()
    await drainJobs(t.deps)
    const doc = await add(t, u, { title: 'Fog', body: 'Fog rolled over the harbour wall at dawn.' })
    fake.failAlways({ status: 503, retryAfterMs: 0 })
    try {
      for (let attempt = 1; attempt <= 5; attempt++) {
        expect(await drainJobs(t.deps)).toBe(1)
        const [job] = await jobsFor(t.deps, doc.id)
        expect(job!.attempts).toBe(attempt)
        if (attempt < 5) {
          expect(job!.status).toBe('queued')
          expect(job!.run_at.getTime()).toBeGreaterThan(t.clock.now().getTime())
          t.clock.set(new Date(job!.run_at.getTime() + 1))
        } else {
          expect(job!.status).toBe('failed')
        }
      }
      expect(await indexStatus(t.deps, doc.id)).toBe('failed')
    } finally {
      fake.healthy()
    }
    // The document is still found by keyword.
    expect(ids((await search(t, u, { q: 'fog harbour', mode: 'keyword' })).results)).toEqual([doc.id])
  })

  test('the endpoint failing while a search embeds its query: the search still answers, by keyword, and says why', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Gulls', body: 'Gulls followed the fishing boats back to port.' })
    await drainJobs(t.deps)
    fake.failAlways({ status: 500, retryAfterMs: 0 })
    try {
      const res = await searchRaw(t, u, { q: 'gulls fishing boats', mode: 'hybrid' })
      expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined })
      expect(res.body.mode).toBe('keyword')
      expect(ids(res.body.results)).toEqual([doc.id])
      expect(res.body.notice).toBeString()
    } finally {
      fake.healthy()
    }
  })
})

describe('an endpoint that does not answer at boot', () => {
  const expectKeywordOnly = async (app: TestApp, reasonPart: string) => {
    const health = await app.json('GET', '/')
    expect(health.status).toBe(200)
    expect(health.body.embeddings).toMatchObject({
      provider: 'none',
      model: null,
      configured: { provider: 'openai', model: 'fake-embed' },
      available: false,
      backlog: null,
    })
    expect(health.body.embeddings.reason).toContain('did not answer')
    expect(health.body.embeddings.reason).toContain(reasonPart)
    expect(app.deps.embedder).toBeNull()

    const u: TestUser = await app.signUp()
    const doc = await add(app, u, { title: 'Harbour', body: 'The ferry reached the harbour at noon.' })
    const res = await search(app, u, { q: 'ferry harbour', mode: 'hybrid' })
    expect(res.mode).toBe('keyword')
    expect(ids(res.results)).toEqual([doc.id])
    expect(res.notice!).toContain(health.body.embeddings.reason)
    // Jobs still index the document, with no vectors.
    await drainJobs(app.deps)
    expect(await indexStatus(app.deps, doc.id)).toBe('indexed')
    for (const c of await chunksOf(app.deps, doc.id)) expect(c).toMatchObject({ embedding: null, embedding_model: null })
  }

  test('a 500 at boot: embeddings unavailable, keyword search only, boot does not crash (one request, no retry)', async () => {
    const down = startFakeOpenAI()
    down.failAlways({ status: 500, message: 'upstream exploded' })
    const app = await createTestApp({ env: envFor(down) })
    try {
      expect(down.requests).toHaveLength(1)
      await expectKeywordOnly(app, 'upstream exploded')
      // Nothing is sent later either (until the maintenance tick retries loading it, test/ai/embedder-reload.test.ts).
      expect(down.requests).toHaveLength(1)
    } finally {
      await app.close()
      await down.stop()
    }
  })

  test("a wrong API key (401) at boot: unavailable, with the endpoint's message", async () => {
    const strict = startFakeOpenAI({ apiKey: 'sk-other' })
    const app = await createTestApp({ env: envFor(strict) })
    try {
      expect(strict.requests[0]!.headers.authorization).toBe('Bearer sk-test')
      await expectKeywordOnly(app, 'Incorrect API key')
    } finally {
      await app.close()
      await strict.stop()
    }
  })

  test('nothing listening at OPENAI_BASE_URL: unavailable, boot does not crash', async () => {
    const gone = startFakeOpenAI()
    await gone.stop()
    const app = await createTestApp({ env: envFor(gone) })
    try {
      await expectKeywordOnly(app, '')
    } finally {
      await app.close()
    }
  })
})
