// The cached index of a user's keyword index is an accelerator only: on a corpus with every status, pins,
// ratings, tags, kinds and two workspaces, it ranks exactly as the SQL ranking does — same documents, same
// order, same scores — for plain, prefix and filtered queries; and a write is caught up before the next search
// answers, so search never answers from an outdated copy (keyword-memory-delta.test.ts goes through every write).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { documents } from '../../db/schema'
import { queryRows } from '../../db/client'
import { analyzeQuery, keywordSearchSql } from '../../src/retrieval/keyword'
import { searchKeywordIndex } from '../../src/retrieval/keyword-cache-rank'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { SCIENCE_WORDS, ingestStudies, seededText, sqlFilter, studyFilters } from './cache-corpus'

let t: TestApp
let u: TestUser
let other: string
let docs: Record<number, string> = {}

// A small vocabulary, so documents share words (real document frequencies) and queries match many of them.
// Several share a prefix ("ops", "options", "operators", "opsgenie"…), so a prefix expands to many terms of one
// document, exactly and not.
const WORDS = [...SCIENCE_WORDS, 'ops', 'options', 'operators', 'opsgenie', 'optimal', 'rec', 'recall']
const text = (seed: number, length: number) => seededText(seed, length, WORDS)

beforeAll(async () => {
  t = await createTestApp({ env: { KEYWORD_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' } })
  u = await t.signUp()
  other = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })).body.id
  docs = await ingestStudies(t, u, other, (i) => ({ title: `Study ${i} ${text(i + 1000, 3)}`, body: text(i, 20 + (i % 7) * 15) }))
  await t.json('POST', '/api/memories/batch-draft', {
    key: u.key,
    body: { learnings: [{ kind: 'fact', title: 'Draft', body: text(77, 40) }] },
  })
})
afterAll(() => t.close())

const QUERIES = [
  'vaccine immune response',
  'tumor growth signal pathway kinase',
  'mouse',
  'patient trial dose risk',
  'vacc',
  'gene expression recep',
  'protein cell binding receptor immune tumor',
  'study',
  'nothingmatches here',
  // Prefixes with an exact term and many expansions; an expansion another word has exactly; a prefix-only word.
  'ops',
  'op',
  'opt',
  'kinase ops',
  'operators ops',
  'rec',
  'recall rec',
  'dose opsg',
]
describe('the cached keyword index', () => {
  test('ranks exactly as the SQL ranking: same documents, order, scores, boosts and matched words, prefixes included', async () => {
    const copy = await t.deps.keywordCache.load(t.deps.db, u.id)
    expect(copy).not.toBeNull()
    let compared = 0
    for (const q of QUERIES) {
      const terms = await analyzeQuery(t.deps.db, q)
      for (const f of studyFilters(other, docs)) {
        for (const limit of [5, 50]) {
          const fromSql = await keywordSearchSql(t.deps.db, u.id, terms, sqlFilter(u.id, f), limit)
          const fromMemory = searchKeywordIndex(copy!, terms, f, limit)
          expect(fromMemory.map((h) => h.document_id)).toEqual(fromSql.map((h) => h.document_id))
          fromMemory.forEach((h, i) => {
            expect(h.score).toBeCloseTo(fromSql[i]!.score, 9)
            expect(h.boost).toBeCloseTo(fromSql[i]!.boost, 9)
            expect(h.matched_terms).toBe(fromSql[i]!.matched_terms)
          })
          compared += fromSql.length
        }
      }
    }
    // The comparison covered real result lists, not empty ones.
    expect(compared).toBeGreaterThan(500)
  })

  test('is never stale: the next search catches up with a write, and work ranking does not read changes nothing', async () => {
    const memory = t.deps.keywordCache
    await memory.load(t.deps.db, u.id)
    const version = async () =>
      Number(
        (await queryRows<{ v: number }>(t.deps.db, sql`select version::float8 as v from keyword_stats where user_id = ${u.id}`))[0]?.v ??
          NaN,
      )
    const [docs0] = [await t.json('GET', '/api/search?q=vaccine&mode=keyword&limit=3', { key: u.key })]
    expect(docs0.body.results.length).toBe(3)
    expect(memory.lookup(t.deps.db, u.id, await version(), 1000)).not.toBeNull()

    // A new document with a word no other has: the copy is behind at once, and the search finds it all the same —
    // from the copy, caught up by the write's delta, not reloaded.
    const [loads, catchUps] = [memory.loads, memory.catchUps]
    const added = await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Quokka', body: 'quokka vaccine field study' } })
    expect(memory.lookup(t.deps.db, u.id, await version(), 1000)).toBeNull()
    const found = await t.json('GET', '/api/search?q=quokka&mode=keyword', { key: u.key })
    expect(found.body.results.map((r: any) => r.document.id)).toEqual([added.body.id])
    expect([memory.loads, memory.catchUps]).toEqual([loads, catchUps + 1])
    expect(memory.lookup(t.deps.db, u.id, await version(), 1000)).not.toBeNull()

    // Archiving changes no posting, but the copy holds statuses: the archived one is gone from the next search.
    await t.json('POST', `/api/documents/${added.body.id}/archive`, { key: u.key })
    expect((await t.json('GET', '/api/search?q=quokka&mode=keyword', { key: u.key })).body.results).toEqual([])
    // Work that changes nothing ranking reads (an embedding job marking documents indexed) keeps the copy current.
    await memory.current(t.deps.db, u.id)
    await t.deps.db.update(documents).set({ index_status: 'indexed', updated_at: new Date() }).where(eq(documents.user_id, u.id))
    expect(memory.lookup(t.deps.db, u.id, await version(), 1000)).not.toBeNull()
    // Reloaded, the copy agrees.
    const copy = await memory.load(t.deps.db, u.id)
    expect(searchKeywordIndex(copy!, await analyzeQuery(t.deps.db, 'quokka'), {}, 10)).toEqual([])
  })
  test('follows a bulk ingest: caught up in the background as its groups commit, so the search after it reads no change', async () => {
    const cache = t.deps.keywordCache
    await cache.load(t.deps.db, u.id)
    const catchUps = cache.catchUps
    const added = Array.from({ length: 120 }, (_, i) => ({ title: `Wombat ${i}`, body: `wombat burrow ${text(500 + i, 30)}` }))
    expect((await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents: added } })).status).toBe(200)
    // The write's catch-up may end after the answer: a bounded number of turns for it.
    for (let i = 0; i < 500 && cache.catchUps === catchUps; i++) await Bun.sleep(10)
    expect(cache.catchUps).toBeGreaterThan(catchUps)
    const [stats] = await queryRows<{ v: number }>(t.deps.db, sql`select version::float8 as v from keyword_stats where user_id = ${u.id}`)
    expect(cache.lookup(t.deps.db, u.id, Number(stats!.v), 1000)).not.toBeNull()
    const searched = cache.catchUps
    const found = await t.json('GET', '/api/search?q=wombat&mode=keyword&limit=50', { key: u.key })
    expect(found.body.results.length).toBe(50)
    expect(cache.catchUps).toBe(searched)
  })
})
