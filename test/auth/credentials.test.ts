// Credentials a person controls: changing the password ends the other sessions, the signed-in sessions are listed
// and ended one by one or everywhere, a password is reset and an address verified by a link mailed through a real
// SMTP server, and a server without mail has the administrator's command instead. No key reaches any of it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { users } from '../../db/schema'
import { adminResetPassword, adminSignOut, adminVerifyEmail } from '../../src/modules/auth/admin.service'
import { MAILS_PER_HOUR } from '../../src/modules/auth/email-links.service'
import { startSmtp, type LocalSmtp } from '../fakes/smtp'
import { BASE, createTestApp, type TestApp, type TestUser } from '../harness'

setDefaultTimeout(60_000)

const PASSWORD = 'correct horse battery'
let t: TestApp // no mail
let m: TestApp // mail through `smtp`
let smtp: LocalSmtp

beforeAll(async () => {
  smtp = await startSmtp()
  ;[t, m] = await Promise.all([createTestApp(), createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Memory <no-reply@example.com>' } })])
})
afterAll(async () => {
  await Promise.all([t.close(), m.close()])
  await smtp.stop()
})

const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!

/** Another browser signing in to the same account. */
async function signInAgain(app: TestApp, email: string, password = PASSWORD, userAgent = 'Second Browser/1.0') {
  const res = await app.request('POST', '/api/auth/sign-in', { body: { email, password }, headers: { 'user-agent': userAgent } })
  expect(res.status).toBe(200)
  return cookieOf(res)
}

const signedIn = async (app: TestApp, cookie: string) => (await app.request('GET', '/api/auth/session', { cookie })).status === 200
const signInStatus = async (app: TestApp, email: string, password: string) =>
  (await app.request('POST', '/api/auth/sign-in', { body: { email, password } })).status

describe('changing the password', () => {
  test('takes the current one; the new one must pass the rules; every other session ends, this one stays', async () => {
    const u = await t.signUp()
    const other = await signInAgain(t, u.email)
    const wrong = await t.json('POST', '/api/auth/password', {
      cookie: u.cookie,
      body: { current_password: 'nope nope', new_password: 'a brand new phrase' },
    })
    expect(wrong.status).toBe(403)
    const missing = await t.json('POST', '/api/auth/password', { cookie: u.cookie, body: { new_password: 'a brand new phrase' } })
    expect(missing.status).toBe(400)
    expect(missing.body.error).toContain('current_password')
    const trivial = await t.json('POST', '/api/auth/password', {
      cookie: u.cookie,
      body: { current_password: PASSWORD, new_password: 'password' },
    })
    expect(trivial.status).toBe(400)
    expect(await signedIn(t, other)).toBe(true)

    const changed = await t.request('POST', '/api/auth/password', {
      cookie: u.cookie,
      body: { current_password: PASSWORD, new_password: 'a brand new phrase' },
    })
    expect(changed.status).toBe(204)
    expect(await signedIn(t, other)).toBe(false)
    expect(await signedIn(t, u.cookie)).toBe(true)
    expect(await signInStatus(t, u.email, PASSWORD)).toBe(401)
    expect(await signInStatus(t, u.email, 'a brand new phrase')).toBe(200)
  })

  test('a key cannot change it, list sessions or sign anyone out (403); nothing changes', async () => {
    const u = await t.signUp()
    for (const [method, path, body] of [
      ['POST', '/api/auth/password', { current_password: PASSWORD, new_password: 'the attacker phrase' }],
      ['GET', '/api/sessions', undefined],
      ['DELETE', '/api/sessions', undefined],
      ['DELETE', `/api/sessions/${'0'.repeat(64)}`, undefined],
      ['POST', '/api/auth/verify-email', undefined],
      ['DELETE', '/api/account', { confirm: 'DELETE' }],
    ] as const) {
      const res = await t.json(method, path, { key: u.key, body })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 })
      expect(res.body.error).toContain('person signed in')
    }
    expect(await signedIn(t, u.cookie)).toBe(true)
    expect(await signInStatus(t, u.email, PASSWORD)).toBe(200)
  })
})

describe('sessions', () => {
  test('listed newest first with their browser and the current one marked; ending one signs it out at once', async () => {
    const u = await t.signUp()
    t.clock.advance(1000)
    const second = await signInAgain(t, u.email, PASSWORD, 'Firefox/140')
    const list = await t.json('GET', '/api/sessions', { cookie: second })
    expect(list.status).toBe(200)
    expect(list.body.data).toHaveLength(2)
    const [newest, first] = list.body.data
    expect(newest).toMatchObject({ user_agent: 'Firefox/140', current: true })
    expect(first.current).toBe(false)
    expect(JSON.stringify(list.body)).not.toContain(second.split('=')[1]!)

    expect((await t.request('DELETE', `/api/sessions/${first.id}`, { cookie: second })).status).toBe(204)
    expect(await signedIn(t, u.cookie)).toBe(false)
    expect(await signedIn(t, second)).toBe(true)
  })

  test("another account's session is a 404 and keeps working, as is an id that is no session", async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    const [bSession] = (await t.json('GET', '/api/sessions', { cookie: b.cookie })).body.data
    expect((await t.request('DELETE', `/api/sessions/${bSession.id}`, { cookie: a.cookie })).status).toBe(404)
    expect(await signedIn(t, b.cookie)).toBe(true)
    expect((await t.request('DELETE', '/api/sessions/not-a-session', { cookie: a.cookie })).status).toBe(404)
  })

  test('sign out everywhere ends every session, this one too, and clears the cookie; keys keep working', async () => {
    const u = await t.signUp()
    const other = await signInAgain(t, u.email)
    const res = await t.request('DELETE', '/api/sessions', { cookie: u.cookie })
    expect(res.status).toBe(204)
    expect(res.headers.get('set-cookie')).toContain('Max-Age=0')
    expect(await signedIn(t, u.cookie)).toBe(false)
    expect(await signedIn(t, other)).toBe(false)
    expect((await t.request('GET', '/api/workspaces', { key: u.key })).status).toBe(200)
  })
})

describe('a server without mail', () => {
  test('password reset by email answers 503 naming the administrator command', async () => {
    const u = await t.signUp()
    const res = await t.json('POST', '/api/auth/password-reset', { body: { email: u.email } })
    expect(res.status).toBe(503)
    expect(res.body.error).toContain('bun run admin reset-password')
  })

  test('the administrator resets a password (every session ends), verifies an address, signs an account out', async () => {
    const u = await t.signUp()
    const password = await adminResetPassword(t.deps, u.email.toUpperCase())
    expect(password.length).toBeGreaterThanOrEqual(20)
    expect(await signedIn(t, u.cookie)).toBe(false)
    expect(await signInStatus(t, u.email, PASSWORD)).toBe(401)
    const cookie = await signInAgain(t, u.email, password)
    expect((await t.json('GET', '/api/profile', { cookie })).body.email_verified).toBe(false)
    await adminVerifyEmail(t.deps, u.email)
    expect((await t.json('GET', '/api/profile', { cookie })).body.email_verified).toBe(true)
    expect(await adminSignOut(t.deps, u.email)).toBe(1)
    expect(await signedIn(t, cookie)).toBe(false)
    await expect(adminVerifyEmail(t.deps, 'nobody@example.com')).rejects.toThrow('no account')
  })

  test('`bun run admin` without a command prints its usage and exits 1', async () => {
    const proc = Bun.spawn(['bun', 'src/admin.ts'], { cwd: `${import.meta.dir}/../..`, stderr: 'pipe', stdout: 'ignore' })
    expect(await proc.exited).toBe(1)
    expect(await new Response(proc.stderr).text()).toContain('reset-password <email>')
  })
})

describe('with mail (a real SMTP server)', () => {
  const verifiedAt = async (app: TestApp, u: TestUser) =>
    (await app.deps.db.select({ at: users.email_verified_at }).from(users).where(eq(users.id, u.id)))[0]!.at

  test('sign-up mails a verification link; opening it verifies the address, once', async () => {
    const u = await m.signUp()
    const link = smtp.linkSentTo(u.email)
    expect(link).toStartWith(`${BASE}/api/auth/verify-email?token=`)
    expect(await verifiedAt(m, u)).toBeNull()
    const path = link!.slice(BASE.length)
    const opened = await m.request('GET', path)
    expect(opened.status).toBe(302)
    expect(opened.headers.get('location')).toBe(`${BASE}/app/profile?email=verified`)
    expect(await verifiedAt(m, u)).not.toBeNull()
    expect((await m.request('GET', path)).status).toBe(400)
  })

  test('a new sign-in email waits for the link mailed to it; then it is the sign-in email, verified', async () => {
    const u = await m.signUp()
    const address = `moved-${crypto.randomUUID().slice(0, 8)}@example.org`
    const res = await m.json('PATCH', '/api/profile', { cookie: u.cookie, body: { email: address, current_password: PASSWORD } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ email: u.email, pending_email: address })
    expect(await signInStatus(m, address, PASSWORD)).toBe(401)
    const link = smtp.linkSentTo(address)!
    expect((await m.request('GET', link.slice(BASE.length))).status).toBe(302)
    expect((await m.json('GET', '/api/profile', { cookie: u.cookie })).body).toMatchObject({
      email: address,
      email_verified: true,
      pending_email: null,
    })
    expect(await signInStatus(m, address, PASSWORD)).toBe(200)
  })

  test('password reset: the same answer for any address; the mailed link sets a new password, ends every session, works once', async () => {
    const u = await m.signUp()
    const before = smtp.mails.length
    const unknown = await m.json('POST', '/api/auth/password-reset', { body: { email: 'nobody-here@example.com' } })
    const known = await m.json('POST', '/api/auth/password-reset', { body: { email: u.email.toUpperCase() } })
    expect(unknown.status).toBe(202)
    expect(known.status).toBe(202)
    expect(known.body).toEqual(unknown.body)
    expect(smtp.mails.length).toBe(before + 1)
    const link = smtp.linkSentTo(u.email)!
    // The token rides in the fragment: a browser never sends it to a server or a log.
    expect(link).toStartWith(`${BASE}/app/reset-password#token=`)
    const token = link.split('#token=')[1]!

    // A refused password leaves the link usable.
    const trivial = await m.json('POST', '/api/auth/password-reset/confirm', { body: { token, new_password: '        ' } })
    expect(trivial.status).toBe(400)
    const fresh = token
    expect(
      (await m.request('POST', '/api/auth/password-reset/confirm', { body: { token: fresh, new_password: 'reset to this phrase' } }))
        .status,
    ).toBe(204)
    expect(await signedIn(m, u.cookie)).toBe(false)
    expect(await signInStatus(m, u.email, 'reset to this phrase')).toBe(200)
    expect(await verifiedAt(m, u)).not.toBeNull()
    expect(
      (await m.request('POST', '/api/auth/password-reset/confirm', { body: { token: fresh, new_password: 'another phrase here' } })).status,
    ).toBe(400)
  })

  test(`at most ${MAILS_PER_HOUR} reset mails an hour reach one account; the answer does not change`, async () => {
    const u = await m.signUp()
    const before = smtp.mails.filter((mail) => mail.to.includes(u.email)).length
    for (let i = 0; i < MAILS_PER_HOUR + 2; i++) {
      expect((await m.request('POST', '/api/auth/password-reset', { body: { email: u.email } })).status).toBe(202)
    }
    expect(smtp.mails.filter((mail) => mail.to.includes(u.email)).length - before).toBe(MAILS_PER_HOUR)
  })
})
