// Signing in with GitHub and Google, the whole dance as a browser does it: the app's 302 to the provider, the
// provider's consent (a local fake speaking its wire format), the callback with the state cookie, the session.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { identities, oauthStates, sessions, users } from '../../db/schema'
import { credentialsOf, s256, startFakeGitHub, startFakeGoogle, type FakeOAuthProvider, type ScriptedUser } from '../fakes/oauth-provider'
import { BASE, createTestApp, type TestApp } from '../harness'

type Provider = 'github' | 'google'
const PROVIDERS: Provider[] = ['github', 'google']
const APP_ORIGIN = 'https://app.example.com'

let t: TestApp
const fakes = {} as Record<Provider, FakeOAuthProvider>

beforeAll(async () => {
  fakes.github = startFakeGitHub({ callbackUrl: `${BASE}/api/auth/oauth/github/callback` })
  fakes.google = startFakeGoogle({ callbackUrl: `${BASE}/api/auth/oauth/google/callback` })
  // DEFAULT_PLAN=pro so a new account visibly gets the configured plan, not the built-in default.
  t = await createTestApp({ env: { ...fakes.github.env, ...fakes.google.env, DEFAULT_PLAN: 'pro', ALLOWED_ORIGINS: APP_ORIGIN } })
})
afterAll(async () => {
  await t.close()
  await Promise.all(PROVIDERS.map((p) => fakes[p].stop()))
})

let n = 0
/** A person with an account at the provider; their address is mixed-case on purpose. */
function person(over: Partial<ScriptedUser> = {}): ScriptedUser {
  const i = ++n
  return {
    id: String(4_200_000 + i),
    login: `octo${i}`,
    name: `Person ${i}`,
    emails: [{ email: `Person.${i}.${Date.now()}@Example.COM`, verified: true, primary: true }],
    ...over,
  }
}

/** `name=value` of a cookie the response sets (null when absent or cleared). */
function cookieOf(res: Response, name: string): string | null {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))
  const pair = set?.split(';')[0]
  return pair && pair.length > name.length + 1 ? pair : null
}

async function start(provider: string, query = '') {
  const res = await t.request('GET', `/api/auth/oauth/${provider}${query}`)
  const location = res.headers.get('location')
  return { res, authorize: location ? new URL(location) : null, stateCookie: cookieOf(res, 'oauth_state') }
}

/** The browser at the provider: it consents (or refuses) and is sent back to the app's callback. */
async function atProvider(authorize: URL): Promise<URL> {
  const res = await fetch(authorize, { redirect: 'manual' })
  expect(res.status).toBe(302)
  return new URL(res.headers.get('location')!)
}

const callback = (url: URL | string, cookie: string | null, method = 'GET') =>
  t.app.handle(new Request(url, { method, headers: cookie ? { cookie } : {} }))

/** The whole dance up to the callback's answer. */
async function signInWith(provider: Provider, who: ScriptedUser, query = '') {
  fakes[provider].signInAs(who)
  const started = await start(provider, query)
  expect(started.res.status).toBe(302)
  const back = await atProvider(started.authorize!)
  const res = await callback(back, started.stateCookie)
  return { res, session: cookieOf(res, 'session'), back, started }
}

async function me(session: string | null) {
  return t.json('GET', '/api/auth/session', { cookie: session ?? undefined })
}

const accountsWithEmail = async (email: string) =>
  (await t.deps.db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase()))).length
const countSessions = async () => (await t.deps.db.select({ id: sessions.id }).from(sessions)).length

async function expectRefused(res: Response, status: number, sessionsBefore: number, mentions: string) {
  expect(res.status).toBe(status)
  expect(cookieOf(res, 'session')).toBeNull()
  expect(res.headers.get('location')).toBeNull()
  const body = (await res.json()) as { error: string }
  expect(body.error).toContain(mentions)
  expect(await countSessions()).toBe(sessionsBefore)
}

describe.each(PROVIDERS)('signing in with %s', (provider) => {
  test('a newcomer gets an account with the verified email lowercased, the default plan and a default workspace', async () => {
    const who = person()
    const { res, session } = await signInWith(provider, who)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(`${BASE}/`)
    expect(session).not.toBeNull()
    expect(res.headers.getSetCookie().find((c) => c.startsWith('oauth_state='))).toContain('Max-Age=0')

    const { status, body } = await me(session)
    expect(status).toBe(200)
    expect(body.via).toBe('session')
    expect(body.user.email).toBe(who.emails[0]!.email.toLowerCase())
    expect(body.user.name).toBe(who.name!)
    expect(body.user.plan).toBe('pro')
    const workspaces = await t.json('GET', '/api/workspaces', { cookie: session! })
    expect(workspaces.body.data.map((w: { name: string }) => w.name)).toEqual(['Default'])
    const settings = await t.json('GET', '/api/settings', { cookie: session! })
    expect(settings.body.default_workspace_id).toBe(workspaces.body.data[0].id)
  })

  test('signing in again, even after changing the email at the provider, gives the same account', async () => {
    const who = person()
    const first = await me((await signInWith(provider, who)).session)
    const moved = { ...who, emails: [{ email: `moved.${who.id}@example.org`, verified: true, primary: true }] }
    const again = await signInWith(provider, moved)
    expect(again.res.status).toBe(302)
    const second = await me(again.session)
    expect(second.body.user.id).toBe(first.body.user.id)
    expect(second.body.user.email).toBe(first.body.user.email)
    expect(await accountsWithEmail(moved.emails[0]!.email)).toBe(0)
  })

  // The takeover before sign-up: a stranger signs up with the person's address (no mail reaches them); when the
  // person later signs in with the provider, it must not land in the stranger's account.
  test("a password account that never verified its address is not linked: the provider sign-in is refused, the squatter's account stays empty of the person", async () => {
    const squatter = await t.signUp({ withKey: false })
    const who = person({ emails: [{ email: squatter.email.toUpperCase(), verified: true, primary: true }] })
    const before = await countSessions()
    const { res } = await signInWith(provider, who)
    await expectRefused(res, 409, before, 'link')
    expect(await t.deps.db.select().from(identities).where(eq(identities.user_id, squatter.id))).toEqual([])
    expect(await accountsWithEmail(squatter.email)).toBe(1)
  })

  test('an account that verified its address is linked by it, and its password still works', async () => {
    const owner = await t.signUp({ withKey: false })
    await t.deps.db.update(users).set({ email_verified_at: new Date() }).where(eq(users.id, owner.id))
    const who = person({ emails: [{ email: owner.email.toUpperCase(), verified: true, primary: true }] })
    const { res, session } = await signInWith(provider, who)
    expect(res.status).toBe(302)
    expect((await me(session)).body.user.id).toBe(owner.id)
    const byPassword = await t.json('POST', '/api/auth/sign-in', { body: { email: owner.email, password: 'correct horse battery' } })
    expect(byPassword.status).toBe(200)
    expect(byPassword.body.user.id).toBe(owner.id)
    const linked = await t.deps.db.select().from(identities).where(eq(identities.user_id, owner.id))
    expect(linked.map((i) => [i.provider, i.provider_user_id])).toEqual([[provider, who.id]])
  })

  test('a person signed in links the provider from Settings, whatever its address; then it signs in to that account, verified', async () => {
    const owner = await t.signUp({ withKey: false })
    const who = person() // another address than the account's
    fakes[provider].signInAs(who)
    const started = await t.request('GET', `/api/auth/oauth/${provider}/link`, { cookie: owner.cookie })
    expect(started.status).toBe(302)
    const back = await atProvider(new URL(started.headers.get('location')!))
    const sessionsBefore = await countSessions()
    const linked = await callback(back, cookieOf(started, 'oauth_state'))
    expect(linked.status).toBe(302)
    expect(linked.headers.get('location')).toBe(`${BASE}/app/profile`)
    // The person stays in the session they linked from: no second session appears.
    expect(cookieOf(linked, 'session')).toBeNull()
    expect(await countSessions()).toBe(sessionsBefore)
    expect((await t.json('GET', '/api/profile', { cookie: owner.cookie })).body.identities).toEqual([provider])
    const again = await signInWith(provider, who)
    expect((await me(again.session)).body.user.id).toBe(owner.id)
    // A key cannot start a link: it would hand the account to whoever holds the provider login.
    const keyed = await t.signUp()
    expect((await t.request('GET', `/api/auth/oauth/${provider}/link`, { key: keyed.key })).status).toBe(403)
  })

  test("a leaked key cannot move the sign-in email to the attacker's address; the person's own change leaves it unverified, so the provider still cannot claim it", async () => {
    const victim = await t.signUp()
    const attacker = person()
    const address = attacker.emails[0]!.email
    const byKey = await t.json('PATCH', '/api/profile', { key: victim.key, body: { email: address } })
    expect(byKey.status).toBe(403)
    const noPassword = await t.json('PATCH', '/api/profile', { cookie: victim.cookie, body: { email: address } })
    expect(noPassword.status).toBe(400)
    expect(noPassword.body.error).toContain('current_password')
    const wrong = await t.json('PATCH', '/api/profile', {
      cookie: victim.cookie,
      body: { email: address, current_password: 'not it at all' },
    })
    expect(wrong.status).toBe(403)
    expect((await t.json('GET', '/api/profile', { cookie: victim.cookie })).body.email).toBe(victim.email)
    // The person changes it themselves (no mail configured here): changed, but unverified.
    const changed = await t.json('PATCH', '/api/profile', {
      cookie: victim.cookie,
      body: { email: address, current_password: 'correct horse battery' },
    })
    expect(changed.status).toBe(200)
    expect(changed.body).toMatchObject({ email: address.toLowerCase(), email_verified: false })
    const before = await countSessions()
    await expectRefused((await signInWith(provider, attacker)).res, 409, before, 'link')
  })

  test('an unverified email with no known identity is refused and no account is made', async () => {
    const who = person()
    who.emails[0]!.verified = false
    const before = await countSessions()
    const { res } = await signInWith(provider, who)
    await expectRefused(res, 400, before, 'email')
    expect(await accountsWithEmail(who.emails[0]!.email)).toBe(0)
  })

  test('the state is stored only as its hash', async () => {
    const { authorize, stateCookie } = await start(provider)
    const state = authorize!.searchParams.get('state')!
    expect(state.length).toBeGreaterThanOrEqual(20)
    expect(stateCookie).toBe(`oauth_state=${state}`)
    const rows = await t.deps.db.select().from(oauthStates)
    expect(JSON.stringify(rows)).not.toContain(state)
    expect(rows.map((r) => r.id)).toContain(createHash('sha256').update(state).digest('hex'))
  })

  test('the state cookie is HttpOnly, SameSite=Lax, scoped to the OAuth routes and lives ten minutes', async () => {
    const { res } = await start(provider)
    const set = res.headers.getSetCookie().find((c) => c.startsWith('oauth_state='))!
    for (const attribute of ['HttpOnly', 'SameSite=Lax', 'Path=/api/auth/oauth', 'Max-Age=600']) expect(set).toContain(attribute)
  })

  test('a callback without state, with an unknown state, or replayed is refused without a session', async () => {
    fakes[provider].signInAs(person())
    const before = await countSessions()
    const started = await start(provider)
    const back = await atProvider(started.authorize!)

    const withoutState = new URL(back)
    withoutState.searchParams.delete('state')
    await expectRefused(await callback(withoutState, started.stateCookie), 400, before, 'state')
    const unknown = new URL(back)
    unknown.searchParams.set('state', 'not-a-state-we-issued')
    await expectRefused(await callback(unknown, 'oauth_state=not-a-state-we-issued'), 400, before, 'state')

    const ok = await callback(back, started.stateCookie)
    expect(ok.status).toBe(302)
    await expectRefused(await callback(back, started.stateCookie), 400, before + 1, 'state')
  })

  test('a state older than ten minutes is refused', async () => {
    fakes[provider].signInAs(person())
    const started = await start(provider)
    const back = await atProvider(started.authorize!)
    t.clock.advance(10 * 60_000 + 1_000)
    await expectRefused(await callback(back, started.stateCookie), 400, await countSessions(), 'expired')
  })

  test('a callback from a browser without the state cookie, or with another one, is refused (no login CSRF)', async () => {
    fakes[provider].signInAs(person())
    const before = await countSessions()
    const victim = await start(provider)
    const attacker = await start(provider)
    const back = await atProvider(attacker.authorize!)
    await expectRefused(await callback(back, null), 400, before, 'state')
    await expectRefused(await callback(back, victim.stateCookie), 400, before, 'state')
    // The refusals spent nothing: the browser that started this flow still finishes it.
    expect((await callback(back, attacker.stateCookie)).status).toBe(302)
  })

  test('a user who refuses consent comes back to a 400 naming access_denied', async () => {
    fakes[provider].signInAs(person())
    fakes[provider].denyNextConsent()
    const started = await start(provider)
    const back = await atProvider(started.authorize!)
    expect(back.searchParams.get('error')).toBe('access_denied')
    await expectRefused(await callback(back, started.stateCookie), 400, await countSessions(), 'access_denied')
  })

  test('when the provider API is down the callback answers 502', async () => {
    const before = await countSessions()
    fakes[provider].failApi(503)
    try {
      const { res } = await signInWith(provider, person())
      await expectRefused(res, 502, before, provider)
    } finally {
      fakes[provider].failApi(null)
    }
  })

  test('when the token endpoint is down the callback answers 502', async () => {
    const before = await countSessions()
    fakes[provider].failToken(503)
    try {
      const { res } = await signInWith(provider, person())
      await expectRefused(res, 502, before, provider)
    } finally {
      fakes[provider].failToken(null)
    }
  })

  test('the callback also answers POST, like GET', async () => {
    const who = person()
    fakes[provider].signInAs(who)
    const started = await start(provider)
    const back = await atProvider(started.authorize!)
    const res = await callback(back, started.stateCookie, 'POST')
    expect(res.status).toBe(302)
    expect((await me(cookieOf(res, 'session'))).body.user.email).toBe(who.emails[0]!.email.toLowerCase())
  })

  test('redirect_to on an allowed origin is where the browser lands; a foreign one is refused at the start', async () => {
    const landing = `${APP_ORIGIN}/welcome?tab=notes`
    const { res } = await signInWith(provider, person(), `?redirect_to=${encodeURIComponent(landing)}`)
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe(landing)

    const statesBefore = (await t.deps.db.select().from(oauthStates)).length
    for (const foreign of ['https://evil.example/steal', 'javascript:alert(1)', '//evil.example/x']) {
      const refused = await start(provider, `?redirect_to=${encodeURIComponent(foreign)}`)
      expect(refused.res.status).toBe(400)
      expect(refused.authorize).toBeNull()
      expect(refused.stateCookie).toBeNull()
      expect(((await refused.res.json()) as { error: string }).error).toContain('redirect_to')
    }
    expect((await t.deps.db.select().from(oauthStates)).length).toBe(statesBefore)
  })
})

/** A code the provider has already exchanged (for someone else's finished sign-in). */
const spentCode = async (provider: Provider) => (await signInWith(provider, person())).back.searchParams.get('code')!

describe('the wire to each provider', () => {
  test('GitHub: the authorize URL names the client, the callback, the scopes and the state, without PKCE', async () => {
    const { authorize, stateCookie } = await start('github')
    expect(`${authorize!.origin}${authorize!.pathname}`).toBe(fakes.github.env.GITHUB_AUTH_URL!)
    const q = Object.fromEntries(authorize!.searchParams)
    expect(q.client_id).toBe(fakes.github.clientId)
    expect(q.redirect_uri).toBe(`${BASE}/api/auth/oauth/github/callback`)
    expect(q.scope!.split(' ').sort()).toEqual(['read:user', 'user:email'])
    expect(stateCookie).toBe(`oauth_state=${q.state}`)
    expect(q.code_challenge).toBeUndefined()
    expect(q.code_challenge_method).toBeUndefined()
  })

  test('Google: the authorize URL adds an S256 code challenge and asks for offline access', async () => {
    const { authorize, stateCookie } = await start('google')
    const q = Object.fromEntries(authorize!.searchParams)
    expect(q.client_id).toBe(fakes.google.clientId)
    expect(q.redirect_uri).toBe(`${BASE}/api/auth/oauth/google/callback`)
    expect(q.response_type).toBe('code')
    expect(q.scope!.split(' ').sort()).toEqual(['email', 'openid', 'profile'])
    expect(stateCookie).toBe(`oauth_state=${q.state}`)
    expect(q.code_challenge_method).toBe('S256')
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Sign-in keeps no refresh token, so it does not ask for offline access (nor force the consent screen).
    expect(q.access_type).toBeUndefined()
    expect(q.prompt).toBeUndefined()
  })

  test.each(PROVIDERS)('%s: the token request authenticates the client and carries the code for the same callback', async (provider) => {
    const { back, started } = await signInWith(provider, person())
    const sent = fakes[provider].tokenRequests().at(-1)!
    expect(sent.method).toBe('POST')
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded')
    expect(credentialsOf(sent)).toEqual({ method: 'basic', clientId: fakes[provider].clientId, clientSecret: fakes[provider].clientSecret })
    const form = sent.body as Record<string, string>
    expect(form.grant_type).toBe('authorization_code')
    expect(form.code).toBe(back.searchParams.get('code')!)
    expect(form.redirect_uri).toBe(`${BASE}/api/auth/oauth/${provider}/callback`)
    if (provider === 'google') expect(s256(form.code_verifier!)).toBe(started.authorize!.searchParams.get('code_challenge')!)
    else expect(form.code_verifier).toBeUndefined()
  })

  test('GitHub: the primary verified address is used, or another verified one when the primary is unverified', async () => {
    const unverifiedPrimary = person({
      emails: [
        { email: `Primary.${n}@example.com`, verified: false, primary: true },
        { email: `Work.${n}@Example.com`, verified: true },
      ],
    })
    const { session } = await signInWith('github', unverifiedPrimary)
    expect((await me(session)).body.user.email).toBe(unverifiedPrimary.emails[1]!.email.toLowerCase())
  })

  test('one person, one account: Google after GitHub with the same verified email lands in the same account', async () => {
    const who = person()
    const viaGitHub = await me((await signInWith('github', who)).session)
    const viaGoogle = await me((await signInWith('google', { ...who, id: `1098${who.id}` })).session)
    expect(viaGoogle.body.user.id).toBe(viaGitHub.body.user.id)
  })

  test('a state issued for GitHub is refused at the Google callback, and GitHub can still use it', async () => {
    fakes.github.signInAs(person())
    const before = await countSessions()
    const started = await start('github')
    const back = await atProvider(started.authorize!)
    const atGoogle = new URL(back.pathname.replace('/github/', '/google/') + back.search, BASE)
    await expectRefused(await callback(atGoogle, started.stateCookie), 400, before, 'state')
    expect((await callback(back, started.stateCookie)).status).toBe(302)
  })

  test('Google refusing a spent code (invalid_grant) gives a 400 naming it', async () => {
    const spent = await spentCode('google')
    fakes.google.signInAs(person())
    const started = await start('google')
    const back = await atProvider(started.authorize!)
    back.searchParams.set('code', spent)
    await expectRefused(await callback(back, started.stateCookie), 400, await countSessions(), 'invalid_grant')
  })

  // GitHub answers token errors with HTTP 200 and { error, error_description, error_uri } (arctic's own GitHub
  // client checks for this); the app's generic OAuth2Client takes that body for tokens, then fails on the
  // missing access_token as an unknown error: 500 "internal error".
  test('GitHub refusing a spent code (bad_verification_code, sent with HTTP 200) gives a 400 naming it', async () => {
    const spent = await spentCode('github')
    fakes.github.signInAs(person())
    const started = await start('github')
    const back = await atProvider(started.authorize!)
    back.searchParams.set('code', spent)
    await expectRefused(await callback(back, started.stateCookie), 400, await countSessions(), 'bad_verification_code')
  })
})

describe('providers that cannot be used', () => {
  test('an unknown provider, or one that only connects (confluence), is 404', async () => {
    for (const path of ['/api/auth/oauth/twitter', '/api/auth/oauth/confluence', '/api/auth/oauth/twitter/callback?code=x&state=y']) {
      const res = await t.json('GET', path)
      expect(res.status).toBe(404)
      expect(typeof res.body.error).toBe('string')
    }
  })

  test('a provider without credentials answers 503 "<provider> is not configured"', async () => {
    const bare = await createTestApp({ env: { GITHUB_CLIENT_ID: 'only-an-id' } })
    try {
      for (const provider of PROVIDERS) {
        const res = await bare.json('GET', `/api/auth/oauth/${provider}`)
        expect(res.status).toBe(503)
        expect(res.body).toEqual({ error: `${provider} is not configured`, code: 'service_unavailable' })
        expect(res.headers.getSetCookie()).toEqual([])
      }
    } finally {
      await bare.close()
    }
  })
})
