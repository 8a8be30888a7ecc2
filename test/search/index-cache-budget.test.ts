// The index caches' byte budget (KEYWORD_MEMORY_MAX_BYTES): a user whose copy alone would pass it is ranked in
// SQL — the same results — and the search response's notice says so; copies that fit share the budget, the
// least recently used going first; the old KEYWORD_MEMORY_MAX_POSTINGS still sets it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { loadConfig } from '../../src/config'
import { IndexCache } from '../../src/retrieval/index-cache'
import { keywordSource } from '../../src/retrieval/keyword-cache'
import { createTestApp, type TestApp, type TestUser } from '../harness'

const BUDGET = 6_000
let t: TestApp
let big: TestUser
let small: TestUser
let other: TestUser

const WORDS = ['vaccine', 'immune', 'response', 'protein', 'tumor', 'growth', 'signal', 'pathway', 'mouse', 'patient', 'trial', 'dose']
const text = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => `${WORDS[(i * 7 + k * 3) % WORDS.length]} word${i}x${k}`).join(' ')

async function ingest(user: TestUser, count: number, words: number) {
  for (let i = 0; i < count; i++) {
    const res = await t.json('POST', '/api/documents', { key: user.key, body: { title: `Doc ${i}`, body: text(i, words) } })
    expect(res.status).toBe(201)
  }
}
const version = async (userId: string) =>
  Number((await queryRows<{ v: number }>(t.deps.db, sql`select version::float8 as v from keyword_stats where user_id = ${userId}`))[0]!.v)
const search = (user: TestUser, q: string) =>
  t.json('GET', `/api/search?${new URLSearchParams({ q, mode: 'keyword', limit: '5' })}`, { key: user.key })

beforeAll(async () => {
  t = await createTestApp({ env: { KEYWORD_MEMORY_MIN_DOCUMENTS: '1', KEYWORD_MEMORY_MAX_BYTES: String(BUDGET), DEFAULT_PLAN: 'pro' } })
  ;[big, small, other] = [await t.signUp(), await t.signUp(), await t.signUp()]
  await ingest(big, 40, 30) // ~2,400 postings of distinct words: well past 6,000 bytes
  await ingest(small, 3, 4)
  await ingest(other, 3, 4)
})
afterAll(() => t.close())

describe('the index caches’ byte budget', () => {
  test('a user whose index would pass it is ranked in SQL, with the same results, and the notice says why', async () => {
    expect(await t.deps.keywordCache.load(t.deps.db, big.id)).toBeNull()
    const res = await search(big, 'vaccine immune')
    expect(res.status).toBe(200)
    expect(res.body.results.length).toBe(5)
    expect(res.body.notice).toContain('KEYWORD_MEMORY_MAX_BYTES')
    expect(res.body.notice).toContain('ranked in the database')
    // The same results as with the copies off altogether (ranked in SQL, no notice).
    const off = t.deps.keywordCache
    t.deps.keywordCache = new IndexCache(keywordSource, { minDocuments: 1, maxBytes: 0, log: t.deps.log })
    const plain = await search(big, 'vaccine immune')
    t.deps.keywordCache = off
    expect(plain.body.notice).toBeUndefined()
    expect(res.body.results).toEqual(plain.body.results)
    // Nothing was kept for that user, and searching again does not start another load at once.
    expect(t.deps.keywordCache.lookup(t.deps.db, big.id, await version(big.id), 40)).toBeNull()
    expect(t.deps.keywordCache.bytes).toBeLessThanOrEqual(BUDGET)
  })

  test('an index that fits is used, says nothing, and counts toward the budget by what it holds', async () => {
    const copy = await t.deps.keywordCache.load(t.deps.db, small.id)
    expect(copy).not.toBeNull()
    expect(copy!.bytes).toBeGreaterThan(6 * copy!.postings)
    expect(copy!.bytes).toBeLessThanOrEqual(BUDGET)
    const res = await search(small, 'vaccine')
    expect(res.body.results.length).toBeGreaterThan(0)
    expect(res.body.notice).toBeUndefined()
    expect(t.deps.keywordCache.lookup(t.deps.db, small.id, await version(small.id), 3)).toBe(copy)
  })

  test('indexes that fit alone but not together: the least recently used goes', async () => {
    const [first, second] = [await t.deps.keywordCache.load(t.deps.db, small.id), await t.deps.keywordCache.load(t.deps.db, other.id)]
    // A budget that holds either copy but not both.
    const memory = new IndexCache(keywordSource, { minDocuments: 1, maxBytes: Math.max(first!.bytes, second!.bytes) + 1, log: t.deps.log })
    expect(first!.bytes + second!.bytes).toBeGreaterThan(memory.maxBytes)
    expect(await memory.load(t.deps.db, small.id)).not.toBeNull()
    expect(await memory.load(t.deps.db, other.id)).not.toBeNull()
    expect(memory.lookup(t.deps.db, other.id, await version(other.id), 3)).not.toBeNull()
    expect(memory.bytes).toBe(second!.bytes)
    // Asked last: asking for the evicted copy starts its reload in the background, which would evict the other in
    // turn (the failure this test once had on PostgreSQL, where that load could finish before the next line).
    expect(memory.lookup(t.deps.db, small.id, await version(small.id), 3)).toBeNull()
    expect(t.deps.keywordCache.tooLargeNotice(small.id)).toBeUndefined()
  })

  test('KEYWORD_MEMORY_MAX_POSTINGS, the old setting, still sets it (8 bytes a posting); 0 turns the cache off', () => {
    expect(loadConfig({ DATA_DIR: 'memory://', KEYWORD_MEMORY_MAX_POSTINGS: '1000' }).keywordCache.maxBytes).toBe(8000)
    expect(loadConfig({ DATA_DIR: 'memory://', KEYWORD_MEMORY_MAX_POSTINGS: '0' }).keywordCache.maxBytes).toBe(0)
    expect(loadConfig({ DATA_DIR: 'memory://' }).keywordCache.maxBytes).toBe(256 * 1024 ** 2)
    expect(() => loadConfig({ DATA_DIR: 'memory://', KEYWORD_MEMORY_MAX_BYTES: '-1' })).toThrow('KEYWORD_MEMORY_MAX_BYTES')
  })
})
