// Every indexed write (ingest, content PATCH, batch draft) enqueues exactly one embed-document job for the
// document, in the writer's transaction; a PATCH that changes no content enqueues none; forget purges them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { count, eq, sql } from 'drizzle-orm'
import { chunks, documents, jobs } from '../../db/schema'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { indexStatus, ingest, jobsFor, patch, uniqueBody } from './jobs.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const queuedFor = async (id: string) => (await jobsFor(t.deps, id)).filter((j) => j.status === 'queued')

async function workspaceOf(u: TestUser): Promise<string> {
  const res = await t.json('GET', '/api/workspaces', { key: u.key })
  return res.body.data[0].id
}

describe('ingest', () => {
  test('a new document gets exactly one queued embed-document job, due now, owned by its user', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    expect(doc.index_status).toBe('pending')
    const list = await jobsFor(t.deps, doc.id)
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({
      kind: 'embed-document',
      payload: { document_id: doc.id },
      user_id: u.id,
      status: 'queued',
      attempts: 0,
      max_attempts: 5,
      locked_at: null,
      locked_by: null,
      last_error: null,
    })
    expect(list[0]!.run_at.getTime()).toBe(t.clock.now().getTime())
  })

  test('an ingest that deduplicates onto an existing document enqueues one more job for that document', async () => {
    const u = await t.signUp()
    const url = `https://example.com/${crypto.randomUUID()}`
    const first = await ingest(t, u, { url })
    await drainJobs(t.deps)
    expect(await indexStatus(t.deps, first.id)).toBe('indexed')

    const again = await t.json('POST', '/api/documents', { key: u.key, body: { url, body: uniqueBody('changed page') } })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: first.id, deduplicated: true, index_status: 'pending' })
    const list = await jobsFor(t.deps, first.id)
    expect(list.map((j) => j.status)).toEqual(['succeeded', 'queued'])
  })
})

describe('PATCH', () => {
  test('each content change (body, title, excerpt, tags) enqueues exactly one job', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    await drainJobs(t.deps)

    const changes: Record<string, unknown>[] = [
      { body: uniqueBody('rewritten') },
      { title: 'A new title' },
      { excerpt: 'A hand-written excerpt' },
      { tags: ['x', 'y'] },
    ]
    for (const [i, change] of changes.entries()) {
      const res = await patch(t, u, doc.id, change)
      expect(res.index_status).toBe('pending')
      const queued = await queuedFor(doc.id)
      expect(queued).toHaveLength(1)
      expect(queued[0]!.payload).toEqual({ document_id: doc.id })
      expect(await jobsFor(t.deps, doc.id)).toHaveLength(i + 2)
      await drainJobs(t.deps)
      expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    }
  })

  test('a PATCH of only `pinned` enqueues nothing and leaves index_status as it was', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    await drainJobs(t.deps)
    const before = await jobsFor(t.deps, doc.id)
    expect(before).toHaveLength(1)

    const res = await patch(t, u, doc.id, { pinned: true })
    expect(res).toMatchObject({ pinned: true, index_status: 'indexed' })
    expect(await jobsFor(t.deps, doc.id)).toHaveLength(1)
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
  })

  test('a PATCH that repeats the current content enqueues nothing', async () => {
    const u = await t.signUp()
    const body = uniqueBody('same')
    const doc = await ingest(t, u, { body, title: 'Same title' })
    await patch(t, u, doc.id, { body, title: 'Same title' })
    expect(await jobsFor(t.deps, doc.id)).toHaveLength(1)
  })
})

describe('batch draft', () => {
  test('every draft of a batch gets exactly one job of its own', async () => {
    const u = await t.signUp()
    const ws = await workspaceOf(u)
    const learnings = [1, 2, 3].map((n) => ({ kind: 'fact', title: `Learning ${n}`, body: uniqueBody(`learning ${n}`) }))
    const res = await t.json('POST', '/api/memories/batch-draft', { key: u.key, body: { workspace_id: ws, learnings } })
    expect(res.status).toBe(201)
    const drafts = res.body.data as { id: string }[]
    expect(drafts).toHaveLength(3)
    for (const d of drafts) {
      const list = await jobsFor(t.deps, d.id)
      expect(list).toHaveLength(1)
      expect(list[0]).toMatchObject({ kind: 'embed-document', status: 'queued', user_id: u.id })
    }
    // Drafts are indexed like any document (filtered out of search by status until approved).
    await drainJobs(t.deps)
    for (const d of drafts) expect(await indexStatus(t.deps, d.id)).toBe('indexed')
  })
})

describe('the job is written in the same transaction as the document', () => {
  // Enqueueing is made to fail (a check constraint on jobs); if the job were written outside the writer's
  // transaction, the document write would survive without its job.
  async function refuseJobs<T>(run: () => Promise<T>): Promise<T> {
    await t.deps.db.execute(sql`alter table jobs add constraint test_refuse_embed check (kind <> 'embed-document') not valid`)
    try {
      return await run()
    } finally {
      await t.deps.db.execute(sql`alter table jobs drop constraint test_refuse_embed`)
    }
  }
  const docsOf = async (userId: string) =>
    (await t.deps.db.select({ n: count() }).from(documents).where(eq(documents.user_id, userId)))[0]!.n
  const chunksOfUser = async (userId: string) =>
    (await t.deps.db.select({ n: count() }).from(chunks).where(eq(chunks.user_id, userId)))[0]!.n
  const jobsOfUser = async (userId: string) => (await t.deps.db.select({ n: count() }).from(jobs).where(eq(jobs.user_id, userId)))[0]!.n

  test('ingest: no job, no document, no chunks', async () => {
    const u = await t.signUp()
    const res = await refuseJobs(() => t.json('POST', '/api/documents', { key: u.key, body: { body: uniqueBody() } }))
    expect(res.status).toBe(500)
    expect(await docsOf(u.id)).toBe(0)
    expect(await chunksOfUser(u.id)).toBe(0)
    expect(await jobsOfUser(u.id)).toBe(0)
  })

  test('PATCH: the content change is rolled back with the job', async () => {
    const u = await t.signUp()
    const body = uniqueBody('original')
    const doc = await ingest(t, u, { body })
    await drainJobs(t.deps)
    const chunkIds = (await t.deps.db.select({ id: chunks.id }).from(chunks).where(eq(chunks.document_id, doc.id))).map((c) => c.id)

    const res = await refuseJobs(() => t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body: { body: uniqueBody('new') } }))
    expect(res.status).toBe(500)
    const [row] = await t.deps.db.select().from(documents).where(eq(documents.id, doc.id))
    expect(row).toMatchObject({ body, index_status: 'indexed' })
    expect((await t.deps.db.select({ id: chunks.id }).from(chunks).where(eq(chunks.document_id, doc.id))).map((c) => c.id)).toEqual(
      chunkIds,
    )
    expect(await jobsFor(t.deps, doc.id)).toHaveLength(1)
  })

  test('batch draft: no draft of the batch is stored', async () => {
    const u = await t.signUp()
    const ws = await workspaceOf(u)
    const learnings = [1, 2].map((n) => ({ kind: 'fact', title: `L${n}`, body: uniqueBody(`draft ${n}`) }))
    const res = await refuseJobs(() => t.json('POST', '/api/memories/batch-draft', { key: u.key, body: { workspace_id: ws, learnings } }))
    expect(res.status).toBe(500)
    expect(await docsOf(u.id)).toBe(0)
    expect(await jobsOfUser(u.id)).toBe(0)
  })
})

describe('forget and delete', () => {
  test("forget deletes the document's queued jobs and leaves other documents' jobs", async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    await patch(t, u, doc.id, { body: uniqueBody('edited') })
    const other = await ingest(t, u)
    expect(await queuedFor(doc.id)).toHaveLength(2)

    const res = await t.request('POST', `/api/documents/${doc.id}/forget`, { key: u.key })
    expect(res.status).toBe(204)
    expect(await jobsFor(t.deps, doc.id)).toEqual([])
    expect(await queuedFor(other.id)).toHaveLength(1)
  })

  test('forget also purges the finished jobs that named the document', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    await drainJobs(t.deps)
    expect((await jobsFor(t.deps, doc.id)).map((j) => j.status)).toEqual(['succeeded'])
    expect((await t.request('POST', `/api/documents/${doc.id}/forget`, { key: u.key })).status).toBe(204)
    expect(await jobsFor(t.deps, doc.id)).toEqual([])
  })

  test('a job whose document was deleted meanwhile succeeds without doing anything', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    expect((await t.request('DELETE', `/api/documents/${doc.id}`, { key: u.key })).status).toBe(204)
    const [job] = await jobsFor(t.deps, doc.id)
    expect(job!.status).toBe('queued')
    expect(await drainJobs(t.deps)).toBeGreaterThanOrEqual(1)
    expect(await jobsFor(t.deps, doc.id)).toMatchObject([{ status: 'succeeded', attempts: 1, last_error: null }])
  })
})
