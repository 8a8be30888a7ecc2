// "More like this" (link suggestions without embeddings) answers the same whether the user's cached keyword index
// ranks it or SQL does: the same distinctive terms in the same order, and the same neighbours with the same scores —
// for every document of a corpus with terms below and past the cap on counting document frequencies, titles and
// tags weighing more, messages (weighted with their context), and after edits and deletes have left deltas and
// dead documents in the index.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { distinctiveTermsIn, distinctiveTermsSql, moreLikeThese, moreLikeThis } from '../../src/retrieval/more-like-this'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { seededRandom } from '../seeded-random'
import { SCIENCE_WORDS } from './cache-corpus'

let t: TestApp
let u: TestUser
const r = seededRandom(41)
// Common words (past the cap of 100 documents), middling ones and rare ones.
const COMMON = SCIENCE_WORDS.slice(0, 3)
const RARE = Array.from({ length: 300 }, (_, i) => `${SCIENCE_WORDS[i % SCIENCE_WORDS.length]}${(i * 7919).toString(36)}`)
const text = (n: number) =>
  Array.from({ length: n }, () => (r.next() < 0.3 ? r.pick(COMMON) : r.next() < 0.6 ? r.pick(SCIENCE_WORDS) : r.pick(RARE))).join(' ')

beforeAll(async () => {
  t = await createTestApp({ env: { KEYWORD_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' } })
  u = await t.signUp()
  const documents = Array.from({ length: 160 }, () => ({
    title: text(3),
    body: text(20 + r.int(80)),
    tags: r.next() < 0.3 ? [r.pick(RARE)] : [],
  }))
  expect((await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })).status).toBe(200)
  const thread = await t.json('POST', '/api/threads', {
    key: u.key,
    body: { title: 'Lab chat', messages: Array.from({ length: 12 }, (_, i) => ({ speaker: i % 2 ? 'Ana' : 'Ben', content: text(8) })) },
  })
  expect(thread.status).toBe(201)
})
afterAll(() => t.close())

/** Scores to 9 significant digits: SQL sums a document's word scores in no set order (the last bits may differ). */
const rounded = (hits: { document_id: string; score: number }[]) => hits.map((h) => ({ ...h, score: Number(h.score.toPrecision(9)) }))

async function expectSameTerms(): Promise<number> {
  const documents = await queryRows<{ id: string; user_id: string; workspace_id: string; terms: string[]; tfs: number[] }>(
    t.deps.db,
    sql`select d.id, d.user_id, d.workspace_id, t.terms, t.tfs from documents d join document_terms t on t.document_id = d.id
         where d.user_id = ${u.id} order by d.id`,
  )
  const index = await t.deps.keywordCache.current(t.deps.db, u.id)
  let compared = 0
  for (const doc of documents) {
    const inSql = await distinctiveTermsSql(t.deps.db, u.id, doc.id, 12)
    expect(distinctiveTermsIn(index!, doc, 12)).toEqual(inSql)
    const neighbours = await moreLikeThis(t.deps.db, doc, 5, t.deps.keywordCache)
    expect(rounded(neighbours)).toEqual(rounded(await moreLikeThis(t.deps.db, doc, 5, null)))
    compared += inSql.length + neighbours.length
  }
  return compared
}

test('the cached index picks the same terms as SQL, in the same order, and the same neighbours, for every document', async () => {
  await t.deps.keywordCache.load(t.deps.db, u.id)
  expect(await expectSameTerms()).toBeGreaterThan(1000)
}, 60_000)

test('also once edits and deletes left deltas and dead documents in the index', async () => {
  const ids = (
    await queryRows<{ id: string }>(t.deps.db, sql`select id from documents where user_id = ${u.id} and kind <> 'message' limit 15`)
  ).map((d) => d.id)
  for (const id of ids.slice(0, 10))
    expect((await t.json('PATCH', `/api/documents/${id}`, { key: u.key, body: { body: text(30) } })).status).toBe(200)
  for (const id of ids.slice(10, 15)) expect((await t.json('DELETE', `/api/documents/${id}`, { key: u.key })).status).toBe(204)
  const index = await t.deps.keywordCache.current(t.deps.db, u.id)
  expect(index!.segments.length).toBeGreaterThan(1)
  expect(await expectSameTerms()).toBeGreaterThan(1000)
}, 60_000)

test("many documents at once (a batch of jobs), two users' mixed, get each what one at a time gets", async () => {
  const v = await t.signUp()
  const documents = Array.from({ length: 40 }, () => ({ title: text(3), body: text(20 + r.int(40)) }))
  expect((await t.json('POST', '/api/documents/bulk', { key: v.key, body: { documents } })).status).toBe(200)
  const docs = await queryRows<{ id: string; user_id: string; workspace_id: string }>(
    t.deps.db,
    sql`select id, user_id, workspace_id from documents where user_id in (${u.id}, ${v.id}) order by md5(id::text)`,
  )
  expect(new Set(docs.map((d) => d.user_id)).size).toBe(2)
  for (const cache of [t.deps.keywordCache, null]) {
    const together = await moreLikeThese(t.deps.db, docs, 5, cache)
    let found = 0
    for (const doc of docs) {
      const alone = await moreLikeThis(t.deps.db, doc, 5, cache)
      expect(rounded(together.get(doc.id)!)).toEqual(rounded(alone))
      found += alone.length
    }
    expect(found).toBeGreaterThan(500)
  }
}, 60_000)
