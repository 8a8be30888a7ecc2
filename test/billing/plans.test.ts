// Plans for self-hosters: without Stripe an account without a paying subscription is on DEFAULT_PLAN as
// configured now (unlimited unless set), a 402 names the setting that lifts the cap, and with Stripe the
// default stays free. A "restart" is a new service over the same database with another environment.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { subscriptions } from '../../db/schema'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { BASE, createTestApp, type TestApp, type TestUser } from '../harness'
import { dereference } from '../e2e/document'

// The preload's 30 s is lost for files that run after a src/*.test.ts file.
setDefaultTimeout(30_000)

const BASE_ENV = { EMBEDDING_PROVIDER: 'none' }

let first: TestApp
beforeAll(async () => {
  first = await createTestApp({ env: { ...BASE_ENV, DEFAULT_PLAN: 'free' } })
})
afterAll(() => first.close())

/** The same database served again with `env`, the way a restart with a changed environment serves it. */
async function restart(env: Record<string, string>): Promise<TestApp> {
  const config = loadConfig({ DATA_DIR: 'memory://', LOG_LEVEL: 'silent', BASE_URL: BASE, ...BASE_ENV, ...env })
  const deps = await createDeps(config, { database: { db: first.deps.db, kind: 'pglite', close: async () => {} }, clock: first.clock })
  return createTestApp({ deps })
}

/** The plan as every surface shows it: the session's user, usage, the keys' tier. */
async function planSeen(app: TestApp, u: TestUser) {
  const [session, usage, keys] = await Promise.all([
    app.json('GET', '/api/auth/session', { cookie: u.cookie }),
    app.json('GET', '/api/usage', { key: u.key }),
    app.json('GET', '/api/keys', { cookie: u.cookie }),
  ])
  return { user: session.body.user.plan, usage: usage.body.plan, tiers: [...new Set(keys.body.data.map((k: { tier: string }) => k.tier))] }
}

const newKey = (app: TestApp, u: TestUser) => app.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'another' } })

describe('without Stripe', () => {
  test('DEFAULT_PLAN unset: unlimited — no cap on keys, workspaces, documents or storage; usage shows null limits', async () => {
    const app = await createTestApp({ env: { ...BASE_ENV, DEFAULT_PLAN: '' } })
    try {
      const u = await app.signUp()
      expect(await planSeen(app, u)).toEqual({ user: 'unlimited', usage: 'unlimited', tiers: ['unlimited'] })
      for (let i = 0; i < 3; i++) expect((await newKey(app, u)).status).toBe(201)
      for (let i = 0; i < 3; i++)
        expect((await app.json('POST', '/api/workspaces', { key: u.key, body: { name: `w${i}` } })).status).toBe(201)
      const usage = (await app.json('GET', '/api/usage', { key: u.key })).body
      expect(usage.documents.limit).toBeNull()
      expect(usage.storage_bytes.limit).toBeNull()
      const check = await app.json('GET', '/api/documents/check?size_bytes=1000000', { key: u.key })
      expect(check.status).toBe(200)
      expect(check.body).toMatchObject({ allowed: true, usage: { documents: { limit: null }, storage_bytes: { limit: null } } })
    } finally {
      await app.close()
    }
  })

  test('the rates of the unlimited plan stay in force (600 searches a minute) and are set by PLAN_UNLIMITED_*', async () => {
    const app = await createTestApp({ env: { ...BASE_ENV, DEFAULT_PLAN: '', PLAN_UNLIMITED_SEARCH_PER_MIN: '2' } })
    const defaults = await createTestApp({ env: { ...BASE_ENV, DEFAULT_PLAN: 'unlimited' } })
    try {
      const u = await app.signUp()
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((await app.request('GET', '/api/search?q=anything', { key: u.key })).status)
      expect(statuses).toEqual([200, 200, 429])
      const d = await defaults.signUp()
      expect((await defaults.request('GET', '/api/search?q=anything', { key: d.key })).headers.get('ratelimit-limit')).toBe('600')
    } finally {
      await Promise.all([app.close(), defaults.close()])
    }
  })

  test('a 402 names the settings that lift the cap', async () => {
    const u = await first.signUp()
    const res = await newKey(first, u)
    expect(res.status).toBe(402)
    expect(res.body.error).toBe(
      'API key limit reached: the free plan allows 1; set DEFAULT_PLAN=pro or unlimited, or raise PLAN_FREE_API_KEYS to lift it',
    )
  })

  test('DEFAULT_PLAN is read live: an account made on free moves to unlimited, then pro, as the setting changes', async () => {
    const u = await first.signUp()
    expect(await planSeen(first, u)).toEqual({ user: 'free', usage: 'free', tiers: ['free'] })
    expect((await newKey(first, u)).status).toBe(402)

    const unlimited = await restart({ DEFAULT_PLAN: '' })
    expect(await planSeen(unlimited, u)).toEqual({ user: 'unlimited', usage: 'unlimited', tiers: ['unlimited'] })
    expect((await newKey(unlimited, u)).status).toBe(201)
    // Signing in again shows the same plan as the session does.
    const signIn = await unlimited.json('POST', '/api/auth/sign-in', { body: { email: u.email, password: 'correct horse battery' } })
    expect(signIn.body.user.plan).toBe('unlimited')

    const pro = await restart({ DEFAULT_PLAN: 'pro' })
    expect(await planSeen(pro, u)).toEqual({ user: 'pro', usage: 'pro', tiers: ['pro'] })
    await Promise.all([unlimited.close(), pro.close()])
  })

  test('a paying subscription keeps its plan whatever DEFAULT_PLAN says; a canceled one falls back to it', async () => {
    const u = await first.signUp()
    await first.deps.db.insert(subscriptions).values({ user_id: u.id, plan: 'pro', status: 'active' })
    expect((await planSeen(first, u)).user).toBe('pro')
    const later = await restart({ DEFAULT_PLAN: 'free' })
    expect((await planSeen(later, u)).user).toBe('pro')
    await first.deps.db.update(subscriptions).set({ status: 'canceled' })
    expect((await planSeen(later, u)).user).toBe('free')
    await later.close()
  })
})

describe('with Stripe', () => {
  test('DEFAULT_PLAN unset: free, as before, and the 402 points to the pro plan, not to settings', async () => {
    const app = await createTestApp({
      env: { ...BASE_ENV, DEFAULT_PLAN: '', STRIPE_SECRET_KEY: 'sk_test_plans', STRIPE_API_URL: 'http://127.0.0.1:9' },
    })
    try {
      const u = await app.signUp()
      expect(await planSeen(app, u)).toEqual({ user: 'free', usage: 'free', tiers: ['free'] })
      const res = await newKey(app, u)
      expect(res.status).toBe(402)
      expect(res.body.error).toBe('API key limit reached: the free plan allows 1; upgrade to pro for more')
    } finally {
      await app.close()
    }
  })
})

test("every schema that shows a plan (user, usage, keys' tier, billing) declares free, pro and unlimited", async () => {
  const doc = (await first.json('GET', '/openapi/json')).body
  const found: { where: string; schema: { enum?: string[] } }[] = []
  const walk = (node: unknown, where: string) => {
    if (!node || typeof node !== 'object') return
    const properties = (node as { properties?: Record<string, { enum?: string[] }> }).properties
    for (const name of ['plan', 'tier']) if (properties?.[name]) found.push({ where: `${where}.${name}`, schema: properties[name]! })
    for (const [key, value] of Object.entries(node)) walk(value, `${where}/${key}`)
  }
  // Schemas are shared by $ref: walk them where each route uses them.
  walk(dereference(doc).paths, '')
  const where = found.map((f) => f.where).join('\n')
  for (const path of ['/api/usage', '/api/auth/session', '/api/keys', '/api/billing/subscription']) expect(where).toContain(path)
  for (const f of found) expect(f.schema.enum, f.where).toEqual(['free', 'pro', 'unlimited'])
})
