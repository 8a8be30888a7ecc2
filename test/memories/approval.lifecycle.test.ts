// The approval rule after ingest: only a person signed in approves; an API key's edit of an approved memory is a
// draft that supersedes it; restore returns a rejected draft to pending_approval (never active), an archived
// memory to active for a person and to pending_approval for a key.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { defaultWorkspaceId, listIds, storedCount, uniqueBody } from '../documents/documents.fixtures'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { approve, learning, saveDrafts } from './memories.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

type Auth = { key: string } | { cookie: string }
const asKey = (u: TestUser): Auth => ({ key: u.key })
const asPerson = (u: TestUser): Auth => ({ cookie: u.cookie })
const getDoc = async (u: TestUser, id: string) => (await t.json('GET', `/api/documents/${id}`, { key: u.key })).body
const post = (auth: Auth, path: string) => t.json('POST', path, auth)

/** An active memory, approved by the person. */
async function memory(u: TestUser, overrides: Record<string, unknown> = {}) {
  const [draft] = await saveDrafts(t, u, await defaultWorkspaceId(t, u), [learning(overrides)])
  return approve(t, u, draft.id)
}

describe('approving', () => {
  test('a key cannot approve, even its own draft: 403, and the draft stays pending', async () => {
    const u = await t.signUp()
    const [draft] = await saveDrafts(t, u, await defaultWorkspaceId(t, u), [learning()])
    const res = await post(asKey(u), `/api/documents/${draft.id}/approve`)
    expect(res.status).toBe(403)
    expect(res.body.error).toContain('person signed in')
    expect(await getDoc(u, draft.id)).toMatchObject({ status: 'pending_approval' })
    expect(await listIds(t, u, '/api/memories')).toEqual([])
  })

  test("a key is refused alike whoever's draft it names (403: it learns nothing); another person gets 404", async () => {
    const [owner, other] = [await t.signUp(), await t.signUp()]
    const [draft] = await saveDrafts(t, owner, await defaultWorkspaceId(t, owner), [learning()])
    const foreign = await post(asKey(other), `/api/documents/${draft.id}/approve`)
    const missing = await post(asKey(other), `/api/documents/${crypto.randomUUID()}/approve`)
    expect([foreign.status, missing.status]).toEqual([403, 403])
    expect(foreign.body).toEqual(missing.body)
    expect((await t.json('POST', `/api/documents/${draft.id}/approve`, { cookie: other.cookie })).status).toBe(404)
  })
})

describe('editing an approved memory (PATCH)', () => {
  test('with a key, a content change is a new draft superseding the memory (202); the memory is unchanged until approval', async () => {
    const u = await t.signUp()
    const m = await memory(u, { title: 'Standup', body: 'Standup is at nine.', tags: ['team'] })
    const res = await t.json('PATCH', `/api/documents/${m.id}`, { key: u.key, body: { body: 'Standup is at ten.' } })
    expect(res.status).toBe(202)
    expect(res.body.id).not.toBe(m.id)
    expect(res.body).toMatchObject({
      title: 'Standup',
      body: 'Standup is at ten.',
      kind: m.kind,
      tags: ['team'],
      status: 'pending_approval',
      metadata: { supersedes: m.id },
    })
    expect(res.body.notice).toContain('pending approval')
    expect(await getDoc(u, m.id)).toMatchObject({ status: 'active', body: 'Standup is at nine.' })

    await approve(t, u, res.body.id)
    expect(await listIds(t, u, '/api/memories')).toEqual([res.body.id])
    expect(await getDoc(u, m.id)).toMatchObject({ status: 'archived' })
  })

  test('with a key, each content field goes through a draft; the same content or pinning alone applies in place', async () => {
    const u = await t.signUp()
    const m = await memory(u)
    for (const change of [{ title: 'Retitled' }, { excerpt: 'Summary' }, { tags: ['new'] }]) {
      const res = await t.json('PATCH', `/api/documents/${m.id}`, { key: u.key, body: change })
      expect({ change, status: res.status }).toEqual({ change, status: 202 })
    }
    // Re-sending what the memory already says rewrites nothing: no draft.
    const same = await t.json('PATCH', `/api/documents/${m.id}`, { key: u.key, body: { title: m.title, tags: m.tags } })
    expect(same.status).toBe(200)
    const pinned = await t.json('PATCH', `/api/documents/${m.id}`, { key: u.key, body: { pinned: true } })
    expect(pinned.status).toBe(200)
    expect(pinned.body).toMatchObject({ id: m.id, pinned: true, status: 'active', title: m.title, excerpt: m.excerpt, tags: m.tags })
    expect(await listIds(t, u, '/api/memories?status=pending_approval')).toHaveLength(3)
  })

  test('with a key, an archived memory is not rewritten either', async () => {
    const u = await t.signUp()
    const m = await memory(u)
    await post(asKey(u), `/api/documents/${m.id}/archive`)
    const res = await t.json('PATCH', `/api/documents/${m.id}`, { key: u.key, body: { body: 'rewritten while archived' } })
    expect(res.status).toBe(202)
    expect(await getDoc(u, m.id)).toMatchObject({ status: 'archived', body: m.body })
  })

  test('a person signed in edits a memory in place; a key edits a pending draft and a plain document in place', async () => {
    const u = await t.signUp()
    const m = await memory(u)
    const byPerson = await t.json('PATCH', `/api/documents/${m.id}`, { cookie: u.cookie, body: { body: 'Edited by the person.' } })
    expect(byPerson.status).toBe(200)
    expect(byPerson.body).toMatchObject({ id: m.id, status: 'active', body: 'Edited by the person.' })

    const [draft] = await saveDrafts(t, u, await defaultWorkspaceId(t, u), [learning()])
    const draftEdit = await t.json('PATCH', `/api/documents/${draft.id}`, { key: u.key, body: { body: 'A better draft.' } })
    expect(draftEdit.status).toBe(200)
    expect(draftEdit.body).toMatchObject({ id: draft.id, status: 'pending_approval', body: 'A better draft.' })

    const doc = (await t.json('POST', '/api/documents', { key: u.key, body: { body: uniqueBody() } })).body
    const docEdit = await t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body: { body: 'New text.' } })
    expect(docEdit.status).toBe(200)
    expect(docEdit.body).toMatchObject({ id: doc.id, status: 'active', body: 'New text.' })
    expect(await storedCount(t, u)).toBe(3)
  })
})

describe('restoring', () => {
  test('a rejected draft returns to pending_approval, never to active — by a person or by a key', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    for (const auth of [asPerson(u), asKey(u)]) {
      const [draft] = await saveDrafts(t, u, ws, [learning()])
      expect((await post(asKey(u), `/api/documents/${draft.id}/reject`)).body.status).toBe('archived')
      const restored = await post(auth, `/api/documents/${draft.id}/restore`)
      expect(restored.status).toBe(200)
      expect(restored.body.status).toBe('pending_approval')
    }
    expect(await listIds(t, u, '/api/memories')).toEqual([])
    expect(await listIds(t, u, '/api/memories?status=pending_approval')).toHaveLength(2)
  })

  test('a draft archived instead of rejected also comes back as a draft', async () => {
    const u = await t.signUp()
    const [draft] = await saveDrafts(t, u, await defaultWorkspaceId(t, u), [learning()])
    await post(asKey(u), `/api/documents/${draft.id}/archive`)
    expect((await post(asPerson(u), `/api/documents/${draft.id}/restore`)).body.status).toBe('pending_approval')
  })

  test('an archived memory that was active comes back active for a person, and as a draft for a key', async () => {
    const u = await t.signUp()
    const [forPerson, forKey] = [await memory(u), await memory(u)]
    for (const m of [forPerson, forKey]) await post(asKey(u), `/api/documents/${m.id}/archive`)
    expect((await post(asPerson(u), `/api/documents/${forPerson.id}/restore`)).body.status).toBe('active')
    expect((await post(asKey(u), `/api/documents/${forKey.id}/restore`)).body.status).toBe('pending_approval')
    expect(await listIds(t, u, '/api/memories')).toEqual([forPerson.id])
  })

  test('a memory superseded on approval comes back active for a person', async () => {
    const u = await t.signUp()
    const old = await memory(u, { title: 'Use MySQL' })
    const [replacement] = await saveDrafts(t, u, await defaultWorkspaceId(t, u), [
      learning({ title: 'Use Postgres', metadata: { supersedes: old.id } }),
    ])
    await approve(t, u, replacement.id)
    expect((await getDoc(u, old.id)).status).toBe('archived')
    expect((await post(asPerson(u), `/api/documents/${old.id}/restore`)).body.status).toBe('active')
  })

  test('a plain document restores to active, whoever asks', async () => {
    const u = await t.signUp()
    const doc = (await t.json('POST', '/api/documents', { key: u.key, body: { body: uniqueBody() } })).body
    await post(asKey(u), `/api/documents/${doc.id}/archive`)
    expect((await post(asKey(u), `/api/documents/${doc.id}/restore`)).body.status).toBe('active')
  })
})
