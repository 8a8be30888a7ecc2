// Search, auth and tenancy: 401 without valid credentials (also a revoked key, at once), the session cookie
// works, and one user's documents, workspaces and corpus statistics never reach another user's search.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { createWorkspace, defaultWorkspaceId } from '../documents/documents.fixtures'
import { add, search, searchIds, searchPath, searchRaw } from './search.fixtures'

let t: TestApp
let owner: TestUser
let doc: { id: string }
beforeAll(async () => {
  t = await createTestApp()
  owner = await t.signUp()
  doc = await add(t, owner, { title: 'Private diary', body: 'The xylophone recital went badly.' })
})
afterAll(() => t.close())

describe('credentials', () => {
  test('no credentials: 401 with { error }', async () => {
    const res = await t.json('GET', searchPath({ q: 'xylophone' }))
    expect(res.status).toBe(401)
    expect(res.body.error).toBeString()
    expect(JSON.stringify(res.body)).not.toContain('xylophone recital')
  })

  test('no credentials and an invalid query is still 401, not a validation message', async () => {
    expect((await t.json('GET', '/api/search')).status).toBe(401)
    expect((await t.json('GET', searchPath({ q: 'x', limit: 0 }))).status).toBe(401)
  })

  test('a malformed Authorization header or an unknown key is 401', async () => {
    for (const authorization of ['Basic abc', 'Bearer', 'Bearer ', `Bearer svc_${'0'.repeat(40)}`, `bearer ${owner.key}x`]) {
      const res = await t.json('GET', searchPath({ q: 'xylophone' }), { headers: { authorization } })
      expect({ authorization, status: res.status }).toEqual({ authorization, status: 401 })
    }
  })

  test('a revoked key is refused on the very next search', async () => {
    const u = await t.signUp()
    await add(t, u, { title: 'Mine', body: 'Marimba practice notes.' })
    expect(await searchIds(t, u, 'marimba')).toHaveLength(1)
    const keys = await t.json('GET', '/api/keys', { cookie: u.cookie })
    expect((await t.request('DELETE', `/api/keys/${keys.body.data[0].id}`, { cookie: u.cookie })).status).toBe(204)
    const res = await searchRaw(t, u, { q: 'marimba' })
    expect(res.status).toBe(401)
    expect(res.body.error).toBeString()
  })

  test('the session cookie (dashboard, extension) searches like a key', async () => {
    const res = await t.json('GET', searchPath({ q: 'xylophone' }), { cookie: owner.cookie })
    expect(res.status).toBe(200)
    expect(res.body.results.map((r: { document: { id: string } }) => r.document.id)).toEqual([doc.id])
  })
})

describe('tenant isolation', () => {
  test("another user never sees the owner's documents, even searching the owner's exact words", async () => {
    const stranger = await t.signUp()
    await add(t, stranger, { title: 'Band', body: 'Our drummer joined last week.' })
    for (const q of ['xylophone', 'xylophone recital went badly', 'Private diary', 'xylo', 'recital']) {
      const res = await search(t, stranger, { q, limit: 100 })
      expect({ q, results: res.results }).toEqual({ q, results: [] })
    }
    // and the owner still finds it
    expect(await searchIds(t, owner, 'xylophone')).toEqual([doc.id])
  })

  test("another user's workspace_id is 404, the same as a workspace that does not exist", async () => {
    const stranger = await t.signUp()
    const ownersDefault = await defaultWorkspaceId(t, owner)
    const ownersOther = await createWorkspace(t, owner, 'Hidden')
    for (const workspace_id of [ownersDefault, ownersOther]) {
      const res = await searchRaw(t, stranger, { q: 'xylophone', workspace_id })
      expect(res.status).toBe(404)
      expect(res.body.error).toBeString()
      expect(JSON.stringify(res.body)).not.toContain('xylophone recital')
    }
    const missing = await searchRaw(t, stranger, { q: 'xylophone', workspace_id: crypto.randomUUID() })
    expect(missing.status).toBe(404)
    expect(Object.keys(missing.body)).toEqual(
      Object.keys((await searchRaw(t, stranger, { q: 'xylophone', workspace_id: ownersDefault })).body),
    )
  })

  test("one user's corpus does not move another user's scores (statistics are per user)", async () => {
    const b = await t.signUp()
    const a = await t.signUp()
    await add(t, b, { title: 'Garden', body: 'The heliotrope blooms in July.' })
    await add(t, b, { title: 'Garden', body: 'Roses and heliotrope by the fence, near the shed.' })
    await add(t, b, { title: 'Kitchen', body: 'Bread rises overnight.' })
    const scores = async () =>
      (await search(t, b, { q: 'heliotrope blooms', limit: 100 })).results.map((r) => [r.document.id, r.score, r.signals])
    const before = await scores()
    expect(before).toHaveLength(2)

    // A adds many documents full of the same words, in every length.
    for (let i = 0; i < 25; i++) {
      await add(t, a, { title: `Heliotrope ${i}`, body: `${'heliotrope blooms '.repeat(i + 1)}(${crypto.randomUUID()})` })
    }
    expect(await scores()).toEqual(before)

    // and what A deletes does not move them either
    const mine = await search(t, a, { q: 'heliotrope', limit: 100 })
    expect(mine.results).toHaveLength(25)
    await t.json('DELETE', '/api/documents/bulk', { key: a.key, body: { ids: mine.results.slice(0, 10).map((r) => r.document.id) } })
    expect(await scores()).toEqual(before)
  })

  test('the same corpus gives two users the same scores, whatever else a third user stores', async () => {
    const [x, y, z] = [await t.signUp(), await t.signUp(), await t.signUp()]
    const corpus = [
      { title: 'Tide tables', body: 'High tide at noon; low tide at six.' },
      { title: 'Moon', body: 'The moon pulls the tide.' },
      { title: 'Boats', body: 'Boats wait for the high tide.' },
    ]
    for (const d of corpus) await add(t, x, d)
    for (let i = 0; i < 10; i++) await add(t, z, { title: 'Tide', body: `tide tide tide ${i}` })
    for (const d of corpus) await add(t, y, d)
    const view = async (u: TestUser) =>
      (await search(t, u, 'high tide')).results.map((r) => [r.document.title, r.score, r.signals.matched_terms])
    expect(await view(y)).toEqual(await view(x))
  })
})
