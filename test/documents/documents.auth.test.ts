// Documents, auth: no credentials or a revoked key gets 401 everywhere; cookie callers need an allowed
// Origin to change anything (CSRF); another user's documents are as invisible as missing ones.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { BASE, createTestApp, type TestApp, type TestUser } from '../harness'
import { ingest, storedCount } from './documents.fixtures'

let t: TestApp
let owner: TestUser
let doc: { id: string }
let other: { id: string }
beforeAll(async () => {
  t = await createTestApp()
  owner = await t.signUp()
  doc = await ingest(t, owner, { title: 'Mine', tags: ['keep'] })
  other = await ingest(t, owner, { title: 'Also mine' })
})
afterAll(() => t.close())

/** Every document route with a request that would succeed for the owner. */
const routes = (): [string, string, unknown?][] => [
  ['POST', '/api/documents', { body: 'a new document' }],
  ['GET', '/api/documents/check'],
  ['GET', '/api/documents'],
  ['DELETE', '/api/documents/bulk', { ids: [doc.id] }],
  ['GET', `/api/documents/${doc.id}`],
  ['PATCH', `/api/documents/${doc.id}`, { title: 'Changed' }],
  ['DELETE', `/api/documents/${doc.id}`],
  ['POST', `/api/documents/${doc.id}/archive`],
  ['POST', `/api/documents/${doc.id}/restore`],
  ['POST', `/api/documents/${doc.id}/forget`],
  ['POST', `/api/documents/${doc.id}/rate`, { rating: 1 }],
  ['POST', `/api/documents/${doc.id}/approve`],
  ['POST', `/api/documents/${doc.id}/reject`],
  ['GET', `/api/documents/${doc.id}/links`],
  ['POST', `/api/documents/${doc.id}/link`, { target_id: other.id }],
  ['DELETE', `/api/documents/${doc.id}/links/${other.id}`],
]

const writes = () => routes().filter(([method]) => method !== 'GET')

async function expectUnchanged() {
  const res = await t.json('GET', `/api/documents/${doc.id}`, { key: owner.key })
  expect(res.status).toBe(200)
  expect(res.body).toMatchObject({ title: 'Mine', status: 'active', rating: 0, tags: ['keep'] })
  expect((await t.json('GET', `/api/documents/${doc.id}/links`, { key: owner.key })).body.data).toEqual([])
  expect(await storedCount(t, owner)).toBe(2)
}

describe('without valid credentials', () => {
  test('no credentials: 401 with { error } on every route, nothing changed', async () => {
    for (const [method, path, body] of routes()) {
      const res = await t.json(method, path, { body })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 401 })
      expect(typeof res.body.error).toBe('string')
    }
    await expectUnchanged()
  })

  test('no credentials and an invalid body is still 401, not a validation message', async () => {
    const res = await t.json('POST', '/api/documents', { body: { body: '' } })
    expect(res.status).toBe(401)
  })

  test('a malformed Authorization header or an unknown key is 401', async () => {
    for (const authorization of ['Basic abc', 'Bearer', 'Bearer svc_notarealkey0000000000000000000000000000']) {
      const res = await t.json('GET', '/api/documents', { headers: { authorization } })
      expect(res.status).toBe(401)
    }
  })

  test('a revoked key is refused on the very next request', async () => {
    const u = await t.signUp()
    expect((await t.json('GET', '/api/documents', { key: u.key })).status).toBe(200)
    const keys = await t.json('GET', '/api/keys', { cookie: u.cookie })
    const revoked = await t.request('DELETE', `/api/keys/${keys.body.data[0].id}`, { cookie: u.cookie })
    expect(revoked.status).toBe(204)
    for (const [method, path, body] of [
      ['GET', '/api/documents'],
      ['POST', '/api/documents', { body: 'after revocation' }],
    ] as [string, string, unknown?][]) {
      const res = await t.json(method, path, { key: u.key, body })
      expect(res.status).toBe(401)
      expect(typeof res.body.error).toBe('string')
    }
    expect(await storedCount(t, u)).toBe(0)
  })
})

describe('cookie callers and the Origin rule', () => {
  test('a write from a foreign Origin is 403 on every write route, and nothing changes', async () => {
    for (const [method, path, body] of writes()) {
      const res = await t.json(method, path, { cookie: owner.cookie, body, headers: { origin: 'https://evil.example' } })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 })
      expect(typeof res.body.error).toBe('string')
    }
    await expectUnchanged()
  })

  test('a write with no Origin at all is 403', async () => {
    for (const [method, path, body] of writes()) {
      const headers: Record<string, string> = { cookie: owner.cookie }
      if (body !== undefined) headers['content-type'] = 'application/json'
      const res = await t.app.handle(
        new Request(BASE + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
      )
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 })
    }
    await expectUnchanged()
  })

  test('reads work by cookie without an Origin', async () => {
    const one = await t.json('GET', `/api/documents/${doc.id}`, { cookie: owner.cookie })
    expect(one.status).toBe(200)
    expect(one.body.title).toBe('Mine')
    expect((await t.json('GET', '/api/documents', { cookie: owner.cookie })).status).toBe(200)
    expect((await t.json('GET', '/api/documents/check', { cookie: owner.cookie })).body.allowed).toBe(true)
  })

  test('a write from the service own Origin works by cookie', async () => {
    const u = await t.signUp()
    const res = await t.json('POST', '/api/documents', { cookie: u.cookie, body: { body: 'clipped' }, headers: { origin: BASE } })
    expect(res.status).toBe(201)
  })
})

describe("another user's documents", () => {
  test('are 404 on every route, exactly like missing ones, and stay untouched', async () => {
    const stranger = await t.signUp()
    const own = await ingest(t, stranger)
    for (const [method, path, body] of routes().filter(([, p]) => p.includes(doc.id))) {
      // Approving takes a person signed in (a key is refused before any document is looked at): the stranger's session.
      const res = await t.json(method, path, path.endsWith('/approve') ? { cookie: stranger.cookie, body } : { key: stranger.key, body })
      if (path === '/api/documents/bulk') {
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ deleted: [], not_found: [doc.id] })
        continue
      }
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 })
    }
    // Linking one's own document to someone else's is 404 too.
    const link = await t.json('POST', `/api/documents/${own.id}/link`, { key: stranger.key, body: { target_id: doc.id } })
    expect(link.status).toBe(404)
    expect((await t.json('GET', '/api/documents', { key: stranger.key })).body.data.map((d: any) => d.id)).toEqual([own.id])
    await expectUnchanged()
  })

  test("ingesting into another user's workspace is 404", async () => {
    const stranger = await t.signUp()
    const ws = (await t.json('GET', '/api/workspaces', { key: owner.key })).body.data[0].id
    const res = await t.json('POST', '/api/documents', { key: stranger.key, body: { body: 'sneaky', workspace_id: ws } })
    expect(res.status).toBe(404)
    expect(await storedCount(t, stranger)).toBe(0)
    expect((await t.json('GET', `/api/documents/check?workspace_id=${ws}`, { key: stranger.key })).status).toBe(404)
  })
})
