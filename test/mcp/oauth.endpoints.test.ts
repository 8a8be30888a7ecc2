// The OAuth endpoints one by one, over real HTTP: metadata, /mcp's 401 challenge, registration rules, the
// authorization endpoint (consent, sign-in redirect, CSRF, escaping, refusals), and the token endpoint's
// RFC 6749 §5.2 errors (wrong PKCE verifier, reused or expired code, wrong redirect_uri or resource),
// refresh rotation with reuse detection, confidential clients and revocation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestUser } from '../harness'
import { authorizeUrl, consent, consentFields, pkce, REDIRECT_URI, register, token } from './oauth'
import { startMcpServer, type McpTestServer } from './server'

let s: McpTestServer
let user: TestUser

beforeAll(async () => {
  s = await startMcpServer({ OAUTH_REGISTRATIONS_PER_HOUR: '200' }, { listeningBase: true })
  user = await s.t.signUp()
})
afterAll(async () => {
  await s.stop()
})

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
})
const postMcp = (headers: Record<string, string>) =>
  fetch(`${s.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: INITIALIZE,
  })

/** A registered public client, a consented code for it and the verifier. */
async function codeFor(params: Record<string, string> = {}, metadata: Record<string, unknown> = {}) {
  const client = (await register(s.url, metadata)).body
  const { verifier, challenge } = await pkce()
  const location = await consent(
    s.url,
    authorizeUrl(s.url, { client_id: client.client_id, code_challenge: challenge, ...params }),
    user.cookie,
  )
  return { client, verifier, code: location.searchParams.get('code')!, location }
}
const exchange = (c: { client: Record<string, any>; verifier: string; code: string }, extra: Record<string, string> = {}) =>
  token(s.url, {
    grant_type: 'authorization_code',
    client_id: c.client.client_id,
    code: c.code,
    code_verifier: c.verifier,
    redirect_uri: REDIRECT_URI,
    resource: `${s.url}/mcp`,
    ...extra,
  })

describe('discovery', () => {
  test('/mcp without credentials is 401 with the resource metadata URL; a bad token adds error="invalid_token"', async () => {
    const none = await postMcp({})
    expect(none.status).toBe(401)
    expect(none.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${s.url}/.well-known/oauth-protected-resource/mcp"`)
    expect(await none.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, data: { code: 'unauthenticated' } } })
    for (const bad of ['mcpat_nope', 'svc_nope']) {
      const res = await postMcp({ authorization: `Bearer ${bad}` })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${s.url}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
      )
    }
  })

  test('protected-resource metadata (both paths) names /mcp and this service as its authorization server', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(s.url + path)
      expect(res.headers.get('access-control-allow-origin')).toBe('*')
      expect(await res.json()).toMatchObject({
        resource: `${s.url}/mcp`,
        authorization_servers: [s.url],
        scopes_supported: ['mcp'],
        bearer_methods_supported: ['header'],
      })
    }
  })

  test('authorization-server metadata lists the endpoints, S256 only, code + refresh grants, public and confidential clients', async () => {
    const meta = await (await fetch(`${s.url}/.well-known/oauth-authorization-server`)).json()
    expect(meta).toMatchObject({
      issuer: s.url,
      authorization_endpoint: `${s.url}/oauth/authorize`,
      token_endpoint: `${s.url}/oauth/token`,
      registration_endpoint: `${s.url}/oauth/register`,
      revocation_endpoint: `${s.url}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    })
  })
})

describe('registration (RFC 7591)', () => {
  test('accepts https, loopback http and private-use schemes; refuses http elsewhere, javascript: and fragments', async () => {
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://localhost:6274/oauth/callback',
      'http://[::1]:8080/cb',
      'cursor://anysphere.cursor-mcp/oauth/callback',
    ]) {
      const { status, body } = await register(s.url, { redirect_uris: [uri] })
      expect({ uri, status }).toEqual({ uri, status: 201 })
      expect(body).toMatchObject({ client_id: expect.stringMatching(/^mcpc_/), redirect_uris: [uri], token_endpoint_auth_method: 'none' })
      expect(body.client_secret).toBeUndefined()
    }
    for (const uri of ['http://example.com/cb', 'javascript:alert(1)', 'https://example.com/cb#frag', 'not a uri']) {
      const { status, body } = await register(s.url, { redirect_uris: [uri] })
      expect({ uri, status, error: body.error }).toEqual({ uri, status: 400, error: 'invalid_redirect_uri' })
      expect(body.error_description).toBeString()
    }
    expect((await register(s.url, { redirect_uris: [] })).body.error).toBe('invalid_redirect_uri')
    expect((await register(s.url, { token_endpoint_auth_method: 'private_key_jwt' })).body.error).toBe('invalid_client_metadata')
  })

  test('is rate limited per address: past the hourly limit, 429 with Retry-After', async () => {
    const limited = await startMcpServer({ OAUTH_REGISTRATIONS_PER_HOUR: '3' }, { listeningBase: true })
    try {
      for (let i = 0; i < 3; i++) expect((await register(limited.url)).status).toBe(201)
      const res = await fetch(`${limited.url}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT_URI] }),
      })
      expect(res.status).toBe(429)
      expect(res.headers.get('retry-after')).toBeString()
      expect((await res.json()).error_description).toContain('at most 3')
      limited.t.clock.advance(3_601_000)
      expect((await register(limited.url)).status).toBe(201)
    } finally {
      await limited.stop()
    }
  })
})

describe('authorization endpoint', () => {
  test('without a session it sends the person to the dashboard sign-in, which returns to the same request', async () => {
    const client = (await register(s.url)).body
    const url = authorizeUrl(s.url, { client_id: client.client_id, code_challenge: (await pkce()).challenge })
    const res = await fetch(url, { redirect: 'manual' })
    expect(res.status).toBe(302)
    const location = new URL(res.headers.get('location')!, s.url)
    expect(location.pathname).toBe('/app/sign-in')
    const next = new URL(location.searchParams.get('next')!, s.url)
    expect(next.pathname).toBe('/oauth/authorize')
    expect(Object.fromEntries(next.searchParams)).toEqual(Object.fromEntries(new URL(url).searchParams))
  })

  test('the consent page escapes what the client supplied, carries the CSP, and Deny answers access_denied with the state', async () => {
    const hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    const redirect = 'https://evil.example/cb?a="><script>alert(2)</script>'
    const client = (await register(s.url, { client_name: hostile, redirect_uris: [redirect] })).body
    const url = authorizeUrl(s.url, { client_id: client.client_id, code_challenge: (await pkce()).challenge, redirect_uri: redirect })
    const page = await fetch(url, { headers: { cookie: user.cookie } })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).not.toContain('<script')
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    expect(html).toContain(user.email)
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    // The form may lead to the client's redirect URI (browsers check form-action on the redirect too).
    expect(csp).toContain("form-action 'self' https://evil.example")

    const denied = await consent(s.url, url, user.cookie, 'deny')
    expect(denied.origin + denied.pathname).toBe('https://evil.example/cb')
    expect(denied.searchParams.get('error')).toBe('access_denied')
    expect(denied.searchParams.get('state')).toBe('xyz')
    expect(denied.searchParams.get('a')).toBe('"><script>alert(2)</script>')
    expect(denied.searchParams.get('code')).toBeNull()
  })

  test('the approve form is refused from another origin, or with a token of another session or another request', async () => {
    const client = (await register(s.url)).body
    const url = authorizeUrl(s.url, { client_id: client.client_id, code_challenge: (await pkce()).challenge })
    const fields = consentFields(await (await fetch(url, { headers: { cookie: user.cookie } })).text())
    const post = (cookie: string, origin: string, body: Record<string, string>) =>
      fetch(`${s.url}/oauth/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...body, decision: 'approve' }),
      })
    expect((await post(user.cookie, 'https://evil.example', fields)).status).toBe(403)
    const other = await s.t.signUp({ withKey: false })
    expect((await post(other.cookie, s.url, fields)).status).toBe(403)
    expect((await post(user.cookie, s.url, { ...fields, redirect_uri: 'http://127.0.0.1:1/other' })).status).toBe(403)
    expect((await post(user.cookie, s.url, fields)).status).toBe(303)
  })

  test('an invalid request is an error page, never a redirect: unknown client or redirect_uri, bad PKCE, response_type or resource', async () => {
    const { challenge } = await pkce()
    const unknown = await fetch(authorizeUrl(s.url, { client_id: 'mcpc_nope', code_challenge: challenge }), {
      headers: { cookie: user.cookie },
      redirect: 'manual',
    })
    expect(unknown.status).toBe(400)
    expect(unknown.headers.get('location')).toBeNull()
    const client = (await register(s.url)).body
    const elsewhere = await fetch(
      authorizeUrl(s.url, { client_id: client.client_id, code_challenge: challenge, redirect_uri: 'https://evil.example/cb' }),
      { headers: { cookie: user.cookie }, redirect: 'manual' },
    )
    expect(elsewhere.status).toBe(400)
    expect(elsewhere.headers.get('location')).toBeNull()

    // RFC 9700 §4.11.2: the client's registered redirect_uri is not trusted with an error before consent.
    const refused = async (params: Record<string, string>) => {
      const res = await fetch(authorizeUrl(s.url, { client_id: client.client_id, code_challenge: challenge, ...params }), {
        headers: { cookie: user.cookie },
        redirect: 'manual',
      })
      expect({ params, status: res.status, location: res.headers.get('location') }).toEqual({ params, status: 400, location: null })
      return res.text()
    }
    expect(await refused({ code_challenge: '' })).toContain('invalid_request')
    expect(await refused({ code_challenge_method: 'plain' })).toContain('invalid_request')
    expect(await refused({ response_type: 'token' })).toContain('unsupported_response_type')
    expect(await refused({ resource: 'https://other.example/mcp' })).toContain('invalid_target')
    // A loopback redirect URI may use any port (RFC 8252 §7.3).
    const loopback = await fetch(
      authorizeUrl(s.url, { client_id: client.client_id, code_challenge: challenge, redirect_uri: 'http://127.0.0.1:40000/callback' }),
      { headers: { cookie: user.cookie } },
    )
    expect(loopback.status).toBe(200)
  })
})

describe('token endpoint (RFC 6749 §5.2 errors)', () => {
  const oauthError = (res: { status: number; body: Record<string, any> }, error: string) => {
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 400, error })
    expect(res.body.error_description).toBeString()
  }

  test('a code gives Bearer tokens for an hour, with no-store', async () => {
    const res = await exchange(await codeFor())
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('no-store')
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^mcpat_/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^mcprt_/),
      scope: 'mcp',
    })
    expect((await postMcp({ authorization: `Bearer ${res.body.access_token}` })).status).toBe(200)
  })

  test('a wrong PKCE verifier, another redirect_uri or resource, another client, or no grant_type is refused', async () => {
    const c = await codeFor()
    oauthError(await exchange(c, { code_verifier: (await pkce()).verifier }), 'invalid_grant')
    oauthError(await exchange(c, { redirect_uri: 'http://127.0.0.1:53682/other' }), 'invalid_grant')
    oauthError(await exchange(c, { resource: 'https://other.example/mcp' }), 'invalid_target')
    const stranger = (await register(s.url)).body
    oauthError(await exchange(c, { client_id: stranger.client_id }), 'invalid_grant')
    oauthError(await token(s.url, { client_id: c.client.client_id, code: c.code }), 'invalid_request')
    oauthError(await token(s.url, { grant_type: 'password', client_id: c.client.client_id }), 'unsupported_grant_type')
    const unknown = await token(s.url, {
      grant_type: 'authorization_code',
      client_id: 'mcpc_nope',
      code: c.code,
      code_verifier: c.verifier,
    })
    expect({ status: unknown.status, error: unknown.body.error }).toEqual({ status: 401, error: 'invalid_client' })
    // None of that used the code up.
    expect((await exchange(c)).status).toBe(200)
  })

  test('a code used twice is refused and the tokens it gave are revoked', async () => {
    const c = await codeFor()
    const first = await exchange(c)
    expect(first.status).toBe(200)
    oauthError(await exchange(c), 'invalid_grant')
    expect((await postMcp({ authorization: `Bearer ${first.body.access_token}` })).status).toBe(401)
    oauthError(
      await token(s.url, { grant_type: 'refresh_token', client_id: c.client.client_id, refresh_token: first.body.refresh_token }),
      'invalid_grant',
    )
  })

  test('a code expires after five minutes', async () => {
    const c = await codeFor()
    s.t.clock.advance(5 * 60_000 + 1000)
    oauthError(await exchange(c), 'invalid_grant')
  })

  test('refresh rotates the refresh token; presenting the old one again revokes the whole grant', async () => {
    const c = await codeFor()
    const first = (await exchange(c)).body
    const refresh = (rt: string) =>
      token(s.url, { grant_type: 'refresh_token', client_id: c.client.client_id, refresh_token: rt, resource: `${s.url}/mcp` })
    const second = await refresh(first.refresh_token)
    expect(second.status).toBe(200)
    expect(second.body.refresh_token).not.toBe(first.refresh_token)
    expect((await postMcp({ authorization: `Bearer ${second.body.access_token}` })).status).toBe(200)
    oauthError(await refresh(first.refresh_token), 'invalid_grant')
    expect((await postMcp({ authorization: `Bearer ${second.body.access_token}` })).status).toBe(401)
    oauthError(await refresh(second.body.refresh_token), 'invalid_grant')
  })

  test('a confidential client authenticates with Basic or in the form; a wrong or missing secret is invalid_client', async () => {
    const c = await codeFor({}, { token_endpoint_auth_method: 'client_secret_basic' })
    expect(c.client.client_secret).toStartWith('mcps_')
    const basic = (secret: string) => ({ authorization: `Basic ${btoa(`${c.client.client_id}:${secret}`)}` })
    const params = { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT_URI }
    const wrong = await token(s.url, params, basic('mcps_wrong'))
    expect({ status: wrong.status, error: wrong.body.error }).toEqual({ status: 401, error: 'invalid_client' })
    expect(wrong.headers.get('www-authenticate')).toContain('Basic')
    expect((await token(s.url, { ...params, client_id: c.client.client_id })).body.error).toBe('invalid_client')
    const ok = await token(s.url, params, basic(c.client.client_secret))
    expect(ok.status).toBe(200)
    const viaForm = await token(s.url, {
      grant_type: 'refresh_token',
      refresh_token: ok.body.refresh_token,
      client_id: c.client.client_id,
      client_secret: c.client.client_secret,
    })
    expect(viaForm.status).toBe(200)
  })

  test('revocation (RFC 7009): a refresh token takes its grant with it; unknown tokens answer 200 too', async () => {
    const c = await codeFor()
    const tokens = (await exchange(c)).body
    const revoke = (t: string) =>
      fetch(`${s.url}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: t, client_id: c.client.client_id }),
      })
    expect((await revoke('mcprt_unknown')).status).toBe(200)
    expect((await postMcp({ authorization: `Bearer ${tokens.access_token}` })).status).toBe(200)
    expect((await revoke(tokens.refresh_token)).status).toBe(200)
    expect((await postMcp({ authorization: `Bearer ${tokens.access_token}` })).status).toBe(401)
  })
})
