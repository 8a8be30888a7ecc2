// The approval rule on ingest (POST /api/documents): a memory kind sent with an API key becomes a pending draft,
// the very draft batch-draft makes; a person signed in writes it active. Ingest that lands on what is already
// there (same URL, same text) never lets a key make or rewrite an active memory: it proposes a draft that
// supersedes it, and re-saying what a memory says changes nothing.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, eq, sql } from 'drizzle-orm'
import { jobs } from '../../db/schema'
import { MEMORY_KINDS } from '../../src/modules/documents/documents.model'
import { defaultWorkspaceId, listIds, storedCount, uniqueBody } from '../documents/documents.fixtures'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { approve, saveDrafts } from './memories.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const byKey = (u: TestUser, body: Record<string, unknown>) => t.json('POST', '/api/documents', { key: u.key, body })
const bySession = (u: TestUser, body: Record<string, unknown>) => t.json('POST', '/api/documents', { cookie: u.cookie, body })
const getDoc = async (u: TestUser, id: string) => (await t.json('GET', `/api/documents/${id}`, { key: u.key })).body
const embedJobs = async (id: string) =>
  (
    await t.deps.db
      .select()
      .from(jobs)
      .where(and(eq(jobs.kind, 'embed-document'), sql`${jobs.payload}->>'document_id' = ${id}`))
  ).length

describe('a memory kind written with an API key', () => {
  test('every memory kind becomes a pending_approval draft, with status and notice saying so', async () => {
    const u = await t.signUp()
    for (const kind of MEMORY_KINDS) {
      const res = await byKey(u, { kind, title: `A ${kind}`, body: uniqueBody(kind) })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ kind, status: 'pending_approval', deduplicated: false })
      expect(res.body.notice).toContain('pending approval')
    }
    expect(await listIds(t, u, '/api/memories?limit=100')).toEqual([])
    expect(await listIds(t, u, '/api/documents?limit=100')).toEqual([])
    expect(await listIds(t, u, '/api/memories?status=pending_approval&limit=100')).toHaveLength(MEMORY_KINDS.length)
  })

  test('the draft is the one batch-draft makes: same fields, same index job, invisible to search until a person approves it', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    const learning = {
      kind: 'decision',
      title: 'Ledger on Postgres',
      body: 'The ledger service moves to Postgres.',
      tags: ['db'],
      metadata: { topic: 'stack', confidence: 0.8, conversation_id: 'c-42' },
    }
    const [viaBatch] = await saveDrafts(t, u, ws, [learning])
    await t.request('DELETE', `/api/documents/${viaBatch.id}`, { key: u.key })
    const viaIngest = await byKey(u, { ...learning, workspace_id: ws })
    expect(viaIngest.status).toBe(201)

    const comparable = ({ id: _, created_at: _c, updated_at: _u, occurred_at: _o, source: _s, ...rest }: any) => rest
    const { deduplicated: _d, notice: _n, ...ingested } = viaIngest.body
    expect(comparable(ingested)).toEqual(comparable(viaBatch))
    expect(ingested).toMatchObject({ status: 'pending_approval', source: 'api', source_ref: 'c-42', index_status: 'pending' })
    expect(await embedJobs(viaIngest.body.id)).toBe(1)

    expect((await t.json('GET', '/api/search?q=ledger+postgres', { key: u.key })).body.results).toEqual([])
    expect((await t.json('POST', `/api/documents/${viaIngest.body.id}/approve`, { key: u.key })).status).toBe(403)
    expect((await getDoc(u, viaIngest.body.id)).status).toBe('pending_approval')
    await approve(t, u, viaIngest.body.id)
    const found = (await t.json('GET', '/api/search?q=ledger+postgres', { key: u.key })).body.results
    expect(found.map((r: any) => r.document.id)).toEqual([viaIngest.body.id])
  })

  test('over the document cap the draft is refused with 402, like any ingest', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_DOCUMENTS: '1' } })
    try {
      const u = await capped.signUp()
      expect((await capped.json('POST', '/api/documents', { key: u.key, body: { body: uniqueBody() } })).status).toBe(201)
      const refused = await capped.json('POST', '/api/documents', { key: u.key, body: { kind: 'fact', body: uniqueBody() } })
      expect(refused.status).toBe(402)
      expect(await storedCount(capped, u)).toBe(1)
    } finally {
      await capped.close()
    }
  })
})

describe('a person signed in', () => {
  test('writes an active memory directly (the extension, the dashboard); no notice', async () => {
    const u = await t.signUp()
    const res = await bySession(u, { kind: 'preference', title: 'Dark mode', body: uniqueBody('prefers dark mode') })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ kind: 'preference', status: 'active', source: 'extension' })
    expect(res.body.notice).toBeUndefined()
    expect(await listIds(t, u, '/api/memories')).toEqual([res.body.id])
  })
})

describe('ingest that lands on an existing document, with a key', () => {
  test('a memory kind over an active document proposes a draft that supersedes it; the document stays until approval', async () => {
    const u = await t.signUp()
    const body = uniqueBody('plain text')
    const doc = (await byKey(u, { title: 'Notes', body })).body
    const res = await byKey(u, { title: 'Notes', body, kind: 'fact' })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ kind: 'fact', status: 'pending_approval', deduplicated: false, metadata: { supersedes: doc.id } })
    expect(await getDoc(u, doc.id)).toMatchObject({ kind: 'document', status: 'active' })
    expect(await listIds(t, u, '/api/memories')).toEqual([])

    await approve(t, u, res.body.id)
    expect(await getDoc(u, doc.id)).toMatchObject({ status: 'archived' })
    expect(await listIds(t, u, '/api/memories')).toEqual([res.body.id])
  })

  test("a new text for an active memory's URL is a draft superseding it; the memory's body is not touched", async () => {
    const u = await t.signUp()
    const url = 'https://example.com/runbook'
    const memory = (await bySession(u, { kind: 'routine', title: 'Runbook', url, body: 'Restart the worker first.' })).body
    for (const kind of ['routine', undefined]) {
      // With the memory kind or none at all: either way a key is proposing a change to an approved memory.
      const res = await byKey(u, { url, body: 'Restart the API first.', ...(kind ? { kind } : {}) })
      expect(res.body).toMatchObject({
        kind: 'routine',
        status: 'pending_approval',
        body: 'Restart the API first.',
        metadata: { supersedes: memory.id },
      })
    }
    expect(await getDoc(u, memory.id)).toMatchObject({ status: 'active', body: 'Restart the worker first.' })
    // The second proposal updated the first draft instead of adding another.
    const drafts = await listIds(t, u, '/api/memories?status=pending_approval')
    expect(drafts).toHaveLength(1)
    await approve(t, u, drafts[0]!)
    expect(await listIds(t, u, '/api/memories')).toEqual([drafts[0]!])
    expect(await getDoc(u, memory.id)).toMatchObject({ status: 'archived', body: 'Restart the worker first.' })
  })

  test('a plain kind cannot turn a memory into a document: the proposal keeps the memory kind', async () => {
    const u = await t.signUp()
    const body = uniqueBody('the fact')
    const memory = (await bySession(u, { kind: 'fact', title: 'Fact', body })).body
    const res = await byKey(u, { kind: 'note', title: 'Fact', body, tags: ['x'] })
    expect(res.body).toMatchObject({ kind: 'fact', status: 'pending_approval', tags: ['x'], metadata: { supersedes: memory.id } })
    expect(await getDoc(u, memory.id)).toMatchObject({ kind: 'fact', status: 'active', tags: [] })
  })

  test('saying again exactly what an approved memory says changes nothing and proposes nothing', async () => {
    const u = await t.signUp()
    const body = uniqueBody('standup at ten')
    const memory = (await bySession(u, { kind: 'fact', title: 'Standup', body })).body
    t.clock.advance(60_000)
    for (const again of [{ title: 'Standup', body }, { body }, { kind: 'fact', body }]) {
      const res = await byKey(u, again)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ id: memory.id, status: 'active', deduplicated: true, updated_at: memory.updated_at })
      expect(res.body.notice).toBeUndefined()
    }
    expect(await storedCount(t, u)).toBe(1)
  })

  test('a rejected memory stays rejected when a key says it again', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    const body = uniqueBody('rejected claim')
    const [draft] = await saveDrafts(t, u, ws, [{ kind: 'fact', title: 'Claim', body }])
    await t.json('POST', `/api/documents/${draft.id}/reject`, { key: u.key })
    const res = await byKey(u, { kind: 'fact', title: 'Claim', body })
    expect(res.body).toMatchObject({ id: draft.id, status: 'archived' })
    expect(await listIds(t, u, '/api/memories')).toEqual([])
  })

  test('without a memory kind, a plain document is still updated in place', async () => {
    const u = await t.signUp()
    const doc = (await byKey(u, { url: 'https://example.com/page', body: 'first' })).body
    const res = await byKey(u, { url: 'https://example.com/page', body: 'second' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: doc.id, status: 'active', kind: 'webpage', body: 'second', deduplicated: true })
  })
})

describe('ingest that lands on an existing document, signed in', () => {
  test('a person updates a memory in place', async () => {
    const u = await t.signUp()
    const url = 'https://example.com/policy'
    const memory = (await bySession(u, { kind: 'decision', url, body: 'Deploy on Tuesdays.' })).body
    const res = await bySession(u, { url, body: 'Deploy on Wednesdays.' })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: memory.id, kind: 'decision', status: 'active', body: 'Deploy on Wednesdays.' })
    expect(await listIds(t, u, '/api/memories?status=pending_approval')).toEqual([])
  })
})
