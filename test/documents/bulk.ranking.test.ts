// A corpus ingested in bulk searches exactly like the same corpus ingested one by one: same documents in the
// same order with the same scores — and as the per-document indexer (keyword-index.ts) would: bulk writes the
// same chunks, postings and BM25 statistics.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { documents } from '../../db/schema'
import { indexKeywords } from '../../src/retrieval/keyword-index'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { seededText } from '../search/cache-corpus'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

/** Seeded words in sentences of nine, so chunks end on sentence breaks as real text does. */
const text = (seed: number, length: number) =>
  seededText(seed, length)
    .split(' ')
    .map((word, i) => (i % 9 === 8 ? `${word} .\n` : word))
    .join(' ')

// Bodies past one chunk (1,200 characters) too, so spans and overlaps count.
const corpus = Array.from({ length: 60 }, (_, i) => ({
  title: `Study ${i} ${text(i + 500, 3)}`,
  body: text(i, 20 + (i % 9) * 40),
  tags: i % 3 === 0 ? ['lab', text(i + 900, 1)] : [],
}))

const QUERIES = ['vaccine', 'immune response', 'tumor growth signal', 'kinase binding receptor', 'vacc', 'patient dose ri', 'lab']

async function ranking(u: TestUser, q: string) {
  const res = await t.json('GET', `/api/search?mode=keyword&limit=50&q=${encodeURIComponent(q)}`, { key: u.key })
  expect(res.status).toBe(200)
  return res.body.results.map((r: { document: { title: string }; score: number }) => [r.document.title, r.score])
}

test('bulk and one-by-one ingest rank the same corpus identically', async () => {
  const [single, batched] = [await t.signUp(), await t.signUp()]
  for (const doc of corpus) expect((await t.json('POST', '/api/documents', { key: single.key, body: doc })).status).toBe(201)
  for (const part of [corpus.slice(0, 25), corpus.slice(25)]) {
    const res = await t.json('POST', '/api/documents/bulk', { key: batched.key, body: { documents: part } })
    expect(res.body.created).toBe(part.length)
  }
  for (const q of QUERIES) {
    const expected = await ranking(single, q)
    expect(expected.length).toBeGreaterThan(0)
    expect({ q, ranking: await ranking(batched, q) }).toEqual({ q, ranking: expected })
  }
  // And as the per-document indexer (the one PATCH re-indexes with) writes them: re-indexed that way, nothing moves.
  const before = await Promise.all(QUERIES.map((q) => ranking(batched, q)))
  await t.deps.db.transaction(async (tx) => {
    for (const doc of await tx.select().from(documents).where(eq(documents.user_id, batched.id)))
      await indexKeywords(tx, doc, t.deps.ids.next)
  })
  expect(await Promise.all(QUERIES.map((q) => ranking(batched, q)))).toEqual(before)
})
