// Search in time: a person who noted what happened on which day asks only for what happened in a window
// (`after` inclusive, `before` exclusive, a plain date meaning its start in UTC). On a user large enough that the
// index caches (keyword and vector) rank, every mode answers exactly what the SQL ranking answers; a bad date,
// or a window that closes before it opens, is a 400 that names the parameter.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { IndexCache } from '../../src/retrieval/index-cache'
import { keywordSource } from '../../src/retrieval/keyword-cache'
import { vectorSource } from '../../src/retrieval/vector-cache'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { SCIENCE_WORDS, seededText } from './cache-corpus'
import { search, searchRaw, type SearchParams } from './search.fixtures'

let t: TestApp
let u: TestUser
const DAY = 86_400_000
const MAY_1 = Date.UTC(2023, 4, 1)
/** The i-th note happened on day i % 20 of May 2023, at i % 24 hours. */
const happened = (i: number) => new Date(MAY_1 + (i % 20) * DAY + (i % 24) * 3_600_000).toISOString()

beforeAll(async () => {
  t = await createTestApp({
    env: { EMBEDDING_PROVIDER: 'hash', KEYWORD_MEMORY_MIN_DOCUMENTS: '1', VECTOR_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' },
  })
  u = await t.signUp()
  const notes = Array.from({ length: 160 }, (_, i) => ({
    title: `Lab day ${i}`,
    body: seededText(i + 1, 20 + (i % 9) * 6, SCIENCE_WORDS),
    kind: i % 4 === 0 ? 'note' : 'document',
    occurred_at: happened(i),
  }))
  // Two on either side of midnight of 3 May, and one that happened when it was saved (no time given).
  notes.push({ title: 'Heron at midnight', body: 'heron seen at the lake', kind: 'note', occurred_at: '2023-05-03T00:00:00Z' })
  notes.push({ title: 'Heron just before', body: 'heron seen at the lake', kind: 'note', occurred_at: '2023-05-02T23:59:59.999Z' })
  const res = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents: notes } })
  expect(res.status).toBe(200)
  const saved = await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Heron today', body: 'heron seen at the lake' } })
  expect(saved.status).toBe(201)
  await drainJobs(t.deps)
}, 120_000)
afterAll(() => t.close())

const titles = async (params: SearchParams) =>
  (await search(t, u, { limit: 50, mode: 'keyword', ...params })).results.map((r) => r.document.title)

describe('search in a window of time', () => {
  test('after is inclusive, before exclusive, and a plain date is its start in UTC', async () => {
    expect((await titles({ q: 'heron', after: '2023-05-03' })).sort()).toEqual(['Heron at midnight', 'Heron today'])
    expect(await titles({ q: 'heron', before: '2023-05-03' })).toEqual(['Heron just before'])
    expect(await titles({ q: 'heron', after: '2023-05-02T23:59:59.999Z', before: '2023-05-03T00:00:00.001Z' })).toHaveLength(2)
    // The same instant written in another time zone (a + sent as %2B).
    expect(await titles({ q: 'heron', after: '2023-05-03T02:00:00+02:00', before: '2023-05-04' })).toEqual(['Heron at midnight'])
    // Years ISO 8601 writes but PostgreSQL has not (year 0): nothing happened before, or after, them.
    expect(await titles({ q: 'heron', after: '0000-01-01T00:00:00+01:00' })).toHaveLength(3)
    expect(await titles({ q: 'heron', before: '0001-01-01T00:30:00+01:00' })).toEqual([])
  })

  test('each result happened in the window, and results show when', async () => {
    const found = await search(t, u, { q: 'vaccine immune', mode: 'keyword', limit: 100, after: '2023-05-05', before: '2023-05-09' })
    expect(found.results.length).toBeGreaterThan(5)
    for (const r of found.results) {
      expect(r.document.occurred_at >= '2023-05-05T00:00:00.000Z' && r.document.occurred_at < '2023-05-09T00:00:00.000Z').toBe(true)
    }
  })

  test('the index caches answer exactly what SQL answers, in every mode and window', async () => {
    const model = t.deps.embedder!.id
    await t.deps.keywordCache.load(t.deps.db, u.id)
    await t.deps.vectorCache.load(t.deps.db, u.id, model)
    const windows = [
      { after: '2023-05-07' },
      { before: '2023-05-04T12:00:00Z' },
      { after: '2023-05-03', before: '2023-05-10' },
      { after: '2023-05-11T05:00:00Z', before: '2023-05-11T06:00:00Z', kind: 'note' },
      { after: '2023-05-08', before: '2023-05-01' },
      { after: '2023-05-08', before: '2023-05-08T00:00:00Z' },
      { after: '2030-01-01' },
    ]
    const queries = ['vaccine immune response', 'tumor growth kinase', 'patient dose', 'gene expre']
    const asked: SearchParams[] = []
    for (const q of queries) for (const mode of ['keyword', 'semantic', 'hybrid']) for (const w of windows) asked.push({ q, mode, ...w })
    const answers = async () => Promise.all(asked.map(async (p) => (await search(t, u, { limit: 20, ...p })).results))

    const fromCopies = await answers()
    // The copies served: they are current for this user (a search ranks in them whenever they are).
    expect(await t.deps.keywordCache.current(t.deps.db, u.id)).not.toBeNull()
    expect(await t.deps.vectorCache.current(t.deps.db, u.id, model)).not.toBeNull()
    const [keyword, vector] = [t.deps.keywordCache, t.deps.vectorCache]
    t.deps.keywordCache = new IndexCache(keywordSource, { minDocuments: 1, maxBytes: 0, log: t.deps.log })
    t.deps.vectorCache = new IndexCache(vectorSource, { minDocuments: 1, maxBytes: 0, log: t.deps.log })
    const fromSql = await answers().finally(() => {
      t.deps.keywordCache = keyword
      t.deps.vectorCache = vector
    })
    let compared = 0
    asked.forEach((p, i) => {
      const shown = (results: (typeof fromSql)[number]) => results.map((r) => [r.document.id, r.score.toFixed(5)])
      expect({ p, results: shown(fromCopies[i]!) }).toEqual({ p, results: shown(fromSql[i]!) })
      compared += fromSql[i]!.length
    })
    expect(compared).toBeGreaterThan(300)
    // A window that holds nothing finds nothing: one after 2030, one that closes before it opens, one that closes as it opens.
    const empty = asked.flatMap((p, i) => (p.after === '2030-01-01' || p.after === '2023-05-08' ? [fromSql[i]] : []))
    expect(empty.length).toBe(queries.length * 3 * 3)
    expect(empty.every((results) => results!.length === 0)).toBe(true)
  })
})

describe('a bad window is refused, naming what is wrong', () => {
  const refused = async (params: SearchParams) => {
    const res = await searchRaw(t, u, { q: 'heron', ...params })
    expect({ params, status: res.status }).toEqual({ params, status: 400 })
    return res.body.error as string
  }

  test('a date that is not one, or a time without a time zone', async () => {
    expect(await refused({ after: '2023-02-30' })).toStartWith('query.after: after must be an ISO 8601 date-time')
    expect(await refused({ before: 'yesterday' })).toStartWith('query.before: before must be an ISO 8601 date-time')
    expect(await refused({ before: '2023-05-08T10:00:00' })).toStartWith('query.before:')
    expect(await refused({ after: '2023-05-08T24:00:00Z' })).toStartWith('query.after:')
  })
})
