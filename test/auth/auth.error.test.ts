// /api/auth refusals: invalid sign-up and sign-in input, duplicate accounts, wrong credentials, foreign origins.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const PASSWORD = 'correct horse battery'
const email = () => `err-${crypto.randomUUID().slice(0, 8)}@example.com`

/** The response is `status` with exactly `{ error: <non-empty string>, code }`, and it starts no session. */
async function expectError(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status)
  expect(res.headers.get('set-cookie')).toBeNull()
  const body = (await res.json()) as Record<string, unknown>
  expect(Object.keys(body)).toEqual(['error', 'code'])
  expect(body.error).toBeString()
  expect((body.error as string).length).toBeGreaterThan(0)
  return body.error as string
}

describe('sign-up validation (400 naming the field)', () => {
  test('an invalid email', async () => {
    for (const bad of ['not-an-email', '', 'a@', '@example.com']) {
      const message = await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: bad, password: PASSWORD } }), 400)
      expect(message).toContain('email')
    }
  })

  test('a password shorter than 8 characters', async () => {
    const message = await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: email(), password: 'short' } }), 400)
    expect(message).toContain('password')
  })

  test('a password longer than 256 characters', async () => {
    const message = await expectError(
      await t.request('POST', '/api/auth/sign-up', { body: { email: email(), password: 'p'.repeat(257) } }),
      400,
    )
    expect(message).toContain('password')
  })

  test('missing fields', async () => {
    expect(await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: email() } }), 400)).toContain('password')
    expect(await expectError(await t.request('POST', '/api/auth/sign-up', { body: { password: PASSWORD } }), 400)).toContain('email')
  })

  test('wrong types', async () => {
    expect(
      await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: email(), password: 12345678 } }), 400),
    ).toContain('password')
    expect(
      await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: email(), password: PASSWORD, name: 42 } }), 400),
    ).toContain('name')
  })

  test('a name over 100 characters', async () => {
    expect(
      await expectError(
        await t.request('POST', '/api/auth/sign-up', { body: { email: email(), password: PASSWORD, name: 'n'.repeat(101) } }),
        400,
      ),
    ).toContain('name')
  })

  test('no body, a JSON array, and malformed JSON', async () => {
    await expectError(await t.request('POST', '/api/auth/sign-up'), 400)
    await expectError(await t.request('POST', '/api/auth/sign-up', { body: [] }), 400)
    await expectError(
      await t.request('POST', '/api/auth/sign-up', { body: '{"email":', headers: { 'content-type': 'application/json' } }),
      400,
    )
  })

  test('nothing is created by a refused sign-up', async () => {
    const address = email()
    await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: address, password: 'short' } }), 400)
    expect((await t.request('POST', '/api/auth/sign-up', { body: { email: address, password: PASSWORD } })).status).toBe(201)
  })
})

describe('duplicate accounts', () => {
  test('the same email again is 409', async () => {
    const u = await t.signUp({ withKey: false })
    const message = await expectError(
      await t.request('POST', '/api/auth/sign-up', { body: { email: u.email, password: 'another password' } }),
      409,
    )
    expect(message).toContain('email')
  })

  test('the same email in another case is the same account (409)', async () => {
    const address = email()
    expect((await t.request('POST', '/api/auth/sign-up', { body: { email: address, password: PASSWORD } })).status).toBe(201)
    await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: address.toUpperCase(), password: PASSWORD } }), 409)
  })

  test('the original password still works after a refused duplicate', async () => {
    const u = await t.signUp({ withKey: false })
    await expectError(await t.request('POST', '/api/auth/sign-up', { body: { email: u.email, password: 'attacker password' } }), 409)
    expect((await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: PASSWORD } })).status).toBe(200)
    await expectError(await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: 'attacker password' } }), 401)
  })
})

describe('sign-in', () => {
  test('missing or mistyped fields are 400', async () => {
    await expectError(await t.request('POST', '/api/auth/sign-in', { body: { email: 'a@example.com' } }), 400)
    await expectError(await t.request('POST', '/api/auth/sign-in', { body: { password: PASSWORD } }), 400)
    await expectError(await t.request('POST', '/api/auth/sign-in', { body: { email: 'a@example.com', password: ['x'] } }), 400)
    await expectError(await t.request('POST', '/api/auth/sign-in'), 400)
  })

  test('a wrong password is 401 and sets no cookie; so is an unknown email, with the same message', async () => {
    const u = await t.signUp({ withKey: false })
    const wrong = await expectError(
      await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: 'not the password' } }),
      401,
    )
    const unknown = await expectError(
      await t.request('POST', '/api/auth/sign-in', { body: { email: email(), password: 'not the password' } }),
      401,
    )
    expect(wrong).toBe(unknown)
    expect(wrong.toLowerCase()).not.toContain('unknown')
    expect(wrong.toLowerCase()).not.toContain('no account')
  })

  test('the password is case-sensitive', async () => {
    const u = await t.signUp({ withKey: false })
    await expectError(await t.request('POST', '/api/auth/sign-in', { body: { email: u.email, password: PASSWORD.toUpperCase() } }), 401)
  })
})

describe('login CSRF: a foreign Origin cannot sign up or sign in', () => {
  test('sign-up from a foreign origin is 403 and creates no account', async () => {
    const address = email()
    await expectError(
      await t.request('POST', '/api/auth/sign-up', {
        body: { email: address, password: PASSWORD },
        headers: { origin: 'https://evil.example' },
      }),
      403,
    )
    expect((await t.request('POST', '/api/auth/sign-up', { body: { email: address, password: PASSWORD } })).status).toBe(201)
  })

  test('sign-in from a foreign origin is 403', async () => {
    const u = await t.signUp({ withKey: false })
    await expectError(
      await t.request('POST', '/api/auth/sign-in', {
        body: { email: u.email, password: PASSWORD },
        headers: { origin: 'https://evil.example' },
      }),
      403,
    )
  })

  test("sign-in from the service's own origin works", async () => {
    const u = await t.signUp({ withKey: false })
    const res = await t.request('POST', '/api/auth/sign-in', {
      body: { email: u.email, password: PASSWORD },
      headers: { origin: 'http://localhost:3000' },
    })
    expect(res.status).toBe(200)
  })
})

describe('session', () => {
  test('GET /api/auth/session without credentials is 401 { error }', async () => {
    await expectError(await t.request('GET', '/api/auth/session'), 401)
  })

  test('a made-up session cookie is 401', async () => {
    await expectError(await t.request('GET', '/api/auth/session', { cookie: 'session=abcdefghijklmnopqrstuvwxyz234567' }), 401)
    await expectError(await t.request('GET', '/api/auth/session', { cookie: 'session=' }), 401)
  })
})
