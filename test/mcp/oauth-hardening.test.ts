// The OAuth authorization server against the attacks a public registration endpoint invites, over real HTTP:
// no redirect to a client before the person has seen the consent page (RFC 9700 §4.11.2, open redirector),
// redirect URIs limited to https, loopback http and reverse-domain private-use schemes (RFC 8252 §7.1), a
// consent-page CSP no redirect URI can add a directive to, revocation of an access token ending its refresh
// token too (RFC 7009), and CORS preflights from any origin on the bearer-only endpoints browser-based MCP
// clients call, while the cookie API stays closed to foreign origins.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { oauthClients } from '../../db/schema'
import type { TestUser } from '../harness'
import { authorizeUrl, consent, pkce, REDIRECT_URI, register, token } from './oauth'
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

const PHISHING = 'https://phish.example/landing'
/** The directives of the dashboard's policy, which the consent page keeps. */
const DIRECTIVES = [
  'default-src',
  'script-src',
  'style-src',
  'img-src',
  'connect-src',
  'font-src',
  'object-src',
  'base-uri',
  'form-action',
  'frame-ancestors',
]

/** A Content-Security-Policy as directive → value. */
function directives(policy: string): Map<string, string> {
  const map = new Map<string, string>()
  for (const part of policy.split(';')) {
    const [name, ...value] = part.trim().split(/\s+/)
    if (name) map.set(name, value.join(' '))
  }
  return map
}

const get = (url: string, cookie?: string) => fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' })

describe('no redirect to the client before consent (RFC 9700 §4.11.2)', () => {
  test('a registered client cannot bounce a visitor to its site with an invalid request, signed in or not', async () => {
    const client = (await register(s.url, { redirect_uris: [PHISHING] })).body
    // The finding as reported: a link anyone can send, no session, no click.
    const bare = await get(`${s.url}/oauth/authorize?client_id=${client.client_id}&response_type=token`)
    expect(bare.status).toBe(400)
    expect(bare.headers.get('location')).toBeNull()
    expect(bare.headers.get('content-type')).toStartWith('text/html')
    expect(await bare.text()).toContain('unsupported_response_type')

    const { challenge } = await pkce()
    const valid = { client_id: client.client_id, redirect_uri: PHISHING, code_challenge: challenge }
    const broken: Record<string, string>[] = [
      { response_type: 'token' },
      { response_type: '' },
      { code_challenge: '' },
      { code_challenge_method: 'plain' },
      { code_challenge: 'too-short' },
      { resource: 'https://other.example/mcp' },
      { redirect_uri: 'https://phish.example/elsewhere' },
    ]
    for (const params of broken) {
      for (const cookie of [undefined, user.cookie]) {
        const res = await get(authorizeUrl(s.url, { ...valid, ...params }), cookie)
        expect({ params, signedIn: !!cookie, status: res.status, location: res.headers.get('location') }).toEqual({
          params,
          signedIn: !!cookie,
          status: 400,
          location: null,
        })
        // The error page lets its form go nowhere but this service.
        expect(directives(res.headers.get('content-security-policy')!).get('form-action')).toBe("'self'")
      }
    }
  })

  test('a client with several redirect URIs that names none gets an error page', async () => {
    const client = (await register(s.url, { redirect_uris: [PHISHING, 'https://phish.example/other'] })).body
    const res = await get(
      `${s.url}/oauth/authorize?${new URLSearchParams({ client_id: client.client_id, response_type: 'code', code_challenge: (await pkce()).challenge, code_challenge_method: 'S256' })}`,
      user.cookie,
    )
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
  })

  test('a scope this server does not have is not an error sent to the client: the person still sees the consent page', async () => {
    const client = (await register(s.url, { redirect_uris: [PHISHING] })).body
    const url = authorizeUrl(s.url, {
      client_id: client.client_id,
      redirect_uri: PHISHING,
      code_challenge: (await pkce()).challenge,
      scope: 'admin everything',
    })
    const signedOut = await get(url)
    expect(new URL(signedOut.headers.get('location')!, s.url).origin).toBe(s.url)
    expect((await get(url, user.cookie)).status).toBe(200)
  })

  test("after the consent page, the person's Deny still goes back to the client with access_denied", async () => {
    const client = (await register(s.url, { redirect_uris: [PHISHING] })).body
    const url = authorizeUrl(s.url, { client_id: client.client_id, redirect_uri: PHISHING, code_challenge: (await pkce()).challenge })
    const denied = await consent(s.url, url, user.cookie, 'deny')
    expect(denied.origin + denied.pathname).toBe(PHISHING)
    expect(denied.searchParams.get('error')).toBe('access_denied')
  })
})

describe('redirect URIs (RFC 8252 §7.1, RFC 7591 invalid_redirect_uri)', () => {
  test('schemes a browser or the system acts on, or without a domain, are refused at registration', async () => {
    for (const uri of [
      'intent://scan/#Intent;scheme=zxing;end',
      'intent://callback',
      'chrome://settings',
      'x-javascript:alert(1)',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
      'ms-settings:privacy',
      'myapp://callback',
      'https://x;sandbox/cb',
      'https://phish.example,script-src/cb',
      'https://[2001:db8::1]/cb',
      'https://phish.example/c b',
    ]) {
      const { status, body } = await register(s.url, { redirect_uris: [REDIRECT_URI, uri] })
      expect({ uri, status, error: body.error }).toEqual({ uri, status: 400, error: 'invalid_redirect_uri' })
    }
  })

  test('https, loopback http and reverse-domain private-use schemes are accepted', async () => {
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'https://203.0.113.7:8443/cb',
      'http://localhost:6274/oauth/callback',
      'http://127.0.0.1/cb',
      'http://[::1]:8080/cb',
      'com.example.app:/oauth2redirect',
      'com.example.app://callback',
      'cursor://anysphere.cursor-mcp/oauth/callback',
    ]) {
      const { status } = await register(s.url, { redirect_uris: [uri] })
      expect({ uri, status }).toEqual({ uri, status: 201 })
    }
  })

  test("the consent page's CSP names the redirect URI's origin or scheme, built from the parsed URI", async () => {
    for (const [uri, source] of [
      ['https://app.example:8443/cb?x=1', 'https://app.example:8443'],
      ['com.example.app:/oauth2redirect', 'com.example.app:'],
      ['http://[::1]:8080/cb', 'http:'],
      ['http://localhost:6274/oauth/callback', 'http://localhost:6274'],
    ] as const) {
      const client = (await register(s.url, { redirect_uris: [uri] })).body
      const page = await get(
        authorizeUrl(s.url, { client_id: client.client_id, redirect_uri: uri, code_challenge: (await pkce()).challenge }),
        user.cookie,
      )
      expect({ uri, status: page.status }).toEqual({ uri, status: 200 })
      const policy = directives(page.headers.get('content-security-policy')!)
      expect([...policy.keys()]).toEqual(DIRECTIVES)
      expect(policy.get('form-action')).toBe(`'self' ${source}`)
    }
  })

  test('a client stored under older rules with a ";" in its host gets an error page whose CSP it cannot extend', async () => {
    const id = `mcpc_legacy${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`
    const injected = 'https://x;sandbox;report-uri/cb'
    await s.t.deps.db.insert(oauthClients).values({
      id,
      secret_hash: null,
      name: 'Legacy',
      redirect_uris: [injected],
      auth_method: 'none',
      metadata: {},
      registered_from: 'test',
      created_at: s.t.clock.now(),
    })
    const res = await get(
      authorizeUrl(s.url, { client_id: id, redirect_uri: injected, code_challenge: (await pkce()).challenge }),
      user.cookie,
    )
    expect(res.status).toBe(400)
    expect(res.headers.get('location')).toBeNull()
    const policy = directives(res.headers.get('content-security-policy')!)
    expect([...policy.keys()]).toEqual(DIRECTIVES)
    expect(policy.get('form-action')).toBe("'self'")
  })
})

describe('revocation (RFC 7009)', () => {
  test("revoking the access token also ends the refresh token: the grant's whole family", async () => {
    const client = (await register(s.url)).body
    const { verifier, challenge } = await pkce()
    const code = (
      await consent(s.url, authorizeUrl(s.url, { client_id: client.client_id, code_challenge: challenge }), user.cookie)
    ).searchParams.get('code')!
    const tokens = (
      await token(s.url, {
        grant_type: 'authorization_code',
        client_id: client.client_id,
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
      })
    ).body
    const revoked = await fetch(`${s.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, token_type_hint: 'access_token', client_id: client.client_id }),
    })
    expect(revoked.status).toBe(200)
    const mcp = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(mcp.status).toBe(401)
    const refreshed = await token(s.url, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token })
    expect({ status: refreshed.status, error: refreshed.body.error }).toEqual({ status: 400, error: 'invalid_grant' })
    // Nor is the client listed among the person's connections any more.
    const keys = await s.t.json('GET', '/api/keys', { cookie: user.cookie })
    expect(JSON.stringify(keys.body)).not.toContain(client.client_id)
  })
})

describe('CORS for browser-based MCP clients', () => {
  const INSPECTOR = 'http://localhost:6274'
  const MCP_HEADERS = ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id']
  const preflight = (path: string, origin: string, method = 'POST', headers = MCP_HEADERS.join(', ')) =>
    fetch(s.url + path, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    })

  test('preflights from any origin on /mcp, discovery, registration, token and revocation are allowed, without credentials', async () => {
    for (const origin of [INSPECTOR, 'https://some-mcp-client.example']) {
      for (const [path, method] of [
        ['/mcp', 'POST'],
        ['/mcp', 'DELETE'],
        ['/oauth/register', 'POST'],
        ['/oauth/token', 'POST'],
        ['/oauth/revoke', 'POST'],
        ['/.well-known/oauth-protected-resource/mcp', 'GET'],
        ['/.well-known/oauth-authorization-server', 'GET'],
      ] as const) {
        const res = await preflight(path, origin, method)
        expect({ path, origin, status: res.status }).toEqual({ path, origin, status: 204 })
        expect(res.headers.get('access-control-allow-origin')).toBe('*')
        expect(res.headers.get('access-control-allow-credentials')).toBeNull()
        expect(res.headers.get('access-control-allow-methods')!.split(', ')).toContain(method)
        const allowed = res.headers.get('access-control-allow-headers')!.split(', ')
        for (const h of MCP_HEADERS) expect(allowed).toContain(h)
      }
    }
  })

  test("the answers are readable from any origin, /mcp's 401 challenge included", async () => {
    const challenge = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: { origin: INSPECTOR, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(challenge.status).toBe(401)
    expect(challenge.headers.get('access-control-allow-origin')).toBe('*')
    const exposed = challenge.headers.get('access-control-expose-headers')!.split(', ')
    expect(exposed).toContain('www-authenticate')
    expect(exposed).toContain('mcp-session-id')

    const registered = await fetch(`${s.url}/oauth/register`, {
      method: 'POST',
      headers: { origin: INSPECTOR, 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://localhost:6274/oauth/callback'], token_endpoint_auth_method: 'none' }),
    })
    expect(registered.status).toBe(201)
    expect(registered.headers.get('access-control-allow-origin')).toBe('*')
    const metadata = await fetch(`${s.url}/.well-known/oauth-authorization-server`, { headers: { origin: INSPECTOR } })
    expect(metadata.headers.get('access-control-allow-origin')).toBe('*')
  })

  test('the cookie API and the consent page stay closed to foreign origins', async () => {
    for (const path of ['/api/documents', '/api/keys', '/oauth/authorize']) {
      const res = await preflight(path, INSPECTOR, 'POST', 'content-type')
      expect({ path, status: res.status }).toEqual({ path, status: 403 })
      expect(res.headers.get('access-control-allow-origin')).toBeNull()
    }
    const read = await fetch(`${s.url}/api/keys`, { headers: { origin: INSPECTOR, cookie: user.cookie } })
    expect(read.headers.get('access-control-allow-origin')).toBeNull()
  })
})
