// Credentials: session cookies (attributes, sliding expiry, expiry, sign-out), bearer keys, and the
// Origin rule for cookie-authenticated writes.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { BASE, createTestApp, type TestApp } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

const DAY = 86_400_000
const PASSWORD = 'correct horse battery'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { ALLOWED_ORIGINS: 'http://localhost:5173' } })
})
afterAll(() => t.close())

/** The Set-Cookie header split into its name=value and its attributes (lower-cased names). */
function parseSetCookie(header: string | null) {
  expect(header).not.toBeNull()
  const [pair, ...rest] = header!.split(';').map((p) => p.trim())
  const attrs = new Map<string, string | true>()
  for (const a of rest) {
    const eq = a.indexOf('=')
    attrs.set((eq < 0 ? a : a.slice(0, eq)).toLowerCase(), eq < 0 ? true : a.slice(eq + 1))
  }
  const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)]
  return { name, value, attrs, pair: pair! }
}

const session = (cookie: string) => t.request('GET', '/api/auth/session', { cookie })

describe('session cookie attributes', () => {
  test('on http://localhost: session=<token>; Path=/; HttpOnly; SameSite=Lax; no Secure; expires in 30 days', async () => {
    const before = t.clock.now()
    const res = await t.request('POST', '/api/auth/sign-up', {
      body: { email: `c-${crypto.randomUUID()}@example.com`, password: PASSWORD },
    })
    expect(res.status).toBe(201)
    const c = parseSetCookie(res.headers.get('set-cookie'))
    expect(c.name).toBe('session')
    expect(c.value.length).toBeGreaterThanOrEqual(20)
    expect(c.attrs.get('httponly')).toBe(true)
    expect(String(c.attrs.get('samesite')).toLowerCase()).toBe('lax')
    expect(c.attrs.get('path')).toBe('/')
    expect(c.attrs.has('secure')).toBe(false)
    const expires = new Date(String(c.attrs.get('expires'))).getTime()
    expect(Math.abs(expires - (before.getTime() + 30 * DAY))).toBeLessThan(2000)
  })

  test('sign-in sets a new cookie with the same attributes, and a different token', async () => {
    const u = await t.signUp({ withKey: false })
    const res = await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: PASSWORD } })
    const c = parseSetCookie(res.headers.get('set-cookie'))
    expect(c.pair).not.toBe(u.cookie)
    expect(c.attrs.get('httponly')).toBe(true)
    expect(String(c.attrs.get('samesite')).toLowerCase()).toBe('lax')
  })

  test('sign-out clears the cookie', async () => {
    const u = await t.signUp({ withKey: false })
    const res = await t.request('POST', '/api/auth/sign-out', { cookie: u.cookie })
    expect(res.status).toBe(204)
    const c = parseSetCookie(res.headers.get('set-cookie'))
    expect(c.name).toBe('session')
    expect(c.value).toBe('')
    const maxAge = c.attrs.get('max-age')
    const expires = c.attrs.get('expires')
    expect(maxAge === '0' || (typeof expires === 'string' && new Date(expires).getTime() <= Date.now())).toBe(true)
  })

  test('with an https BASE_URL the cookie is also Secure (sign-up, sign-in and sign-out)', async () => {
    const https = await createTestApp({ env: { BASE_URL: 'https://memory.example.com' } })
    try {
      const address = `s-${crypto.randomUUID()}@example.com`
      const up = await https.request('POST', '/api/auth/sign-up', { body: { email: address, password: PASSWORD } })
      expect(up.status).toBe(201)
      const c = parseSetCookie(up.headers.get('set-cookie'))
      expect(c.attrs.get('secure')).toBe(true)
      expect(c.attrs.get('httponly')).toBe(true)
      expect(String(c.attrs.get('samesite')).toLowerCase()).toBe('lax')
      const inRes = await https.request('POST', '/api/auth/sign-in', { body: { email: address, password: PASSWORD } })
      expect(parseSetCookie(inRes.headers.get('set-cookie')).attrs.get('secure')).toBe(true)
      const out = await https.request('POST', '/api/auth/sign-out', { cookie: c.pair, headers: { origin: 'https://memory.example.com' } })
      expect(out.status).toBe(204)
      expect(parseSetCookie(out.headers.get('set-cookie')).attrs.get('secure')).toBe(true)
    } finally {
      await https.close()
    }
  })
})

describe('sliding expiry (30 days, renewed when less than half is left)', () => {
  test('no renewal while more than half is left; renewal after; the renewed session outlives the first expiry', async () => {
    const start = t.clock.now().getTime()
    const u = await t.signUp({ withKey: false })

    t.clock.advance(14 * DAY) // 16 days left
    const early = await session(u.cookie)
    expect(early.status).toBe(200)
    expect(early.headers.get('set-cookie')).toBeNull()

    t.clock.advance(2 * DAY) // 14 days left: less than half
    const renewed = await session(u.cookie)
    expect(renewed.status).toBe(200)
    const c = parseSetCookie(renewed.headers.get('set-cookie'))
    expect(c.pair).toBe(u.cookie) // same session, new expiry
    expect(new Date(String(c.attrs.get('expires'))).getTime()).toBe(Math.floor((start + 46 * DAY) / 1000) * 1000)
    expect(c.attrs.get('httponly')).toBe(true)
    expect(String(c.attrs.get('samesite')).toLowerCase()).toBe('lax')

    // Right after a renewal there is nothing to renew.
    expect((await session(u.cookie)).headers.get('set-cookie')).toBeNull()

    t.clock.advance(29 * DAY) // day 45: past the first expiry (day 30), before the renewed one (day 46)
    expect((await session(u.cookie)).status).toBe(200)
  })

  test('renewal happens on any authenticated request, writes included', async () => {
    const u = await t.signUp({ withKey: false })
    t.clock.advance(20 * DAY)
    const res = await t.request('POST', '/api/workspaces', { cookie: u.cookie, body: { name: 'second' } })
    expect(res.status).toBe(201)
    expect(parseSetCookie(res.headers.get('set-cookie')).pair).toBe(u.cookie)
  })

  test('a session left alone for 30 days has expired: 401, and no cookie is renewed', async () => {
    const u = await t.signUp({ withKey: false })
    t.clock.advance(30 * DAY)
    const res = await session(u.cookie)
    expect(res.status).toBe(401)
    expect(((await res.json()) as { error: string }).error).toBeString()
    expect(res.headers.get('set-cookie')).toBeNull()
    // and it stays expired
    expect((await session(u.cookie)).status).toBe(401)
  })

  test('one minute before the 30 days it still works (and is renewed)', async () => {
    const u = await t.signUp({ withKey: false })
    t.clock.advance(30 * DAY - 60_000)
    const res = await session(u.cookie)
    expect(res.status).toBe(200)
    expect(res.headers.get('set-cookie')).not.toBeNull()
  })

  test('a renewed session still expires 30 days after its last use', async () => {
    const u = await t.signUp({ withKey: false })
    t.clock.advance(20 * DAY)
    expect((await session(u.cookie)).status).toBe(200) // renewed to day 50
    t.clock.advance(30 * DAY + 1)
    expect((await session(u.cookie)).status).toBe(401)
  })

  test('an expired session cannot be used for writes either', async () => {
    const u = await t.signUp({ withKey: false })
    t.clock.advance(31 * DAY)
    expect((await t.request('POST', '/api/workspaces', { cookie: u.cookie, body: { name: 'late' } })).status).toBe(401)
  })

  test('signing in again after expiry gives a fresh working session', async () => {
    const u = await t.signUp({ withKey: false })
    t.clock.advance(31 * DAY)
    const res = await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: PASSWORD } })
    expect(res.status).toBe(200)
    expect((await session(parseSetCookie(res.headers.get('set-cookie')).pair)).status).toBe(200)
  })
})

describe('sign-out', () => {
  test('ends only the session it was sent with', async () => {
    const u = await t.signUp({ withKey: false })
    const other = parseSetCookie(
      (await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: PASSWORD } })).headers.get('set-cookie'),
    ).pair
    expect((await t.request('POST', '/api/auth/sign-out', { cookie: u.cookie })).status).toBe(204)
    expect((await session(u.cookie)).status).toBe(401)
    expect((await session(other)).status).toBe(200)
  })

  test('with the cookie but a foreign or missing Origin it is 403 and the session lives on, like every cookie write', async () => {
    const u = await t.signUp({ withKey: false })
    for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, {}] as Record<string, string>[]) {
      // The harness adds the service's own Origin to cookie writes unless one is given: {} must mean none.
      const res = await t.app.handle(
        new Request(`${BASE}/api/auth/sign-out`, { method: 'POST', headers: { cookie: u.cookie, ...headers } }),
      )
      expect(res.status, JSON.stringify(headers)).toBe(403)
      expect((await res.json()).error).toContain('origin')
      expect(res.headers.get('set-cookie')).toBeNull()
      expect((await session(u.cookie)).status).toBe(200)
    }
  })

  test('without a session it is a harmless 204', async () => {
    expect((await t.request('POST', '/api/auth/sign-out')).status).toBe(204)
  })

  test('signing out does not revoke API keys', async () => {
    const u = await t.signUp()
    await t.request('POST', '/api/auth/sign-out', { cookie: u.cookie })
    expect((await t.request('GET', '/api/auth/session', { key: u.key })).status).toBe(200)
  })
})

describe('bearer keys', () => {
  test('a key authenticates as its owner (via key)', async () => {
    const u = await t.signUp()
    const res = await t.json('GET', '/api/auth/session', { key: u.key })
    expect(res.status).toBe(200)
    expect(res.body.user.id).toBe(u.id)
    expect(res.body.via).toBe('key')
  })

  test('the scheme name is case-insensitive', async () => {
    const u = await t.signUp()
    expect((await t.request('GET', '/api/auth/session', { headers: { authorization: `bearer ${u.key}` } })).status).toBe(200)
  })

  test('missing, malformed, unknown and tampered keys are 401 { error }', async () => {
    const u = await t.signUp()
    const tampered = u.key.slice(0, -1) + (u.key.endsWith('A') ? 'B' : 'A')
    const headers = [
      `Bearer ${tampered}`,
      `Bearer svc_${'0'.repeat(40)}`,
      `Bearer ${u.key.slice(0, 16)}`,
      'Bearer not-a-key',
      'Bearer',
      `Basic ${btoa('user:pass')}`,
      u.key,
      `Bearer ${u.key} extra`,
    ]
    for (const authorization of headers) {
      const res = await t.request('GET', '/api/auth/session', { headers: { authorization } })
      expect(res.status).toBe(401)
      expect(((await res.json()) as { error: string }).error).toBeString()
    }
  })

  test('a bad Authorization header is not rescued by a valid cookie', async () => {
    const u = await t.signUp()
    const res = await t.request('GET', '/api/auth/session', { cookie: u.cookie, headers: { authorization: 'Bearer svc_wrong' } })
    expect(res.status).toBe(401)
  })

  test('a key needs no Origin for writes', async () => {
    const u = await t.signUp()
    expect((await t.request('POST', '/api/workspaces', { key: u.key, body: { name: 'by key' } })).status).toBe(201)
  })

  test('a key from a foreign Origin still works (keys are not ambient credentials)', async () => {
    const u = await t.signUp()
    expect(
      (await t.request('POST', '/api/workspaces', { key: u.key, body: { name: 'by key' }, headers: { origin: 'https://evil.example' } }))
        .status,
    ).toBe(201)
  })
})

describe('credentials are checked before the input is (401, not 400)', () => {
  test('no credentials and an invalid body, query or path is still 401', async () => {
    for (const [method, path, body] of [
      ['POST', '/api/workspaces', { name: '' }],
      ['POST', '/api/keys', { label: 42 }],
      ['GET', '/api/workspaces/not-a-uuid/context', undefined],
      ['GET', '/api/documents?limit=0', undefined],
    ] as const) {
      const res = await t.json(method, path, { body })
      expect(res.status).toBe(401)
    }
  })

  test('a revoked key with an invalid body is 401', async () => {
    const u = await t.signUp()
    const [k] = (await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    await t.request('DELETE', `/api/keys/${k.id}`, { cookie: u.cookie })
    expect((await t.request('POST', '/api/workspaces', { key: u.key, body: { name: '' } })).status).toBe(401)
  })
})

describe('cookie-authenticated writes must come from an allowed Origin (403 otherwise)', () => {
  test('a foreign Origin is 403 and nothing changes', async () => {
    const u = await t.signUp({ withKey: false })
    const res = await t.request('POST', '/api/workspaces', {
      cookie: u.cookie,
      body: { name: 'csrf' },
      headers: { origin: 'https://evil.example' },
    })
    expect(res.status).toBe(403)
    expect(((await res.json()) as { error: string }).error).toContain('origin')
    const list = await t.json('GET', '/api/workspaces', { cookie: u.cookie })
    expect(list.body.data.map((w: { name: string }) => w.name)).toEqual(['Default'])
  })

  test('a missing Origin is 403 for writes', async () => {
    const u = await t.signUp({ withKey: false })
    for (const [method, path, body] of [
      ['POST', '/api/workspaces', { name: 'x' }],
      ['POST', '/api/keys', { label: 'x' }],
      ['DELETE', '/api/documents/bulk', { ids: [crypto.randomUUID()] }],
    ] as const) {
      const res = await t.app.handle(
        new Request(`http://localhost:3000${path}`, {
          method,
          headers: { cookie: u.cookie, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      )
      expect(res.status).toBe(403)
    }
  })

  test('reads need no Origin', async () => {
    const u = await t.signUp({ withKey: false })
    expect((await t.request('GET', '/api/workspaces', { cookie: u.cookie })).status).toBe(200)
  })

  test("the service's own origin and a configured one are allowed", async () => {
    const u = await t.signUp({ withKey: false })
    expect(
      (
        await t.request('POST', '/api/workspaces', {
          cookie: u.cookie,
          body: { name: 'own' },
          headers: { origin: 'http://localhost:3000' },
        })
      ).status,
    ).toBe(201)
    expect(
      (await t.request('DELETE', `/api/keys/${crypto.randomUUID()}`, { cookie: u.cookie, headers: { origin: 'http://localhost:5173' } }))
        .status,
    ).toBe(404)
  })

  test('the Origin check is exact (no prefix or scheme tricks)', async () => {
    const u = await t.signUp({ withKey: false })
    for (const origin of ['http://localhost:3000.evil.example', 'https://localhost:3000', 'http://localhost:30000', 'http://localhost']) {
      expect((await t.request('POST', '/api/workspaces', { cookie: u.cookie, body: { name: 'x' }, headers: { origin } })).status).toBe(403)
    }
  })
})
