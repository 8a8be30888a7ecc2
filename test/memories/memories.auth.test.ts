// Memories, auth: drafts are written by key-holding agents or same-origin cookie callers only, and one
// user's drafts and memories are invisible to every other user.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { defaultWorkspaceId, listIds, storedCount } from '../documents/documents.fixtures'
import { BASE, createTestApp, type TestApp, type TestUser } from '../harness'
import { learning, saveDrafts } from './memories.fixtures'

let t: TestApp
let u: TestUser
let ws: string
beforeAll(async () => {
  t = await createTestApp()
  u = await t.signUp()
  ws = await defaultWorkspaceId(t, u)
})
afterAll(() => t.close())

describe('without valid credentials', () => {
  test('no credentials: 401 on both memory routes, nothing stored', async () => {
    const before = await storedCount(t, u)
    const post = await t.json('POST', '/api/memories/batch-draft', { body: { workspace_id: ws, learnings: [learning()] } })
    expect(post.status).toBe(401)
    expect(typeof post.body.error).toBe('string')
    const list = await t.json('GET', '/api/memories')
    expect(list.status).toBe(401)
    expect(typeof list.body.error).toBe('string')
    expect(await storedCount(t, u)).toBe(before)
  })

  test('a revoked key is refused at once', async () => {
    const agent = await t.signUp()
    const space = await defaultWorkspaceId(t, agent)
    await saveDrafts(t, agent, space, [learning()])
    const keys = await t.json('GET', '/api/keys', { cookie: agent.cookie })
    expect((await t.request('DELETE', `/api/keys/${keys.body.data[0].id}`, { cookie: agent.cookie })).status).toBe(204)
    const res = await t.json('POST', '/api/memories/batch-draft', {
      key: agent.key,
      body: { workspace_id: space, learnings: [learning()] },
    })
    expect(res.status).toBe(401)
    expect((await t.json('GET', '/api/memories?status=pending_approval', { key: agent.key })).status).toBe(401)
    expect(await storedCount(t, agent)).toBe(1)
  })
})

describe('cookie callers and the Origin rule', () => {
  test('a batch from a foreign Origin is 403 and stores nothing', async () => {
    const before = await storedCount(t, u)
    const res = await t.json('POST', '/api/memories/batch-draft', {
      cookie: u.cookie,
      headers: { origin: 'https://evil.example' },
      body: { workspace_id: ws, learnings: [learning()] },
    })
    expect(res.status).toBe(403)
    expect(typeof res.body.error).toBe('string')
    expect(await storedCount(t, u)).toBe(before)
  })

  test('a batch with no Origin is 403 and stores nothing', async () => {
    const before = await storedCount(t, u)
    const res = await t.app.handle(
      new Request(`${BASE}/api/memories/batch-draft`, {
        method: 'POST',
        headers: { cookie: u.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ workspace_id: ws, learnings: [learning()] }),
      }),
    )
    expect(res.status).toBe(403)
    expect(await storedCount(t, u)).toBe(before)
  })

  test('approving by cookie from a foreign Origin is 403 and the draft stays pending', async () => {
    const [draft] = await saveDrafts(t, u, ws, [learning()])
    const res = await t.json('POST', `/api/documents/${draft.id}/approve`, {
      cookie: u.cookie,
      headers: { origin: 'https://evil.example' },
    })
    expect(res.status).toBe(403)
    expect((await t.json('GET', `/api/documents/${draft.id}`, { key: u.key })).body.status).toBe('pending_approval')
  })

  test('the dashboard lists drafts by cookie and approves them from its own Origin', async () => {
    const person = await t.signUp()
    const space = await defaultWorkspaceId(t, person)
    const [draft] = await saveDrafts(t, person, space, [learning()])
    const pending = await t.json('GET', '/api/memories?status=pending_approval', { cookie: person.cookie })
    expect(pending.status).toBe(200)
    expect(pending.body.data.map((d: any) => d.id)).toEqual([draft.id])
    const approved = await t.json('POST', `/api/documents/${draft.id}/approve`, { cookie: person.cookie })
    expect(approved.status).toBe(200)
    expect(approved.body.status).toBe('active')
  })
})

describe("another user's drafts and memories", () => {
  test('are not listed, and approving or rejecting them is 404', async () => {
    const owner = await t.signUp()
    const space = await defaultWorkspaceId(t, owner)
    const [draft, other] = await saveDrafts(t, owner, space, [learning(), learning()])
    const stranger = await t.signUp()
    expect(await listIds(t, stranger, '/api/memories?status=pending_approval')).toEqual([])
    expect((await t.json('POST', `/api/documents/${draft.id}/approve`, { cookie: stranger.cookie })).status).toBe(404)
    expect((await t.json('POST', `/api/documents/${other.id}/reject`, { key: stranger.key })).status).toBe(404)
    expect((await t.json('GET', `/api/memories?workspace_id=${space}`, { key: stranger.key })).status).toBe(404)
    for (const id of [draft.id, other.id]) {
      expect((await t.json('GET', `/api/documents/${id}`, { key: owner.key })).body.status).toBe('pending_approval')
    }
  })
})
