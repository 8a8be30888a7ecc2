// /api/keys: create (full key once), list (prefix only), revoke, rotation, tiers, the pro cap.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

const KEY = /^svc_[0-9A-Za-z]{40}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const sha256 = (value: string) => new Bun.CryptoHasher('sha256').update(value).digest('hex')

let free: TestApp
let pro: TestApp
beforeAll(async () => {
  ;[free, pro] = await Promise.all([createTestApp(), createTestApp({ env: { DEFAULT_PLAN: 'pro' } })])
})
afterAll(async () => {
  await Promise.all([free.close(), pro.close()])
})

describe('create', () => {
  test('with a label: 201, the full key once, prefix = its first 16 characters, tier = plan', async () => {
    const u = await free.signUp({ withKey: false })
    const res = await free.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'claude desktop' } })
    expect(res.status).toBe(201)
    const k = res.body
    expect(k.key).toMatch(KEY)
    expect(k.prefix).toBe(k.key.slice(0, 16))
    expect(k.prefix).toHaveLength(16)
    expect(k.label).toBe('claude desktop')
    expect(k.tier).toBe('free')
    expect(k.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(k.created_at).toMatch(ISO)
    expect(k.last_used_at).toBeNull()
  })

  test('without a label ({}): label is null', async () => {
    const u = await free.signUp({ withKey: false })
    const res = await free.json('POST', '/api/keys', { cookie: u.cookie, body: {} })
    expect(res.status).toBe(201)
    expect(res.body.key).toMatch(KEY)
    expect(res.body.prefix).toBe(res.body.key.slice(0, 16))
    expect(res.body.label).toBeNull()
  })

  test('without a label (label: null, or only spaces): label is null', async () => {
    for (const label of [null, '   ']) {
      const u = await free.signUp({ withKey: false })
      const res = await free.json('POST', '/api/keys', { cookie: u.cookie, body: { label } })
      expect(res.status).toBe(201)
      expect(res.body.label).toBeNull()
    }
  })

  test('without any body: the label is optional, so a bare POST creates a key', async () => {
    const u = await free.signUp({ withKey: false })
    const res = await free.json('POST', '/api/keys', { cookie: u.cookie })
    expect(res.status).toBe(201)
    expect(res.body.key).toMatch(KEY)
    expect(res.body.label).toBeNull()
  })

  test('the new key authenticates as its creator at once', async () => {
    const u = await free.signUp({ withKey: false })
    const { body } = await free.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'cli' } })
    const session = await free.json('GET', '/api/auth/session', { key: body.key })
    expect(session.status).toBe(200)
    expect(session.body.user.id).toBe(u.id)
    expect(session.body.via).toBe('key')
  })

  test('keys are random: two accounts never get the same key or prefix', async () => {
    const [a, b] = await Promise.all([free.signUp(), free.signUp()])
    expect(a.key).not.toBe(b.key)
    expect(a.key.slice(0, 16)).not.toBe(b.key.slice(0, 16))
  })
})

describe('list', () => {
  test('shows id, 16-character prefix, label, tier, created_at — never the full key or its hash', async () => {
    const u = await pro.signUp({ withKey: false })
    const created = [
      (await pro.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'mcp' } })).body,
      (await pro.json('POST', '/api/keys', { cookie: u.cookie, body: {} })).body,
    ]
    const res = await pro.json('GET', '/api/keys', { cookie: u.cookie })
    expect(res.status).toBe(200)
    expect(res.body.data).toHaveLength(2)
    for (const c of created) {
      const listed = res.body.data.find((k: { id: string }) => k.id === c.id)
      expect(listed).toEqual({
        id: c.id,
        prefix: c.key.slice(0, 16),
        label: c.label,
        tier: 'pro',
        created_at: c.created_at,
        last_used_at: null,
        kind: 'api_key',
        client_name: null,
        scopes: ['read', 'write'],
        parent_id: null,
      })
      expect(listed.key).toBeUndefined()
    }
    const text = JSON.stringify(res.body)
    for (const c of created) {
      expect(text).not.toContain(c.key)
      expect(text).not.toContain(c.key.slice(0, 17))
      expect(text).not.toContain(sha256(c.key))
    }
  })

  test('the creation response is the only place the key appears', async () => {
    const u = await free.signUp({ withKey: false })
    const { body } = await free.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'once' } })
    const again = await free.request('GET', '/api/keys', { cookie: u.cookie })
    expect(await again.text()).not.toContain(body.key)
  })

  test('a fresh account lists no keys', async () => {
    const u = await free.signUp({ withKey: false })
    expect((await free.json('GET', '/api/keys', { cookie: u.cookie })).body).toEqual({ data: [] })
  })

  test('last_used_at is set when the key is used', async () => {
    const u = await free.signUp({ withKey: false })
    const { body } = await free.json('POST', '/api/keys', { cookie: u.cookie, body: {} })
    free.clock.advance(60_000)
    const usedAt = free.clock.now().toISOString()
    await free.request('GET', '/api/workspaces', { key: body.key })
    const list = await free.json('GET', '/api/keys', { cookie: u.cookie })
    expect(list.body.data[0].last_used_at).toBe(usedAt)
  })
})

describe('revoke and rotate', () => {
  test('DELETE answers 204; the key fails with 401 on the very next request and disappears from the list', async () => {
    const u = await free.signUp()
    const [k] = (await free.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    expect((await free.request('GET', '/api/workspaces', { key: u.key })).status).toBe(200)
    expect((await free.request('DELETE', `/api/keys/${k.id}`, { cookie: u.cookie })).status).toBe(204)
    expect((await free.request('GET', '/api/workspaces', { key: u.key })).status).toBe(401)
    expect((await free.json('GET', '/api/keys', { cookie: u.cookie })).body.data).toEqual([])
  })

  test('a key with the keys scope can revoke itself', async () => {
    const u = await free.signUp({ withKey: false })
    const k = (await free.json('POST', '/api/keys', { cookie: u.cookie, body: { scopes: ['read', 'keys'] } })).body
    expect((await free.request('DELETE', `/api/keys/${k.id}`, { key: k.key })).status).toBe(204)
    expect((await free.request('GET', '/api/keys', { key: k.key })).status).toBe(401)
  })

  test('rotation: several keys are valid at once; deleting the old one leaves the new one working', async () => {
    const u = await pro.signUp() // key #1
    const fresh = (await pro.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'rotated' } })).body
    expect((await pro.request('GET', '/api/workspaces', { key: u.key })).status).toBe(200)
    expect((await pro.request('GET', '/api/workspaces', { key: fresh.key })).status).toBe(200)
    const old = (await pro.json('GET', '/api/keys', { cookie: u.cookie })).body.data.find((k: { id: string }) => k.id !== fresh.id)
    expect((await pro.request('DELETE', `/api/keys/${old.id}`, { cookie: u.cookie })).status).toBe(204)
    expect((await pro.request('GET', '/api/workspaces', { key: u.key })).status).toBe(401)
    expect((await pro.request('GET', '/api/workspaces', { key: fresh.key })).status).toBe(200)
  })

  test('on the free plan, revoking the one key makes room for a new one', async () => {
    const u = await free.signUp()
    const [k] = (await free.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    expect((await free.request('DELETE', `/api/keys/${k.id}`, { cookie: u.cookie })).status).toBe(204)
    const res = await free.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'replacement' } })
    expect(res.status).toBe(201)
    expect(res.body.key).not.toBe(u.key)
  })
})

describe('plans', () => {
  test('pro allows 10 keys, each tier "pro"; the 11th is 402', async () => {
    const u = await pro.signUp() // 1
    for (let i = 2; i <= 10; i++) {
      const res = await pro.json('POST', '/api/keys', { cookie: u.cookie, body: { label: `tool ${i}` } })
      expect(res.status).toBe(201)
      expect(res.body.tier).toBe('pro')
    }
    const eleventh = await pro.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'one too many' } })
    expect(eleventh.status).toBe(402)
    expect(eleventh.body.error).toContain('API key')
    expect(eleventh.body.error).toContain('10')
    const list = (await pro.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    expect(list).toHaveLength(10)
    expect(new Set(list.map((k: { tier: string }) => k.tier))).toEqual(new Set(['pro']))
  })

  test("tier equals the account's plan", async () => {
    const f = await free.signUp()
    expect((await free.json('GET', '/api/keys', { cookie: f.cookie })).body.data[0].tier).toBe('free')
    const p = await pro.signUp()
    expect((await pro.json('GET', '/api/keys', { cookie: p.cookie })).body.data[0].tier).toBe('pro')
    expect((await pro.json('GET', '/api/auth/session', { key: p.key })).body.user.plan).toBe('pro')
  })
})
