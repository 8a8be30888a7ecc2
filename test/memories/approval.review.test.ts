// The review queue's two verdicts against an existing memory: approve a draft merged into a memory (its update,
// recorded as superseding it) and reject a draft as a duplicate of one (recorded in its metadata). Approve and
// reject without a body keep working as before.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createWorkspace, defaultWorkspaceId, ingest, listIds } from '../documents/documents.fixtures'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { approve, learning, saveDrafts } from './memories.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const getDoc = async (u: TestUser, id: string) => (await t.json('GET', `/api/documents/${id}`, { key: u.key })).body
const asPerson = (u: TestUser, body?: unknown) => ({ cookie: u.cookie, ...(body !== undefined && { body }) })

/** A pending draft in the user's default workspace (or `workspace`). */
async function draft(u: TestUser, overrides: Record<string, unknown> = {}, workspace?: string) {
  const [d] = await saveDrafts(t, u, workspace ?? (await defaultWorkspaceId(t, u)), [learning(overrides)])
  return d
}
/** An active memory, approved by the person. */
async function memory(u: TestUser, overrides: Record<string, unknown> = {}, workspace?: string) {
  return approve(t, u, (await draft(u, overrides, workspace)).id)
}

describe('approving a draft merged into a memory', () => {
  test('the draft becomes the active memory, recorded as superseding the old one, which is archived', async () => {
    const u = await t.signUp()
    const old = await memory(u, { title: 'Standup time', body: 'Standup is at nine.' })
    const d = await draft(u, { title: 'Standup moved', body: 'Standup is at ten now.', metadata: { topic: 'team' } })
    const res = await t.json('POST', `/api/documents/${d.id}/approve`, asPerson(u, { supersedes: old.id }))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: d.id, status: 'active', metadata: { topic: 'team', supersedes: old.id } })
    expect(await getDoc(u, old.id)).toMatchObject({ status: 'archived', body: 'Standup is at nine.' })
    expect(await listIds(t, u, '/api/memories')).toEqual([d.id])
  })

  test('merging overrides the memory the agent named: only the chosen one is archived', async () => {
    const u = await t.signUp()
    const [named, chosen] = [await memory(u), await memory(u)]
    const d = await draft(u, { metadata: { supersedes: named.id } })
    const res = await t.json('POST', `/api/documents/${d.id}/approve`, asPerson(u, { supersedes: chosen.id }))
    expect(res.status).toBe(200)
    expect(res.body.metadata.supersedes).toBe(chosen.id)
    expect((await getDoc(u, chosen.id)).status).toBe('archived')
    expect((await getDoc(u, named.id)).status).toBe('active')
  })

  test('no body, or an empty one, approves as before', async () => {
    const u = await t.signUp()
    const [a, b] = [await draft(u), await draft(u)]
    const none = await t.json('POST', `/api/documents/${a.id}/approve`, asPerson(u))
    const empty = await t.json('POST', `/api/documents/${b.id}/approve`, asPerson(u, {}))
    expect([none.status, empty.status]).toEqual([200, 200])
    expect([none.body.metadata.supersedes, empty.body.metadata.supersedes]).toEqual([undefined, undefined])
  })

  test("another user's memory is a 404, and nothing changes on either side", async () => {
    const [u, other] = [await t.signUp(), await t.signUp()]
    const theirs = await memory(other)
    const d = await draft(u)
    const res = await t.json('POST', `/api/documents/${d.id}/approve`, asPerson(u, { supersedes: theirs.id }))
    expect(res.status).toBe(404)
    expect(res.body.error).toContain('not found')
    expect((await getDoc(u, d.id)).status).toBe('pending_approval')
    expect((await getDoc(other, theirs.id)).status).toBe('active')
  })

  test('a document that is not an active memory of the same workspace is a 409: a note, an archived memory, another workspace, the draft itself', async () => {
    const u = await t.signUp()
    const home = await defaultWorkspaceId(t, u)
    const note = await ingest(t, u, { kind: 'note', title: 'A note' })
    const archived = await memory(u)
    expect((await t.json('POST', `/api/documents/${archived.id}/archive`, asPerson(u))).status).toBe(200)
    const elsewhere = await memory(u, {}, await createWorkspace(t, u))
    const d = await draft(u, {}, home)
    for (const target of [note.id, archived.id, elsewhere.id, d.id]) {
      const res = await t.json('POST', `/api/documents/${d.id}/approve`, asPerson(u, { supersedes: target }))
      expect({ target, status: res.status, error: typeof res.body.error }).toEqual({ target, status: 409, error: 'string' })
    }
    expect((await getDoc(u, d.id)).status).toBe('pending_approval')
    expect((await getDoc(u, note.id)).status).toBe('active')
  })

  test('an id that is not a UUID is a 400; an API key is still refused (403)', async () => {
    const u = await t.signUp()
    const [old, d] = [await memory(u), await draft(u)]
    const bad = await t.json('POST', `/api/documents/${d.id}/approve`, asPerson(u, { supersedes: 'nope' }))
    expect(bad.status).toBe(400)
    expect(bad.body.error).toBeString()
    const key = await t.json('POST', `/api/documents/${d.id}/approve`, { key: u.key, body: { supersedes: old.id } })
    expect(key.status).toBe(403)
    expect((await getDoc(u, old.id)).status).toBe('active')
  })
})

describe('rejecting a draft as a duplicate', () => {
  test('the draft is archived and records the memory it repeats; the memory is untouched', async () => {
    const u = await t.signUp()
    const original = await memory(u, { title: 'Deploys on Fridays', body: 'We never deploy on Fridays.' })
    const d = await draft(u, { title: 'No Friday deploys', body: 'Do not deploy on a Friday.' })
    const res = await t.json('POST', `/api/documents/${d.id}/reject`, asPerson(u, { duplicate_of: original.id }))
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: d.id, status: 'archived', metadata: { duplicate_of: original.id } })
    expect((await getDoc(u, original.id)).status).toBe('active')
    // Restoring it brings it back as a draft, as any rejected draft.
    const restored = await t.json('POST', `/api/documents/${d.id}/restore`, asPerson(u))
    expect(restored.body.status).toBe('pending_approval')
  })

  test("another user's memory is a 404 and a note a 409; the draft stays pending. No body rejects as before", async () => {
    const [u, other] = [await t.signUp(), await t.signUp()]
    const theirs = await memory(other)
    const note = await ingest(t, u, { kind: 'note' })
    const d = await draft(u)
    const foreign = await t.json('POST', `/api/documents/${d.id}/reject`, asPerson(u, { duplicate_of: theirs.id }))
    const notMemory = await t.json('POST', `/api/documents/${d.id}/reject`, asPerson(u, { duplicate_of: note.id }))
    expect([foreign.status, notMemory.status]).toEqual([404, 409])
    expect((await getDoc(u, d.id)).status).toBe('pending_approval')
    const plain = await t.json('POST', `/api/documents/${d.id}/reject`, asPerson(u))
    expect(plain.status).toBe(200)
    expect(plain.body.status).toBe('archived')
    expect(plain.body.metadata.duplicate_of).toBeUndefined()
  })
})
