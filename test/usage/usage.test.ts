// GET /api/usage: documents, storage and API calls against the plan; counting shared by processes on one database.
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

const usage = async (app: TestApp, u: TestUser) => {
  const res = await app.json('GET', '/api/usage', { key: u.key })
  expect(res.status).toBe(200)
  return res.body
}

/** The first instant of the month after the clock's current one (UTC). */
const nextMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1))

describe('counters and limits', () => {
  test('a fresh free account: documents, storage and api_calls with the free limits', async () => {
    const u = await t.signUp()
    const body = await usage(t, u)
    expect(body).toEqual({
      plan: 'free',
      period: t.clock.now().toISOString().slice(0, 7),
      documents: { used: 0, limit: 1000 },
      storage_bytes: { used: 0, limit: 100 * 1024 * 1024 },
      api_calls: { used: expect.any(Number), limit: null },
    })
  })

  test('documents and storage follow ingest and delete', async () => {
    const u = await t.signUp()
    const a = (await t.json('POST', '/api/documents', { key: u.key, body: { title: 'A', body: 'first body' } })).body
    const b = (await t.json('POST', '/api/documents', { key: u.key, body: { title: 'B', body: 'a second, longer body ✓' } })).body
    let body = await usage(t, u)
    expect(body.documents.used).toBe(2)
    expect(body.storage_bytes.used).toBe(a.size_bytes + b.size_bytes)
    expect(body.storage_bytes.used).toBeGreaterThanOrEqual(Buffer.byteLength('first body') + Buffer.byteLength('a second, longer body ✓'))
    await t.request('DELETE', `/api/documents/${a.id}`, { key: u.key })
    body = await usage(t, u)
    expect(body.documents.used).toBe(1)
    expect(body.storage_bytes.used).toBe(b.size_bytes)
  })

  test("one user's documents do not count for another", async () => {
    const [a, b] = await Promise.all([t.signUp(), t.signUp()])
    await t.request('POST', '/api/documents', { key: a.key, body: { body: 'only for A' } })
    expect((await usage(t, b)).documents.used).toBe(0)
  })

  test('pro limits, and per-plan overrides from the environment', async () => {
    const pro = await createTestApp({ env: { DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '5000', PLAN_PRO_API_CALLS_PER_MONTH: '100000' } })
    try {
      const u = await pro.signUp()
      const body = await usage(pro, u)
      expect(body.plan).toBe('pro')
      expect(body.documents.limit).toBe(5000)
      expect(body.storage_bytes.limit).toBe(10 * 1024 ** 3)
      expect(body.api_calls.limit).toBe(100000)
    } finally {
      await pro.close()
    }
  })
})

describe('api_calls', () => {
  test('every authenticated request counts one, whatever its route or outcome', async () => {
    const u = await t.signUp()
    const start = (await usage(t, u)).api_calls.used
    await t.request('GET', '/api/documents', { key: u.key })
    await t.request('GET', '/api/workspaces', { cookie: u.cookie }) // sessions count too
    await t.request('GET', `/api/documents/${crypto.randomUUID()}`, { key: u.key }) // 404 after authentication
    await t.request('POST', '/api/workspaces', { key: u.key, body: { name: '' } }) // 400 after authentication
    const after = (await usage(t, u)).api_calls.used
    expect(after).toBe(start + 5) // four requests plus this usage request
  })

  test('the usage request counts itself', async () => {
    const u = await t.signUp()
    const first = (await usage(t, u)).api_calls.used
    const second = (await usage(t, u)).api_calls.used
    expect(second).toBe(first + 1)
  })

  test('public routes and refused credentials do not count', async () => {
    const u = await t.signUp()
    const start = (await usage(t, u)).api_calls.used
    await t.request('GET', '/')
    await t.request('GET', '/api/documents')
    await t.request('GET', '/api/documents', { key: `svc_${'x'.repeat(40)}` })
    await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: 'wrong password' } })
    expect((await usage(t, u)).api_calls.used).toBe(start + 1)
  })

  test('calls are counted per user', async () => {
    const [a, b] = await Promise.all([t.signUp(), t.signUp()])
    const bStart = (await usage(t, b)).api_calls.used
    for (let i = 0; i < 3; i++) await t.request('GET', '/api/documents', { key: a.key })
    expect((await usage(t, b)).api_calls.used).toBe(bStart + 1)
  })

  test('concurrent requests are all counted', async () => {
    const u = await t.signUp()
    const start = (await usage(t, u)).api_calls.used
    await Promise.all(Array.from({ length: 20 }, () => t.request('GET', '/api/workspaces', { key: u.key })))
    expect((await usage(t, u)).api_calls.used).toBe(start + 21)
  })

  test('the counter starts again in a new calendar month', async () => {
    const u = await t.signUp()
    await t.request('GET', '/api/documents', { key: u.key })
    expect((await usage(t, u)).api_calls.used).toBeGreaterThan(1)
    t.clock.set(nextMonth(t.clock.now()))
    const body = await usage(t, u)
    expect(body.period).toBe(t.clock.now().toISOString().slice(0, 7))
    expect(body.api_calls.used).toBe(1)
  })
})

describe('two apps sharing one database', () => {
  test('both count into the same counter', async () => {
    const second = await createTestApp({ deps: { ...t.deps } })
    const u = await t.signUp()
    const start = (await usage(t, u)).api_calls.used
    for (let i = 0; i < 3; i++) {
      expect((await t.request('GET', '/api/documents', { key: u.key })).status).toBe(200)
      expect((await second.request('GET', '/api/documents', { key: u.key })).status).toBe(200)
    }
    const fromSecond = (await usage(second, u)).api_calls.used
    expect(fromSecond).toBe(start + 7)
    expect((await usage(t, u)).api_calls.used).toBe(start + 8)
    // no close(): `second` shares t's database, which afterAll closes once
  })

  test('concurrently, through both apps, no call is lost', async () => {
    const second = await createTestApp({ deps: { ...t.deps } })
    const u = await t.signUp()
    const start = (await usage(t, u)).api_calls.used
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? t : second).request('GET', '/api/workspaces', { key: u.key })))
    expect((await usage(second, u)).api_calls.used).toBe(start + 21)
  })
})

describe('a monthly cap (PLAN_FREE_API_CALLS_PER_MONTH=3)', () => {
  let capped: TestApp
  beforeAll(async () => {
    capped = await createTestApp({ env: { PLAN_FREE_API_CALLS_PER_MONTH: '3' } })
  })
  afterAll(() => capped.close())

  test('the 4th authenticated request is 402 naming the limit; usage shows the limit', async () => {
    const u = await capped.signUp({ withKey: false }) // sign-up is public: nothing counted yet
    const first = await capped.json('GET', '/api/usage', { cookie: u.cookie })
    expect(first.status).toBe(200)
    expect(first.body.api_calls).toEqual({ used: 1, limit: 3 })
    expect((await capped.request('GET', '/api/documents', { cookie: u.cookie })).status).toBe(200)
    expect((await capped.request('GET', '/api/workspaces', { cookie: u.cookie })).status).toBe(200)
    const fourth = await capped.json('GET', '/api/documents', { cookie: u.cookie })
    expect(fourth.status).toBe(402)
    expect(fourth.body.error).toContain('API call')
    expect(fourth.body.error).toContain('3')
    // and it stays refused, on every route, this month
    expect((await capped.request('GET', '/api/usage', { cookie: u.cookie })).status).toBe(402)
    expect((await capped.request('POST', '/api/workspaces', { cookie: u.cookie, body: { name: 'x' } })).status).toBe(402)
  })

  test('the cap is per user', async () => {
    const [a, b] = await Promise.all([capped.signUp({ withKey: false }), capped.signUp({ withKey: false })])
    for (let i = 0; i < 4; i++) await capped.request('GET', '/api/documents', { cookie: a.cookie })
    expect((await capped.request('GET', '/api/documents', { cookie: a.cookie })).status).toBe(402)
    expect((await capped.request('GET', '/api/documents', { cookie: b.cookie })).status).toBe(200)
  })

  test('the cap holds across two apps on one database', async () => {
    const other = await createTestApp({ deps: { ...capped.deps } })
    const u = await capped.signUp({ withKey: false })
    expect((await capped.request('GET', '/api/documents', { cookie: u.cookie })).status).toBe(200)
    expect((await other.request('GET', '/api/documents', { cookie: u.cookie })).status).toBe(200)
    expect((await capped.request('GET', '/api/documents', { cookie: u.cookie })).status).toBe(200)
    expect((await other.request('GET', '/api/documents', { cookie: u.cookie })).status).toBe(402)
  })

  test('a new month lifts the refusal', async () => {
    const u = await capped.signUp() // creating the key is call 1
    for (let i = 0; i < 3; i++) await capped.request('GET', '/api/documents', { key: u.key })
    expect((await capped.request('GET', '/api/documents', { key: u.key })).status).toBe(402)
    capped.clock.set(nextMonth(capped.clock.now()))
    expect((await capped.request('GET', '/api/documents', { key: u.key })).status).toBe(200)
  })
})

describe('access', () => {
  test('usage needs credentials', async () => {
    const res = await t.json('GET', '/api/usage')
    expect(res.status).toBe(401)
    expect(res.body.error).toBeString()
  })
})
