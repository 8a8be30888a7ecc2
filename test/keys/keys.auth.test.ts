// /api/keys access: credentials required, revocation immediate, keys private to their owner, no CSRF minting.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

describe('credentials', () => {
  test('every /api/keys route is 401 { error } without credentials', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/keys', undefined],
      ['POST', '/api/keys', { label: 'x' }],
      ['DELETE', `/api/keys/${crypto.randomUUID()}`, undefined],
    ] as const) {
      const res = await t.json(method, path, { body })
      expect(res.status).toBe(401)
      expect(res.body.error).toBeString()
    }
  })

  test('a session manages keys (list, create, revoke); a key made without the keys scope cannot (403, nothing changes)', async () => {
    const u = await t.signUp()
    const created = await t.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'by session' } })
    expect(created.status).toBe(201)
    expect((await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data).toHaveLength(2)
    for (const [method, path] of [
      ['GET', '/api/keys'],
      ['POST', '/api/keys'],
      ['DELETE', `/api/keys/${created.body.id}`],
    ] as const) {
      const res = await t.json(method, path, { key: u.key, body: method === 'POST' ? {} : undefined })
      expect(res.status).toBe(403)
      expect(res.body.error).toContain('"keys" scope')
    }
    expect((await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data).toHaveLength(2)
    expect((await t.request('DELETE', `/api/keys/${created.body.id}`, { cookie: u.cookie })).status).toBe(204)
  })
})

describe('revocation is immediate', () => {
  test('a revoked key is 401 on the very next request, on every route', async () => {
    const u = await t.signUp()
    const spare = (await t.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'spare' } })).body
    // warm up: the key is used (and could be cached) right before revocation
    expect((await t.request('GET', '/api/workspaces', { key: spare.key })).status).toBe(200)
    expect((await t.request('DELETE', `/api/keys/${spare.id}`, { cookie: u.cookie })).status).toBe(204)
    for (const [method, path] of [
      ['GET', '/api/workspaces'],
      ['GET', '/api/keys'],
      ['GET', '/api/documents'],
      ['GET', '/api/usage'],
      ['GET', '/api/auth/session'],
      ['POST', '/api/keys'],
    ] as const) {
      expect((await t.request(method, path, { key: spare.key, body: method === 'POST' ? {} : undefined })).status).toBe(401)
    }
    // the other key of the account is untouched
    expect((await t.request('GET', '/api/workspaces', { key: u.key })).status).toBe(200)
  })

  test('a key revoked by a concurrent request cannot be used after the revocation answered', async () => {
    const u = await t.signUp()
    const spare = (await t.json('POST', '/api/keys', { cookie: u.cookie, body: {} })).body
    const uses = Array.from({ length: 5 }, () => t.request('GET', '/api/workspaces', { key: spare.key }))
    const revoked = await t.request('DELETE', `/api/keys/${spare.id}`, { cookie: u.cookie })
    await Promise.all(uses)
    expect(revoked.status).toBe(204)
    expect((await t.request('GET', '/api/workspaces', { key: spare.key })).status).toBe(401)
  })

  test('signing out every session does not matter: a key works without one', async () => {
    const u = await t.signUp()
    await t.request('POST', '/api/auth/sign-out', { cookie: u.cookie })
    expect((await t.request('GET', '/api/workspaces', { key: u.key })).status).toBe(200)
  })
})

describe('keys are private to their owner', () => {
  test("another user's list never shows my keys, and they cannot revoke them (404, key still works)", async () => {
    const [a, b] = await Promise.all([t.signUp(), t.signUp()])
    const [aKey] = (await t.json('GET', '/api/keys', { cookie: a.cookie })).body.data
    const bList = (await t.json('GET', '/api/keys', { cookie: b.cookie })).body.data
    expect(bList.map((k: { id: string }) => k.id)).not.toContain(aKey.id)
    expect(JSON.stringify(bList)).not.toContain(aKey.prefix)
    const res = await t.json('DELETE', `/api/keys/${aKey.id}`, { cookie: b.cookie })
    expect(res.status).toBe(404)
    expect(res.body.error).toBeString()
    // exactly the answer for an id that does not exist
    const missingId = crypto.randomUUID()
    const missing = await t.json('DELETE', `/api/keys/${missingId}`, { cookie: b.cookie })
    expect(missing.body.error.replace(missingId, '<id>')).toBe(res.body.error.replace(aKey.id, '<id>'))
    expect((await t.request('GET', '/api/keys', { cookie: a.cookie })).status).toBe(200)
  })
})

describe('CSRF', () => {
  test('a cookie-authenticated create from a foreign origin is 403 and mints no key', async () => {
    const u = await t.signUp({ withKey: false })
    const res = await t.json('POST', '/api/keys', {
      cookie: u.cookie,
      body: { label: 'stolen' },
      headers: { origin: 'https://evil.example' },
    })
    expect(res.status).toBe(403)
    expect(res.body.key).toBeUndefined()
    expect((await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data).toEqual([])
  })

  test('a cookie-authenticated revoke from a foreign origin is 403 and the key keeps working', async () => {
    const u = await t.signUp()
    const [k] = (await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    expect((await t.request('DELETE', `/api/keys/${k.id}`, { cookie: u.cookie, headers: { origin: 'https://evil.example' } })).status).toBe(
      403,
    )
    expect((await t.request('GET', '/api/keys', { cookie: u.cookie })).status).toBe(200)
  })
})
