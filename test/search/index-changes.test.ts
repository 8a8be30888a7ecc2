// One change log and one version for both index caches (index_changes at keyword_stats.version, written by the
// document and the chunk triggers): while the embedding worker writes a user's vectors, the keyword index moves to
// each new version without reading a document again (it holds no vectors, so a backlog draining never grows its
// deltas towards a reload), and both indexes read again exactly the document an edit changed — searches giving
// what they gave before, cached as in SQL.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { drainJobs } from '../../src/jobs/worker'
import { IndexCache } from '../../src/retrieval/index-cache'
import { keywordSource } from '../../src/retrieval/keyword-cache'
import { vectorSource } from '../../src/retrieval/vector-cache'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { SCIENCE_WORDS, seededText } from './cache-corpus'
import { search } from './search.fixtures'

let t: TestApp
let u: TestUser
const ids: string[] = []

beforeAll(async () => {
  t = await createTestApp({
    env: { EMBEDDING_PROVIDER: 'hash', KEYWORD_MEMORY_MIN_DOCUMENTS: '1', VECTOR_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' },
  })
  u = await t.signUp()
  // In bulk: the chunks are written without vectors, which the embedding worker adds later.
  const documents = Array.from({ length: 40 }, (_, i) => ({ title: `Study ${i}`, body: seededText(i + 1, 30, SCIENCE_WORDS) }))
  const res = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })
  expect(res.status).toBe(200)
  for (const item of res.body.results) ids.push(item.document.id)
}, 120_000)
afterAll(() => t.close())

const version = async () =>
  Number((await queryRows<{ v: number }>(t.deps.db, sql`select version::float8 as v from keyword_stats where user_id = ${u.id}`))[0]!.v)
const shown = (body: Awaited<ReturnType<typeof search>>) => body.results.map((r) => [r.document.id, r.score.toFixed(6)])
const QUERY = 'vaccine immune response'

describe('one change log for both index caches', () => {
  test('the embedding worker’s writes move the keyword index to the new version without reading a document again', async () => {
    const cache = t.deps.keywordCache
    expect((await cache.load(t.deps.db, u.id))?.documents).toBe(40)
    const before = await search(t, u, { q: QUERY, mode: 'keyword', limit: 10 })
    const [loads, catchUps, was] = [cache.loads, cache.catchUps, await version()]

    await drainJobs(t.deps)
    expect(await version()).toBeGreaterThan(was)

    const after = await search(t, u, { q: QUERY, mode: 'keyword', limit: 10 })
    expect(shown(after)).toEqual(shown(before))
    expect(after.results.length).toBe(10)
    const index = (await cache.current(t.deps.db, u.id))!
    expect({ version: index.version, segments: index.segments.length, read: index.deltaDocuments, loads: cache.loads }).toEqual({
      version: await version(),
      segments: 1,
      read: 0,
      loads,
    })
    expect(cache.catchUps).toBeGreaterThan(catchUps)
  })

  test('an edit, then its re-embedding: each index reads that one document again, and ranks as before the cache', async () => {
    const model = t.deps.embedder!.id
    const keyword = t.deps.keywordCache
    const vector = t.deps.vectorCache
    await keyword.load(t.deps.db, u.id)
    expect((await vector.load(t.deps.db, u.id, model))?.documents).toBe(40)

    const edited = ids[7]!
    const res = await t.json('PATCH', `/api/documents/${edited}`, { key: u.key, body: { body: seededText(99, 40, SCIENCE_WORDS) } })
    expect(res.status).toBe(200)
    await drainJobs(t.deps)

    const keywordSearch = await search(t, u, { q: QUERY, mode: 'keyword', limit: 10 })
    const semanticSearch = await search(t, u, { q: QUERY, mode: 'semantic', limit: 10 })
    const now = await version()
    const keywordIndex = (await keyword.current(t.deps.db, u.id))!
    const vectorIndex = (await vector.current(t.deps.db, u.id, model))!
    // One document read again: marked dead in the base, its new version in a delta.
    expect([keywordIndex.version, keywordIndex.segments[0]!.deadList.length, keywordIndex.deltaDocuments]).toEqual([now, 1, 2])
    expect([vectorIndex.version, vectorIndex.segments[0]!.deadList.length, vectorIndex.deltaDocuments]).toEqual([now, 1, 2])

    // The same searches with the caches off: SQL ranks them.
    try {
      t.deps.keywordCache = new IndexCache(keywordSource, { minDocuments: 1, maxBytes: 0, log: t.deps.log })
      t.deps.vectorCache = new IndexCache(vectorSource, { minDocuments: 1, maxBytes: 0, log: t.deps.log })
      expect(shown(keywordSearch)).toEqual(shown(await search(t, u, { q: QUERY, mode: 'keyword', limit: 10 })))
      // pgvector sums in float4, the cache in float8: the same documents, scores alike to 5 places.
      const inSql = await search(t, u, { q: QUERY, mode: 'semantic', limit: 10 })
      expect(semanticSearch.results.map((r) => r.document.id)).toEqual(inSql.results.map((r) => r.document.id))
      semanticSearch.results.forEach((r, k) => expect(r.score).toBeCloseTo(inSql.results[k]!.score, 5))
    } finally {
      t.deps.keywordCache = keyword
      t.deps.vectorCache = vector
    }
    expect(keywordSearch.results.length).toBe(10)
    expect(semanticSearch.results.length).toBe(10)
  })
})
