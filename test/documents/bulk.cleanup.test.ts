// What a bulk ingest writes goes when its documents go: postings have no foreign key (migration 0023), so a
// trigger deletes them with their document — one by one, in bulk, with a workspace or with the account — and
// the BM25 statistics (keyword_stats) and storage totals stay exact, counted per statement (migration 0025).
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { createWorkspace, uniqueBody } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

const docs = (n: number, workspace_id?: string) =>
  Array.from({ length: n }, (_, i) => ({
    title: `Note ${i}`,
    body: `${uniqueBody('heron')} grey heron wading ${'reed '.repeat(i)}`,
    ...(workspace_id ? { workspace_id } : {}),
  }))

async function bulk(u: TestUser, documents: unknown[]): Promise<string[]> {
  const res = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })
  expect(res.body.failed).toBe(0)
  return res.body.results.map((r: { document: { id: string } }) => r.document.id)
}

/** The user's stored statistics beside what they must equal, computed from the rows themselves. */
async function books(u: TestUser) {
  const [row] = await queryRows<Record<string, number>>(
    t.deps.db,
    sql`select
      (select count(*)::int from postings where user_id = ${u.id}) as postings,
      (select count(*)::int from postings p where p.user_id = ${u.id} and not exists (select 1 from documents d where d.id = p.document_id)) as orphans,
      (select documents from keyword_stats where user_id = ${u.id}) as stats_documents,
      (select count(*)::int from documents where user_id = ${u.id} and keyword_len > 0) as documents,
      (select total_len::float8 from keyword_stats where user_id = ${u.id}) as stats_len,
      (select coalesce(sum(keyword_len), 0)::float8 from documents where user_id = ${u.id}) as len,
      (select bytes::float8 from storage_totals where user_id = ${u.id}) as stats_bytes,
      (select coalesce(sum(size_bytes), 0)::float8 from documents where user_id = ${u.id}) as bytes`,
  )
  return row!
}

const exact = (b: Record<string, number>) => {
  expect(b.orphans).toBe(0)
  expect([b.stats_documents, b.stats_len, b.stats_bytes]).toEqual([b.documents, b.len, b.bytes])
}

test('deleting one, several, or a workspace of bulk-ingested documents leaves no postings and exact statistics', async () => {
  const u = await t.signUp()
  const ids = await bulk(u, docs(12))
  const other = await createWorkspace(t, u)
  await bulk(u, docs(5, other))
  const start = await books(u)
  expect(start.documents).toBe(17)
  expect(start.postings).toBeGreaterThan(17)
  exact(start)

  expect((await t.request('DELETE', `/api/documents/${ids[0]}`, { key: u.key })).status).toBe(204)
  exact(await books(u))
  expect((await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: ids.slice(1, 6) } })).body.deleted).toHaveLength(5)
  exact(await books(u))
  expect((await t.request('DELETE', `/api/workspaces/${other}`, { key: u.key })).status).toBe(204)
  const end = await books(u)
  exact(end)
  expect(end.documents).toBe(6)
  const found = await t.json('GET', '/api/search?mode=keyword&q=heron', { key: u.key })
  expect(found.body.results.map((r: { document: { id: string } }) => r.document.id).sort()).toEqual(ids.slice(6).sort())
})

test('deleting the account leaves none of its postings', async () => {
  const u = await t.signUp()
  await bulk(u, docs(8))
  expect((await books(u)).postings).toBeGreaterThan(0)
  expect((await t.request('DELETE', '/api/account', { cookie: u.cookie, body: { confirm: 'DELETE' } })).status).toBe(204)
  const [left] = await queryRows<{ n: number }>(t.deps.db, sql`select count(*)::int as n from postings where user_id = ${u.id}`)
  expect(left!.n).toBe(0)
})
