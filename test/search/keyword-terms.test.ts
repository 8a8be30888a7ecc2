// A document's postings are found through its terms (document_terms, migrations 0031–0032) — postings have no index by
// document — so the two must agree after every write: ingested in bulk or alone, edited (re-indexed), ingested
// again as a duplicate, deleted alone, in bulk, with a workspace or with the account — each listed term with its tf
// (what a cached index catching up reads). A term a document lost is gone from keyword search at once, and nothing
// is left behind.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { createWorkspace, uniqueBody } from '../documents/documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

/** The user's postings against the terms listed for their documents, and the documents against both. */
async function agreement(u: TestUser) {
  const [row] = await queryRows<Record<string, number>>(
    t.deps.db,
    sql`with listed as (select t.document_id, u.term, u.tf from document_terms t cross join unnest(t.terms, t.tfs) as u(term, tf) where t.user_id = ${u.id}),
      posted as (select document_id, term::text as term, tf from postings where user_id = ${u.id})
    select
      (select count(*)::int from posted) as postings,
      (select count(*)::int from (select * from posted except select * from listed) x) as unlisted,
      (select count(*)::int from (select * from listed except select * from posted) x) as unposted,
      (select count(*)::int from listed) - (select count(*)::int from (select distinct * from listed) x) as repeated,
      (select count(*)::int from document_terms t where t.user_id = ${u.id} and not exists (select 1 from documents d where d.id = t.document_id)) as orphans,
      (select count(*)::int from documents d where d.user_id = ${u.id} and d.keyword_len > 0
         and not exists (select 1 from document_terms t where t.document_id = d.id)) as unlisted_documents,
      (select count(*)::int from documents d where d.user_id = ${u.id} and d.keyword_len <> coalesce((select sum(p.tf) from postings p
         where p.user_id = d.user_id and p.document_id = d.id), 0)) as wrong_lengths`,
  )
  return row!
}

async function expectAgreement(u: TestUser) {
  const { postings, ...mismatches } = await agreement(u)
  expect(postings).toBeGreaterThan(0)
  expect(mismatches).toEqual({ unlisted: 0, unposted: 0, repeated: 0, orphans: 0, unlisted_documents: 0, wrong_lengths: 0 })
}

const found = async (u: TestUser, q: string) =>
  (await t.json('GET', `/api/search?mode=keyword&q=${encodeURIComponent(q)}`, { key: u.key })).body.results.map(
    (r: { document: { id: string } }) => r.document.id,
  )

test('postings and listed terms agree through ingest, edits, duplicates and deletions, and a lost term stops matching', async () => {
  const u = await t.signUp()
  const other = await createWorkspace(t, u)
  const bulk = await t.json('POST', '/api/documents/bulk', {
    key: u.key,
    body: {
      documents: Array.from({ length: 8 }, (_, i) => ({
        title: `Kingfisher ${i}`,
        body: `${uniqueBody('kingfisher')} river kingfisher diving ${'willow '.repeat(i)}`,
        tags: i % 2 ? ['perch'] : [],
        ...(i >= 6 ? { workspace_id: other } : {}),
      })),
    },
  })
  expect(bulk.body.created).toBe(8)
  const ids: string[] = bulk.body.results.map((r: { document: { id: string } }) => r.document.id)
  const alone = await t.json('POST', '/api/documents', {
    key: u.key,
    body: { title: 'Dipper', body: `${uniqueBody('dipper')} a dipper walks under water` },
  })
  expect(alone.status).toBe(201)
  await expectAgreement(u)

  // An edit re-indexes: the words only the old title and body had are gone, the new ones match.
  const edited = await t.json('PATCH', `/api/documents/${ids[1]}`, {
    key: u.key,
    body: { title: 'Cormorant', body: 'a cormorant drying its wings', tags: [] },
  })
  expect(edited.status).toBe(200)
  await expectAgreement(u)
  expect(await found(u, 'cormorant')).toEqual([ids[1]])
  expect(await found(u, 'perch')).not.toContain(ids[1])
  expect(await found(u, 'kingfisher')).not.toContain(ids[1])

  // The same text again under the same title is the same document, updated in place (200) and re-indexed.
  const again = await t.json('POST', '/api/documents', {
    key: u.key,
    body: { title: 'Cormorant', body: 'a cormorant drying its wings', tags: ['shag'] },
  })
  expect([again.status, again.body.id]).toEqual([200, ids[1]])
  await expectAgreement(u)
  expect(await found(u, 'shag')).toEqual([ids[1]])

  expect((await t.request('DELETE', `/api/documents/${ids[0]}`, { key: u.key })).status).toBe(204)
  await expectAgreement(u)
  expect((await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: ids.slice(2, 4) } })).body.deleted).toHaveLength(2)
  await expectAgreement(u)
  expect((await t.request('DELETE', `/api/workspaces/${other}`, { key: u.key })).status).toBe(204)
  await expectAgreement(u)
  expect((await found(u, 'kingfisher')).sort()).toEqual(ids.slice(4, 6).sort())

  expect((await t.request('DELETE', '/api/account', { cookie: u.cookie, body: { confirm: 'DELETE' } })).status).toBe(204)
  const [left] = await queryRows<{ postings: number; terms: number }>(
    t.deps.db,
    sql`select (select count(*)::int from postings where user_id = ${u.id}) as postings,
      (select count(*)::int from document_terms where user_id = ${u.id}) as terms`,
  )
  expect(left).toEqual({ postings: 0, terms: 0 })
})
