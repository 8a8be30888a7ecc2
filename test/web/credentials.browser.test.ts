// Key scopes and account security in a real Chromium: a key made read-only, a key minting keys and revoked with
// them; the sign-in email (unverified, no mail here, changed only with the current password); the password changed
// and the other sessions signed out; one session signed out, then all; GitHub linked from Settings (a local fake);
// and, signed out, "Forgot password?" on a server without mail and the reset page of a mailed link.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { emailTokens } from '../../db/schema'
import { sha256Hex } from '../../src/lib/crypto'
import { startFakeGitHub, type FakeOAuthProvider } from '../fakes/oauth-provider'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0'
let h: Harness
let s: Session
let github: FakeOAuthProvider | undefined
let email = ''
let password = 'correct horse battery'

const cookieOf = async (session: Session) => (await session.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')

async function call(method: string, path: string, auth: { key: string } | { cookie: string }, body?: unknown) {
  const headers: Record<string, string> =
    'key' in auth ? { authorization: `Bearer ${auth.key}` } : { cookie: auth.cookie, origin: h.server.url }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(h.server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}
const asBrowser = async () => ({ cookie: await cookieOf(s) })

/** Another session of the account, signed in over HTTP as Firefox on Windows: its cookie. */
async function signInElsewhere(who = email, secret = password): Promise<string> {
  const res = await fetch(`${h.server.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: h.server.url, 'user-agent': FIREFOX },
    body: JSON.stringify({ email: who, password: secret }),
  })
  expect(res.status).toBe(200)
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ')
}

async function check(session: Session, name: string) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}

beforeAll(async () => {
  if (missing) return
  // pro: room for several keys; GitHub sign-in by a local fake that must know the callback before the app starts.
  h = await startHarness((url) => {
    github = startFakeGitHub({ callbackUrl: `${url}/api/auth/oauth/github/callback` })
    return { ...github.env, DEFAULT_PLAN: 'pro' }
  })
  s = await h.open()
  email = await signUpInBrowser(s)
})
afterAll(async () => {
  await h?.stop()
  await github?.stop()
})

describe.skipIf(!!missing)('key scopes', () => {
  test('a key made read-only shows its scope, reads, and is refused a write', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'API keys' }).click()
    const scope = (name: string) => page.getByRole('checkbox', { name: new RegExp(`^${name}:`) })
    expect([await scope('read').isChecked(), await scope('write').isChecked(), await scope('keys').isChecked()]).toEqual([
      true,
      true,
      false,
    ])
    await page.getByText('A key with keys can make more keys', { exact: false }).waitFor()
    await page.getByText('search and ask (also POST /api/ask', { exact: false }).waitFor()

    // No scope at all is not a key: the button waits for one.
    for (const name of ['read', 'write']) await scope(name).uncheck()
    await page.getByText('Choose at least one scope.').waitFor()
    expect(await page.getByRole('button', { name: 'Create key' }).isDisabled()).toBe(true)

    await scope('read').check()
    await page.getByLabel(/^Label/).fill('Read-only widget')
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByText('Scopes: read', { exact: true }).waitFor()
    const key = await page.getByLabel('The new API key').innerText()
    const row = page.locator('table.keys-table tbody tr', { hasText: 'Read-only widget' })
    expect(await row.locator('td').nth(2).innerText()).toBe('read')
    // The form is back to the default for the next key.
    expect([await scope('read').isChecked(), await scope('write').isChecked(), await scope('keys').isChecked()]).toEqual([
      true,
      true,
      false,
    ])
    await check(s, 'keys-scopes')

    expect((await call('GET', '/api/documents', { key })).status).toBe(200)
    const write = await call('POST', '/api/documents', { key }, { title: 'x', content: 'y' })
    expect(write.status).toBe(403)
    expect(write.body.error).toContain('lacks the "write" scope')
    expect((await call('GET', '/api/keys', await asBrowser())).body.data[0].scopes).toEqual(['read'])
  })

  test('a key holding "keys" mints one; the list names its maker, and revoking the maker says and does it for both', async () => {
    const { page } = s
    await page.getByRole('checkbox', { name: /^keys:/ }).check()
    await page.getByLabel(/^Label/).fill('Key maker')
    await page.getByRole('button', { name: 'Create key' }).click()
    // The first key's card is still up until this one replaces it: read the key once its scopes show.
    await page.getByText('Scopes: read, write, keys', { exact: true }).waitFor()
    const maker = await page.getByLabel('The new API key').innerText()

    const minted = await call('POST', '/api/keys', { key: maker }, { label: 'Minted', scopes: ['read'] })
    expect(minted.status).toBe(201)
    await s.go('/app/keys')
    const row = page.locator('table.keys-table tbody tr', { hasText: 'Minted' })
    expect(await row.locator('td').nth(2).innerText()).toBe(`read\nminted by ${maker.slice(0, 16)}…`)
    expect(await page.locator('table.keys-table tbody tr', { hasText: 'Key maker' }).locator('td').nth(2).innerText()).toBe(
      'read, write, keys',
    )

    await page.getByRole('button', { name: 'Revoke Key maker' }).click()
    const dialog = page.getByRole('dialog', { name: 'Revoke “Key maker”?' })
    await dialog.getByText('Revoking it also revokes the keys it minted: 1 key here.').waitFor()
    await check(s, 'keys-revoke-minted')
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    await page.getByText('Revoked Key maker and the 1 key it minted', { exact: false }).waitFor()
    expect((await call('GET', '/api/auth/session', { key: maker })).status).toBe(401)
    expect((await call('GET', '/api/auth/session', { key: minted.body.key })).status).toBe(401)
    expect(await page.locator('table.keys-table tbody tr').allInnerTexts()).toEqual([expect.stringContaining('Read-only widget')])
  })
})

describe.skipIf(!!missing)('sign-in and security in Settings', () => {
  test('the email reads "not verified"; with no mail here the link names the admin command; it changes only with the password', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Settings' }).click()
    const card = page.getByRole('region', { name: 'Sign-in email' })
    await card.getByText(email, { exact: true }).waitFor()
    await card.getByText('not verified', { exact: true }).waitFor()
    await card.getByRole('button', { name: 'Send verification link' }).click()
    await card.getByText('this server sends no mail (SMTP_URL)', { exact: false }).waitFor()
    expect(await card.innerText()).toContain('`bun run admin verify-email`')

    const form = page.getByRole('form', { name: 'Change the sign-in email' })
    const next = `grace-${crypto.randomUUID().slice(0, 8)}@example.com`
    await form.getByLabel('New email').fill(next)
    await form.getByRole('button', { name: 'Change email' }).click()
    await form.getByRole('alert').getByText('Error 400: current_password is required', { exact: false }).waitFor()
    await form.getByLabel(/^Current password/).fill('not my password')
    await form.getByRole('button', { name: 'Change email' }).click()
    await form.getByRole('alert').getByText('Error 403: current_password is wrong').waitFor()
    expect((await call('GET', '/api/profile', await asBrowser())).body.email).toBe(email)

    await form.getByLabel(/^Current password/).fill(password)
    await form.getByRole('button', { name: 'Change email' }).click()
    await card.getByText(`Your sign-in email is now ${next}.`).waitFor()
    await card.getByText(next, { exact: true }).waitFor()
    await card.getByText('not verified', { exact: true }).waitFor()
    await page.locator('.topbar').getByText(next).waitFor()
    expect((await call('GET', '/api/profile', await asBrowser())).body).toMatchObject({
      email: next,
      email_verified: false,
      pending_email: null,
    })
    email = next
    await check(s, 'settings-email')

    // Where the API's verification link lands: /app/profile is Settings, and says the address is verified.
    await s.go('/app/profile?email=verified')
    await s.page.waitForURL(/\/app\/settings\?email=verified$/)
    await page.getByText('Your email address is verified.').waitFor()
  })

  test('changing the password keeps this session, signs the other one out, and says so', async () => {
    const { page } = s
    const elsewhere = await signInElsewhere()
    await s.go('/app/settings')
    const sessions = page.getByRole('region', { name: 'Signed-in sessions' })
    await sessions.getByText('Firefox on Windows', { exact: true }).waitFor()
    const mine = sessions.locator('li', { hasText: 'this session' })
    expect(await mine.locator('strong').innerText()).toBe('Chrome on Linux')

    const form = page.getByRole('form', { name: 'Password', exact: true })
    const current = form.getByLabel(/^Current password/)
    const fresh = form.getByLabel(/^New password/)
    const again = form.getByLabel('Confirm new password')
    await current.fill('not my password')
    await fresh.fill('a new river stone 42')
    await again.fill('a new river stone 24')
    await form.getByText('The two passwords differ.').waitFor()
    expect(await form.getByRole('button', { name: 'Change password' }).isDisabled()).toBe(true)
    await again.fill('a new river stone 42')
    await form.getByRole('button', { name: 'Change password' }).click()
    await form.getByRole('alert').getByText('Error 403: current_password is wrong').waitFor()

    // The API's password rules come back as its 400, shown where the password was typed.
    await current.fill(password)
    await fresh.fill('password')
    await again.fill('password')
    await form.getByRole('button', { name: 'Change password' }).click()
    await form
      .getByRole('alert')
      .getByText(/^Error 400: .*common/)
      .waitFor()
    expect((await call('GET', '/api/auth/session', { cookie: elsewhere })).status).toBe(200)

    await fresh.fill('a new river stone 42')
    await again.fill('a new river stone 42')
    await form.getByRole('button', { name: 'Change password' }).click()
    await form.getByText('Password changed: other sessions were signed out.', { exact: false }).waitFor()
    password = 'a new river stone 42'
    expect(await current.inputValue()).toBe('')
    expect((await call('GET', '/api/auth/session', { cookie: elsewhere })).status).toBe(401)
    expect((await call('GET', '/api/auth/session', await asBrowser())).status).toBe(200)
    // The list is read again: only this session is left.
    await page.waitForFunction(() => !document.body.innerText.includes('Firefox on Windows'))
    expect(await sessions.locator('li').count()).toBe(1)
    await check(s, 'settings-password')
  })

  test('one other session is signed out from the list', async () => {
    const { page } = s
    const elsewhere = await signInElsewhere()
    await s.go('/app/settings')
    const sessions = page.getByRole('region', { name: 'Signed-in sessions' })
    await sessions.getByRole('button', { name: /^Sign out Firefox on Windows, signed in on / }).click()
    await page.waitForFunction(() => !document.body.innerText.includes('Firefox on Windows'))
    expect((await call('GET', '/api/auth/session', { cookie: elsewhere })).status).toBe(401)
    expect((await call('GET', '/api/auth/session', await asBrowser())).status).toBe(200)
    expect(s.problems).toEqual([])
  })

  test('GitHub is linked from Settings: the provider, then back to Settings showing it linked', async () => {
    const { page } = s
    github!.signInAs({
      id: '9100',
      login: 'grace',
      name: 'Grace',
      emails: [{ email: 'grace@github.example', verified: true, primary: true }],
    })
    const providers = page.getByRole('region', { name: 'Sign-in providers' })
    await providers.getByText('No GitHub or Google sign-in is linked to this account.').waitFor()
    // Google is not configured on this server: no button for it.
    expect(await providers.getByRole('link').allInnerTexts()).toEqual(['Link GitHub'])
    await providers.getByRole('link', { name: 'Link GitHub' }).click()
    // The API lands on /app/profile, which is Settings.
    await page.waitForURL(/\/app\/settings$/)
    await settle(page)
    await providers.getByText('GitHub is linked: you can sign in with it.').waitFor()
    expect(await providers.getByRole('link').count()).toBe(0)
    expect((await call('GET', '/api/profile', await asBrowser())).body.identities).toEqual(['github'])
    expect(s.problems).toEqual([])
  })

  test('sign out everywhere ends every session, this one too, and shows sign-in', async () => {
    const { page } = s
    const elsewhere = await signInElsewhere()
    await s.go('/app/settings')
    const before = await asBrowser()
    await page.getByRole('button', { name: 'Sign out everywhere…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' })
    await dialog.getByText('this one included').waitFor()
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click()
    await page.waitForURL(/\/app\/sign-in$/)
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    expect((await call('GET', '/api/auth/session', before)).status).toBe(401)
    expect((await call('GET', '/api/auth/session', { cookie: elsewhere })).status).toBe(401)
    expect(s.problems).toEqual([])
  })
})

describe.skipIf(!!missing)('a forgotten password, signed out', () => {
  test('"Forgot password?" on a server without mail says the administrator resets it, and how', async () => {
    const v = await h.open()
    await v.go('/app/sign-in')
    await v.page.getByRole('link', { name: 'Forgot password?' }).click()
    await v.page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor()
    expect(new URL(v.page.url()).pathname).toBe('/app/forgot-password')
    await v.page.getByLabel('Email').fill(email)
    await v.page.getByRole('button', { name: 'Mail me a reset link' }).click()
    const alert = v.page.getByRole('alert')
    await alert.getByText('Error 503: password reset by email is not configured on this server', { exact: false }).waitFor()
    expect(await alert.innerText()).toContain('`bun run admin reset-password <email>`')
    await check(v, 'forgot-password-no-mail')
    await v.page.getByRole('link', { name: 'Back to sign in' }).click()
    await v.page.getByRole('button', { name: 'Sign in' }).waitFor()
    await v.close()
  })

  test('the reset page takes its token from the #fragment, never a request line, and shows why a bad one fails', async () => {
    const v = await h.open()
    const seen: string[] = []
    v.page.on('request', (request) => seen.push(request.url()))
    await v.go('/app/reset-password#token=not-a-real-token')
    // Not bounced to sign-in, and the token is out of the address bar.
    await v.page.getByRole('heading', { name: 'Choose a new password', level: 1 }).waitFor()
    await v.page.waitForFunction(() => location.hash === '')
    expect(v.page.url()).toBe(`${h.server.url}/app/reset-password`)
    await v.page.getByLabel(/^New password/).fill('a fresh long passphrase')
    await v.page.getByLabel('Confirm new password').fill('a fresh long passphrase')
    await v.page.getByRole('button', { name: 'Set the new password' }).click()
    await v.page
      .getByRole('alert')
      .getByText('Error 400: this password reset link is unknown, used or expired: ask for a new one')
      .waitFor()
    expect(seen.filter((url) => url.includes('not-a-real-token'))).toEqual([])
    await check(v, 'reset-password-bad-token')

    await v.go('/app/reset-password')
    await v.page.getByText('This link has no reset token', { exact: false }).waitFor()
    await v.close()
  })

  test('a mailed reset link sets the new password, signs every session out, and leads to sign-in', async () => {
    // The link a mail would carry: its token, stored as the API stores it (only the SHA-256), for this account.
    const token = `reset-${crypto.randomUUID()}`
    const account = await signInElsewhere()
    const me = (await call('GET', '/api/profile', { cookie: account })).body
    const now = h.server.deps.clock.now()
    await h.server.deps.db.insert(emailTokens).values({
      id: sha256Hex(token),
      user_id: me.id,
      purpose: 'reset-password',
      email,
      expires_at: new Date(now.getTime() + 3_600_000),
      created_at: now,
    })
    const v = await h.open()
    await v.go(`/app/reset-password#token=${token}`)
    await v.page.getByLabel(/^New password/).fill('the third password here')
    await v.page.getByLabel('Confirm new password').fill('the third password here')
    await v.page.getByRole('button', { name: 'Set the new password' }).click()
    await v.page.getByText('Password changed: sign in with the new one.', { exact: false }).waitFor()
    expect((await call('GET', '/api/auth/session', { cookie: account })).status).toBe(401)
    await v.page.getByRole('link', { name: 'Sign in' }).click()
    await v.page.getByLabel('Email').fill(email)
    await v.page.getByLabel('Password').fill('the third password here')
    await v.page.getByRole('button', { name: 'Sign in' }).click()
    await v.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    expect(v.problems).toEqual([])
    await v.close()
  })
})
