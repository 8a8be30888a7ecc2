// Search, rate limiting per plan: 429 with Retry-After and RateLimit-* headers past the limit, a new minute
// opens a new window, counting is per user (not per credential), and shared by processes on one database.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { searchPath } from './search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { PLAN_FREE_SEARCH_PER_MIN: '3' } })
})
afterAll(() => t.close())

const searchAs = (app: TestApp, u: TestUser, via: 'key' | 'cookie' = 'key') =>
  app.json('GET', searchPath({ q: 'anything' }), via === 'key' ? { key: u.key } : { cookie: u.cookie })

const headersOf = (res: { headers: Headers }) => ({
  limit: res.headers.get('ratelimit-limit'),
  remaining: res.headers.get('ratelimit-remaining'),
  reset: Number(res.headers.get('ratelimit-reset')),
})

/** Moves the clock to `seconds` past the start of the next minute, so windows and Retry-After are exact. */
const toSecondOfNextMinute = (app: TestApp, seconds: number) => {
  const now = app.clock.now().getTime()
  app.clock.set(new Date(Math.floor(now / 60_000) * 60_000 + 60_000 + seconds * 1000))
}

describe('past the plan limit (PLAN_FREE_SEARCH_PER_MIN=3)', () => {
  test('3 searches pass counting down RateLimit-Remaining; the 4th is 429 with Retry-After and an error', async () => {
    toSecondOfNextMinute(t, 10)
    const u = await t.signUp()
    for (const remaining of ['2', '1', '0']) {
      const res = await searchAs(t, u)
      expect(res.status).toBe(200)
      expect(headersOf(res)).toEqual({ limit: '3', remaining, reset: 50 })
    }
    const refused = await searchAs(t, u)
    expect(refused.status).toBe(429)
    expect(refused.body.error).toBeString()
    expect(refused.body.error).toContain('3')
    expect(refused.headers.get('retry-after')).toBe('50')
    expect(headersOf(refused)).toEqual({ limit: '3', remaining: '0', reset: 50 })
    // still refused later in the same minute, with a shorter wait
    t.clock.advance(45_000)
    const later = await searchAs(t, u)
    expect(later.status).toBe(429)
    expect(later.headers.get('retry-after')).toBe('5')
  })

  test('in a new minute searching works again', async () => {
    const u = await t.signUp()
    for (let i = 0; i < 3; i++) expect((await searchAs(t, u)).status).toBe(200)
    expect((await searchAs(t, u)).status).toBe(429)
    t.clock.advance(61_000)
    const res = await searchAs(t, u)
    expect(res.status).toBe(200)
    expect(headersOf(res).remaining).toBe('2')
  })

  test('the count is per user: another user is unaffected', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()]
    for (let i = 0; i < 4; i++) await searchAs(t, a)
    expect((await searchAs(t, a)).status).toBe(429)
    const res = await searchAs(t, b)
    expect(res.status).toBe(200)
    expect(headersOf(res).remaining).toBe('2')
  })

  test("a user's key and session cookie share one count", async () => {
    const u = await t.signUp()
    expect((await searchAs(t, u, 'key')).status).toBe(200)
    expect((await searchAs(t, u, 'cookie')).status).toBe(200)
    expect((await searchAs(t, u, 'key')).status).toBe(200)
    expect((await searchAs(t, u, 'cookie')).status).toBe(429)
    expect((await searchAs(t, u, 'key')).status).toBe(429)
  })

  test('concurrent searches are all counted: exactly the limit pass', async () => {
    const u = await t.signUp()
    const statuses = (await Promise.all(Array.from({ length: 8 }, () => searchAs(t, u)))).map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(3)
    expect(statuses.filter((s) => s === 429)).toHaveLength(5)
  })

  test('two apps over one database share the count', async () => {
    const second = await createTestApp({ deps: { ...t.deps } })
    const u = await t.signUp()
    expect((await searchAs(t, u)).status).toBe(200)
    expect((await searchAs(second, u)).status).toBe(200)
    expect(headersOf(await searchAs(t, u)).remaining).toBe('0')
    expect((await searchAs(second, u)).status).toBe(429)
    expect((await searchAs(t, u)).status).toBe(429)
    // no close(): `second` shares t's database, which afterAll closes once
  })

  test('refused requests (401, 400) do not use up the allowance', async () => {
    const u = await t.signUp()
    expect((await t.json('GET', searchPath({ q: 'x' }))).status).toBe(401)
    expect((await t.json('GET', searchPath({ q: 'x', limit: 0 }), { key: u.key })).status).toBe(400)
    const res = await searchAs(t, u)
    expect(res.status).toBe(200)
    expect(headersOf(res).remaining).toBe('2')
  })
})

describe('plan defaults', () => {
  test('the free plan allows 60 searches a minute: the 61st is 429', async () => {
    const app = await createTestApp()
    try {
      const u = await app.signUp()
      for (let i = 1; i <= 60; i++) {
        const res = await searchAs(app, u)
        expect({ i, status: res.status }).toEqual({ i, status: 200 })
        if (i === 1) expect(headersOf(res)).toMatchObject({ limit: '60', remaining: '59' })
      }
      const refused = await searchAs(app, u)
      expect(refused.status).toBe(429)
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60)
    } finally {
      await app.close()
    }
  })

  test('the pro plan allows 600 a minute', async () => {
    const app = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
    try {
      const u = await app.signUp()
      const res = await searchAs(app, u)
      expect(res.status).toBe(200)
      expect(headersOf(res)).toMatchObject({ limit: '600', remaining: '599' })
    } finally {
      await app.close()
    }
  })
})
