// The rules the keyword and the vector index caches share (index-cache.ts), where the two once differed: a user
// whose vector index passes its budget is told so, as for keyword search, and gets the SQL ranking; an empty
// filter value filters nothing, in a cached index as in SQL; a link job waits for an index only when the user is
// worth one; a search for one document (onlyDocument) still applies the other conditions, cached or not.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { embedQuery } from '../../src/embedding/embeddings'
import { drainJobs } from '../../src/jobs/worker'
import { filterSql } from '../../src/retrieval/document-fields'
import { IndexCache } from '../../src/retrieval/index-cache'
import { keywordSource } from '../../src/retrieval/keyword-cache'
import { semanticSearchSql } from '../../src/retrieval/semantic'
import { searchVectorIndex, vectorSource } from '../../src/retrieval/vector-cache'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { SCIENCE_WORDS, seededText } from './cache-corpus'
import { search } from './search.fixtures'

let t: TestApp
let u: TestUser
let other: string
const ids: string[] = []

beforeAll(async () => {
  t = await createTestApp({
    env: { EMBEDDING_PROVIDER: 'hash', KEYWORD_MEMORY_MIN_DOCUMENTS: '1', VECTOR_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' },
  })
  u = await t.signUp()
  other = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })).body.id
  for (let i = 0; i < 30; i++) {
    const body = {
      title: `Study ${i}`,
      body: seededText(i + 1, 30, SCIENCE_WORDS),
      tags: i % 3 ? ['lab'] : [],
      ...(i % 2 ? { workspace_id: other } : {}),
    }
    const res = await t.json('POST', '/api/documents', { key: u.key, body })
    expect(res.status).toBe(201)
    ids.push(res.body.id)
  }
  await drainJobs(t.deps)
}, 120_000)
afterAll(() => t.close())

const shown = (body: Awaited<ReturnType<typeof search>>) => body.results.map((r) => [r.document.id, r.score.toFixed(6)])

describe('the rules both index caches keep', () => {
  test('a user whose vector index passes the budget is ranked in SQL, with the same results, and told why', async () => {
    const cache = t.deps.vectorCache
    try {
      t.deps.vectorCache = new IndexCache(vectorSource, { minDocuments: 1, maxBytes: 5_000, log: t.deps.log })
      expect(await t.deps.vectorCache.load(t.deps.db, u.id, t.deps.embedder!.id)).toBeNull()
      const over = await search(t, u, { q: 'vaccine immune response', mode: 'semantic', limit: 10 })
      expect(over.notice).toContain('semantic search ranked in the database')
      expect(over.notice).toContain('VECTOR_MEMORY_MAX_MB')
      t.deps.vectorCache = new IndexCache(vectorSource, { minDocuments: 1, maxBytes: 0, log: t.deps.log })
      const off = await search(t, u, { q: 'vaccine immune response', mode: 'semantic', limit: 10 })
      expect(off.notice).toBeUndefined()
      expect(shown(over)).toEqual(shown(off))
      expect(over.results.length).toBe(10)
    } finally {
      t.deps.vectorCache = cache
    }
  })

  test('an empty tag filters nothing, whichever index ranks', async () => {
    await t.deps.keywordCache.load(t.deps.db, u.id)
    await t.deps.vectorCache.load(t.deps.db, u.id, t.deps.embedder!.id)
    for (const mode of ['keyword', 'semantic'] as const) {
      const plain = await search(t, u, { q: 'vaccine immune', mode, limit: 20 })
      const emptyTag = await search(t, u, { q: 'vaccine immune', mode, limit: 20, tag: '' })
      expect({ mode, results: shown(emptyTag) }).toEqual({ mode, results: shown(plain) })
      expect(plain.results.length).toBeGreaterThan(5)
    }
  })

  test('a link job waits for an index only when the user is worth one (at least minDocuments)', async () => {
    const model = t.deps.embedder!.id
    const small = new IndexCache(vectorSource, { minDocuments: 1_000, maxBytes: 1 << 30, log: t.deps.log })
    expect(await small.ready(t.deps.db, u.id, model)).toBeNull()
    expect(small.isLoading(u.id)).toBe(false)
    const large = new IndexCache(keywordSource, { minDocuments: 1, maxBytes: 1 << 30, log: t.deps.log })
    expect(await large.ready(t.deps.db, u.id)).not.toBeNull()
  })

  test('one document asked for alone still has to pass the other conditions, cached or in SQL', async () => {
    const model = t.deps.embedder!.id
    const index = (await t.deps.vectorCache.load(t.deps.db, u.id, model))!
    const vector = (await embedQuery(t.deps.embedder!, 'vaccine immune response'))!
    const inOther = ids[1]! // filed in the other workspace
    const defaultWorkspace = (await t.json('GET', `/api/documents/${ids[0]}`, { key: u.key })).body.workspace_id
    for (const filter of [
      { onlyDocument: inOther },
      { onlyDocument: inOther, workspaceId: defaultWorkspace },
      { onlyDocument: inOther, tag: 'lab' },
    ]) {
      const fromSql = await semanticSearchSql(t.deps.db, u.id, model, vector, filterSql(u.id, filter), 5)
      const cached = searchVectorIndex(index, vector, filter, 5)!
      expect({ filter, ids: cached.map((h) => h.document_id) }).toEqual({ filter, ids: fromSql.map((h) => h.document_id) })
    }
    expect(searchVectorIndex(index, vector, { onlyDocument: inOther, workspaceId: defaultWorkspace }, 5)).toEqual([])
  })
})

describe('a load outrun by writes', () => {
  test('is dropped when more changed meanwhile than one catch-up reads; the index it was to replace keeps answering', async () => {
    const w = await t.signUp()
    const ingest = async (from: number, n: number) => {
      for (let i = 0; i < n; i += 500) {
        const documents = Array.from({ length: Math.min(500, n - i) }, (_, k) => ({
          title: `Note ${from + i + k}`,
          body: `platypus ${seededText(from + i + k, 12, SCIENCE_WORDS)}`,
        }))
        expect((await t.json('POST', '/api/documents/bulk', { key: w.key, body: { documents } })).status).toBe(200)
      }
    }
    await ingest(0, 20)
    // A keyword source whose load, once asked, lets 1,100 documents be written before it ends: more than a catch-up reads.
    let outrun = false
    const source: typeof keywordSource = {
      ...keywordSource,
      load: async (db, userId, key, maxBytes) => {
        const loaded = await keywordSource.load(db, userId, key, maxBytes)
        if (outrun) await ingest(20, 1_100)
        return loaded
      },
    }
    const cache = new IndexCache(source, { minDocuments: 1, maxBytes: 1 << 30, log: t.deps.log })
    const first = await cache.load(t.deps.db, w.id)
    expect(first?.documents).toBe(20)
    outrun = true
    expect(await cache.load(t.deps.db, w.id)).toBeNull()
    expect(cache.loads).toBe(1)
    // The first index is still the user's, as it was: the dropped load replaced nothing.
    expect(cache.lookup(t.deps.db, w.id, first!.version, 0)).toBe(first)
  }, 120_000)
})
