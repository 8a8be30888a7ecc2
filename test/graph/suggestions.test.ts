// Link suggestions and the graph: neighbours become pending links once indexed; people complete or remove
// them; removed ones never come back; the graph shows active documents and their links.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { drainJobs } from '../../src/jobs/worker'
import { suggestLinks } from '../../src/modules/documents/link-suggestions.service'
import { createTestApp, type TestApp, type TestUser } from '../harness'

const PAIR_A = 'Measles vaccination of young children sharply reduces hospital admissions for measles in winter.'
const PAIR_B = 'Vaccination of young children against measles sharply reduces winter hospital admissions for measles.'
const OTHER = 'A recipe for lemon cake with a crisp sugar glaze, baked for forty minutes.'

async function ingest(t: TestApp, u: TestUser, body: string, workspace_id?: string): Promise<string> {
  const res = await t.json('POST', '/api/documents', { key: u.key, body: { body, workspace_id } })
  expect(res.status).toBe(201)
  return res.body.id
}

const linksOf = async (t: TestApp, u: TestUser, id: string) =>
  (await t.json('GET', `/api/documents/${id}/links`, { key: u.key })).body.data as any[]

for (const [name, env] of [
  ['with embeddings (hash)', { EMBEDDING_PROVIDER: 'hash' }],
  ['without embeddings (keyword more-like-this)', { EMBEDDING_PROVIDER: 'none' }],
] as const) {
  describe(`link suggestions ${name}`, () => {
    let t: TestApp
    beforeAll(async () => {
      t = await createTestApp({ env })
    })
    afterAll(() => t.close())

    test('near-duplicates in a workspace become a pending suggestion with a score; an unrelated document does not', async () => {
      const u = await t.signUp()
      const a = await ingest(t, u, PAIR_A)
      const b = await ingest(t, u, PAIR_B)
      const other = await ingest(t, u, OTHER)
      expect(await linksOf(t, u, a)).toEqual([])
      await drainJobs(t.deps)
      const fromA = await linksOf(t, u, a)
      expect(fromA).toHaveLength(1)
      expect(fromA[0]).toMatchObject({ status: 'pending', origin: 'suggested', document: { id: b } })
      expect(fromA[0].score).toBeGreaterThan(0.3)
      expect(fromA[0].score).toBeLessThanOrEqual(1)
      expect(await linksOf(t, u, other)).toEqual([])
    })

    test('accepting completes it; removing dismisses it for good, even after the document is edited and re-indexed', async () => {
      const u = await t.signUp()
      const a = await ingest(t, u, PAIR_A)
      const b = await ingest(t, u, PAIR_B)
      await drainJobs(t.deps)
      expect((await t.json('POST', `/api/documents/${a}/link`, { key: u.key, body: { target_id: b } })).status).toBe(200)
      expect((await linksOf(t, u, b))[0]).toMatchObject({ status: 'completed', document: { id: a } })
      expect((await t.request('DELETE', `/api/documents/${a}/links/${b}`, { key: u.key })).status).toBe(204)
      await t.json('PATCH', `/api/documents/${a}`, { key: u.key, body: { body: PAIR_A + ' Updated.' } })
      await drainJobs(t.deps)
      expect(await linksOf(t, u, a)).toEqual([])
    })

    test("a thread's messages are neither given suggestions nor suggested, and stay out of the graph", async () => {
      const u = await t.signUp()
      const a = await ingest(t, u, PAIR_A)
      const thread = await t.json('POST', '/api/threads', {
        key: u.key,
        body: {
          messages: [
            { speaker: 'Al', content: PAIR_B },
            { speaker: 'Bo', content: PAIR_B + ' Indeed.' },
          ],
        },
      })
      const [m1] = thread.body.results.results.map((r: { document: { id: string } }) => r.document.id)
      await drainJobs(t.deps)
      expect(await linksOf(t, u, a)).toEqual([])
      expect(await linksOf(t, u, m1)).toEqual([])
      const workspace = thread.body.workspace_id
      const graph = await t.json('GET', `/api/graph?workspace_id=${workspace}`, { key: u.key })
      expect(graph.body.nodes.map((n: { id: string }) => n.id)).toEqual([a])
    })

    test("jobs run as a batch (two users' documents mixed) leave the links they leave one at a time, each user's among their own", async () => {
      const [u, v] = [await t.signUp(), await t.signUp()]
      const topics = [PAIR_A, PAIR_B, OTHER, `${OTHER} Served with cream.`, `${PAIR_A} In adults too.`, 'Lemon cake with cream, baked.']
      const ids: string[] = []
      for (const body of topics) ids.push(await ingest(t, u, body), await ingest(t, v, body))
      const ran = await drainJobs(t.deps)
      expect(ran).toBeGreaterThanOrEqual(ids.length)
      const linksNow = async () =>
        (
          await queryRows<{ user_id: string; source_id: string; target_id: string; score: number }>(
            t.deps.db,
            sql`select l.user_id, l.source_id, l.target_id, l.score from links l
                 where l.source_id = any(${`{${ids.join(',')}}`}::uuid[]) order by l.source_id, l.target_id`,
          )
        ).map((l) => ({ ...l, score: Number(l.score.toPrecision(6)) }))
      const batched = await linksNow()
      expect(batched.length).toBeGreaterThanOrEqual(4)
      const owner = new Map(ids.map((id, i) => [id, i % 2 ? v.id : u.id]))
      for (const l of batched) expect([owner.get(l.source_id), owner.get(l.target_id)]).toEqual([l.user_id, l.user_id])
      // One at a time, in the order the jobs were claimed (a pair two documents suggest is the later one's link).
      const jobs = await queryRows<{ document_id: string }>(
        t.deps.db,
        sql`select payload->>'document_id' as document_id from jobs
             where kind = 'suggest-links' and user_id in (${u.id}, ${v.id}) order by run_at, id`,
      )
      expect(jobs).toHaveLength(ids.length)
      for (const job of jobs) await suggestLinks(t.deps, job.document_id)
      expect(await linksNow()).toEqual(batched)
    })

    test('suggestions stay inside a workspace', async () => {
      const u = await t.signUp()
      const ws = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })).body.id
      const a = await ingest(t, u, PAIR_A)
      await ingest(t, u, PAIR_B, ws)
      await drainJobs(t.deps)
      expect(await linksOf(t, u, a)).toEqual([])
    })

    test("the graph shows a workspace's active documents and their links; archived ones and other workspaces are left out", async () => {
      const u = await t.signUp()
      const ws = (await t.json('GET', '/api/workspaces', { key: u.key })).body.data[0].id
      const a = await ingest(t, u, PAIR_A)
      const b = await ingest(t, u, PAIR_B)
      const c = await ingest(t, u, OTHER)
      await drainJobs(t.deps)
      await t.json('POST', `/api/documents/${a}/link`, { key: u.key, body: { target_id: c } })
      const graph = await t.json('GET', `/api/graph?workspace_id=${ws}`, { key: u.key })
      expect(graph.status).toBe(200)
      expect(graph.body.nodes.map((n: { id: string }) => n.id).sort()).toEqual([a, b, c].sort())
      const edges = graph.body.edges.map((e: any) => [e.status, [e.source, e.target].sort().join()])
      expect(edges).toContainEqual(['pending', [a, b].sort().join()])
      expect(edges).toContainEqual(['completed', [a, c].sort().join()])
      await t.json('POST', `/api/documents/${b}/archive`, { key: u.key })
      const after = await t.json('GET', `/api/graph?workspace_id=${ws}`, { key: u.key })
      expect(after.body.nodes.map((n: { id: string }) => n.id)).not.toContain(b)
      expect(after.body.edges.every((e: any) => e.source !== b && e.target !== b)).toBe(true)
    })

    test("another user's workspace is a 404; a missing workspace_id is a 400", async () => {
      const owner = await t.signUp()
      const stranger = await t.signUp()
      const ws = (await t.json('GET', '/api/workspaces', { key: owner.key })).body.data[0].id
      expect((await t.json('GET', `/api/graph?workspace_id=${ws}`, { key: stranger.key })).status).toBe(404)
      expect((await t.json('GET', '/api/graph', { key: stranger.key })).status).toBe(400)
    })
  })
}
