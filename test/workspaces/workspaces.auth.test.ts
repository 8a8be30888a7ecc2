// /api/workspaces access: credentials required, CSRF on cookie writes, revoked keys, other users' workspaces.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const routes = (id: string) =>
  [
    ['GET', '/api/workspaces', undefined],
    ['POST', '/api/workspaces', { name: 'x' }],
    ['PATCH', `/api/workspaces/${id}`, { name: 'x' }],
    ['DELETE', `/api/workspaces/${id}`, undefined],
    ['GET', `/api/workspaces/${id}/context`, undefined],
  ] as const

const firstWorkspace = async (u: TestUser) => (await t.json('GET', '/api/workspaces', { key: u.key })).body.data[0]

describe('credentials', () => {
  test('every workspace route is 401 { error } without credentials', async () => {
    const u = await t.signUp()
    const w = await firstWorkspace(u)
    for (const [method, path, body] of routes(w.id)) {
      const res = await t.json(method, path, { body })
      expect(res.status).toBe(401)
      expect(res.body.error).toBeString()
    }
    expect(await firstWorkspace(u)).toEqual(w)
  })

  test('a revoked key is 401 on every workspace route', async () => {
    const u = await t.signUp()
    const w = await firstWorkspace(u)
    const [k] = (await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    await t.request('DELETE', `/api/keys/${k.id}`, { cookie: u.cookie })
    for (const [method, path, body] of routes(w.id)) expect((await t.request(method, path, { key: u.key, body })).status).toBe(401)
  })

  test('the session cookie works for every route', async () => {
    const u = await t.signUp()
    const created = await t.json('POST', '/api/workspaces', { cookie: u.cookie, body: { name: 'by cookie' } })
    expect(created.status).toBe(201)
    expect((await t.request('PATCH', `/api/workspaces/${created.body.id}`, { cookie: u.cookie, body: { name: 'renamed' } })).status).toBe(
      200,
    )
    expect((await t.request('GET', `/api/workspaces/${created.body.id}/context`, { cookie: u.cookie })).status).toBe(200)
    expect((await t.request('DELETE', `/api/workspaces/${created.body.id}`, { cookie: u.cookie })).status).toBe(204)
  })
})

describe('CSRF', () => {
  test('cookie-authenticated create, rename and delete from a foreign origin are 403 and change nothing', async () => {
    const u = await t.signUp()
    const second = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'target' } })).body
    const evil = { origin: 'https://evil.example' }
    expect((await t.request('POST', '/api/workspaces', { cookie: u.cookie, headers: evil, body: { name: 'csrf' } })).status).toBe(403)
    expect(
      (await t.request('PATCH', `/api/workspaces/${second.id}`, { cookie: u.cookie, headers: evil, body: { name: 'pwned' } })).status,
    ).toBe(403)
    expect((await t.request('DELETE', `/api/workspaces/${second.id}`, { cookie: u.cookie, headers: evil })).status).toBe(403)
    const names = (await t.json('GET', '/api/workspaces', { key: u.key })).body.data.map((w: { name: string }) => w.name).sort()
    expect(names).toEqual(['Default', 'target'])
  })

  test('the context pack (a read) needs no Origin', async () => {
    const u = await t.signUp()
    const w = await firstWorkspace(u)
    expect(
      (await t.request('GET', `/api/workspaces/${w.id}/context`, { cookie: u.cookie, headers: { origin: 'https://evil.example' } })).status,
    ).toBe(200)
  })
})

describe("another user's workspaces", () => {
  test('are never listed, and rename, delete and context answer 404 exactly like a missing id', async () => {
    const [a, b] = await Promise.all([t.signUp(), t.signUp()])
    const aSecond = (await t.json('POST', '/api/workspaces', { key: a.key, body: { name: 'A private' } })).body
    const aDefault = (await t.json('GET', '/api/workspaces', { key: a.key })).body.data.find((w: { id: string }) => w.id !== aSecond.id)
    const before = (await t.json('GET', '/api/workspaces', { key: a.key })).body

    const bList = (await t.json('GET', '/api/workspaces', { key: b.key })).body.data.map((w: { id: string }) => w.id)
    expect(bList).not.toContain(aSecond.id)
    expect(bList).not.toContain(aDefault.id)

    for (const target of [aSecond.id, aDefault.id]) {
      for (const [method, path, body] of routes(target).slice(2)) {
        const res = await t.json(method, path, { key: b.key, body })
        expect(res.status).toBe(404)
        const missing = crypto.randomUUID()
        const control = await t.json(method, path.replace(target, missing), { key: b.key, body })
        expect(res.body.error.replace(target, '<id>')).toBe(control.body.error.replace(missing, '<id>'))
      }
    }
    expect((await t.json('GET', '/api/workspaces', { key: a.key })).body).toEqual(before)
  })
})
