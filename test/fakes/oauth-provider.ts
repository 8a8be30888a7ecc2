// Local stand-ins for GitHub's and Google's OAuth 2.0 endpoints on 127.0.0.1 (Bun.serve, port 0), in their
// documented wire formats. GitHub: GET /login/oauth/authorize, POST /login/oauth/access_token (errors come
// back as HTTP 200 with { error, error_description, error_uri }, JSON only when Accept asks for it), and the
// REST API GET /user, GET /user/emails (Bearer or `token`, User-Agent required). Google: GET /o/oauth2/v2/auth,
// POST /token (errors 400 / 401 invalid_client), POST /revoke, GET /oauth2/v3/userinfo. Token endpoints take
// client_secret_basic or client_secret_post (never both); a code is single use, lives 10 minutes and is bound
// to its client, redirect_uri and PKCE challenge (S256 or plain). Google's id_token is left out: nothing here
// reads it. The test chooses who is signed in at the provider, can make the next consent a refusal or the
// token endpoint / API fail, and reads every request back.
import { createHash, randomBytes } from 'node:crypto'

export type ProviderKind = 'github' | 'google'

export interface ScriptedUser {
  /** GitHub's numeric id (as a string) or Google's `sub`. */
  id: string
  login?: string
  name?: string | null
  emails: { email: string; verified: boolean; primary?: boolean }[]
}

export interface RecordedOAuthRequest {
  method: string
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  /** The form body as key → value (token and revoke endpoints), else the raw text. */
  body: Record<string, string> | string
}

export interface FakeOAuthProvider {
  kind: ProviderKind
  baseUrl: string
  clientId: string
  clientSecret: string
  /** <PROVIDER>_CLIENT_ID, _CLIENT_SECRET, _AUTH_URL, _TOKEN_URL, _API_URL (and Google's _REVOKE_URL) for this fake. */
  env: Record<string, string>
  requests: RecordedOAuthRequest[]
  authorizeRequests(): RecordedOAuthRequest[]
  tokenRequests(): RecordedOAuthRequest[]
  /** The user who is signed in at the provider and consents at the authorize endpoint. */
  signInAs(user: ScriptedUser): void
  /** The next authorize request is refused by the user: error=access_denied goes back to the app. */
  denyNextConsent(): void
  /** Every API (profile) request answers `status` until called with null. */
  failApi(status: number | null): void
  /** Every token request answers `status` (a server error page) until called with null. */
  failToken(status: number | null): void
  stop(): Promise<void>
}

export interface FakeOAuthOptions {
  /** The redirect URI registered for the client; authorize and token requests must name it. */
  callbackUrl: string
  clientId?: string
  clientSecret?: string
}

interface Grant {
  clientId: string
  redirectUri: string | null
  user: ScriptedUser
  scopes: string[]
  challenge: { value: string; method: 'S256' | 'plain' } | null
  offline: boolean
  expiresAt: number
}

function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {}
  req.headers.forEach((value, name) => {
    out[name] = value
  })
  return out
}

export const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')

/** How a token request authenticated its client: HTTP Basic (client_secret_basic) or the form (client_secret_post). */
export function credentialsOf(req: Pick<RecordedOAuthRequest, 'headers' | 'body'>): {
  method: 'basic' | 'post' | 'none'
  clientId?: string
  clientSecret?: string
} {
  const body = typeof req.body === 'object' ? req.body : {}
  const basic = req.headers.authorization?.match(/^Basic\s+(\S+)$/i)
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    return {
      method: 'basic',
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
    }
  }
  if (body.client_secret !== undefined) return { method: 'post', clientId: body.client_id, clientSecret: body.client_secret }
  return { method: 'none', clientId: body.client_id }
}

const PATHS = {
  github: { authorize: '/login/oauth/authorize', token: '/login/oauth/access_token', revoke: null },
  google: { authorize: '/o/oauth2/v2/auth', token: '/token', revoke: '/revoke' },
} as const

const GOOGLE_SCOPES: Record<string, string> = {
  email: 'https://www.googleapis.com/auth/userinfo.email',
  profile: 'https://www.googleapis.com/auth/userinfo.profile',
}
const CODE_TTL_MS = 10 * 60_000

export const startFakeGitHub = (options: FakeOAuthOptions) => startFakeOAuthProvider('github', options)
export const startFakeGoogle = (options: FakeOAuthOptions) => startFakeOAuthProvider('google', options)

export function startFakeOAuthProvider(
  kind: ProviderKind,
  { callbackUrl, clientId = `${kind}-client-id`, clientSecret = `${kind}-client-secret` }: FakeOAuthOptions,
): FakeOAuthProvider {
  const requests: RecordedOAuthRequest[] = []
  const codes = new Map<string, Grant>()
  const tokens = new Map<string, { user: ScriptedUser; scopes: string[] }>()
  const paths = PATHS[kind]
  let current: ScriptedUser | null = null
  let denyNext = false
  let apiFailure: number | null = null
  let tokenFailure: number | null = null

  const page = (status: number, text: string) =>
    new Response(`<!doctype html><title>Error ${status}</title><p>${text}</p>`, { status, headers: { 'content-type': 'text/html' } })
  const back = (to: string, params: Record<string, string | undefined>) => {
    const url = new URL(to)
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
    return new Response(null, { status: 302, headers: { location: url.toString() } })
  }

  function authorize(q: Record<string, string>): Response {
    if (q.client_id !== clientId)
      return kind === 'github' ? page(404, 'Not Found') : page(401, 'Error 401: invalid_client. The OAuth client was not found.')
    const redirectUri = q.redirect_uri ?? (kind === 'github' ? callbackUrl : undefined)
    if (!redirectUri) return page(400, 'Error 400: invalid_request. Missing required parameter: redirect_uri')
    if (redirectUri !== callbackUrl) {
      // Google shows an error page; GitHub sends the browser to the registered callback with the error.
      if (kind === 'google') return page(400, 'Error 400: redirect_uri_mismatch')
      return back(callbackUrl, {
        error: 'redirect_uri_mismatch',
        error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
        state: q.state,
      })
    }
    if (kind === 'google' && q.response_type !== 'code')
      return page(400, `Error 400: invalid_request. Invalid response_type: ${q.response_type ?? '(missing)'}`)
    if (kind === 'google' && !q.scope) return page(400, 'Error 400: invalid_request. Missing required parameter: scope')
    const method = q.code_challenge_method ?? 'plain'
    if (q.code_challenge && (kind === 'github' ? method !== 'S256' : method !== 'S256' && method !== 'plain'))
      return page(400, `Error 400: invalid_request. Invalid code_challenge_method: ${method}`)
    const state = { state: q.state }
    if (denyNext) {
      denyNext = false
      return back(
        redirectUri,
        kind === 'github'
          ? { error: 'access_denied', error_description: 'The user has denied your application access.', ...state }
          : { error: 'access_denied', ...state },
      )
    }
    if (!current) return page(400, 'fake provider: no user is signed in (call signInAs first)')
    const scopes = (q.scope ?? '').split(/[\s,]+/).filter(Boolean)
    const code = kind === 'github' ? randomBytes(10).toString('hex') : `4/0A${randomBytes(24).toString('base64url')}`
    codes.set(code, {
      clientId,
      redirectUri: q.redirect_uri ?? null,
      user: current,
      scopes,
      challenge: q.code_challenge ? { value: q.code_challenge, method: method as 'S256' | 'plain' } : null,
      offline: q.access_type === 'offline',
      expiresAt: Date.now() + CODE_TTL_MS,
    })
    if (kind === 'github') return back(redirectUri, { code, ...state })
    const granted = scopes.map((s) => GOOGLE_SCOPES[s] ?? s).join(' ')
    return back(redirectUri, { ...state, code, scope: granted, authuser: '0', prompt: 'consent' })
  }

  /** GitHub answers token errors with 200; Google with 400, or 401 for a bad client. */
  function tokenError(req: Request, error: string, description: string): Response {
    if (kind === 'google')
      return Response.json({ error, error_description: description }, { status: error === 'invalid_client' ? 401 : 400 })
    return github(req, {
      error,
      error_description: description,
      error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${error.replaceAll('_', '-')}`,
    })
  }
  function github(req: Request, data: Record<string, string>): Response {
    if (req.headers.get('accept')?.includes('json')) return Response.json(data)
    return new Response(new URLSearchParams(data).toString(), {
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    })
  }

  function token(req: Request, form: Record<string, string>): Response {
    if (tokenFailure) return page(tokenFailure, 'Service Unavailable')
    const creds = credentialsOf({ headers: headersOf(req), body: form })
    if (creds.method === 'basic' && form.client_secret !== undefined)
      return tokenError(req, 'invalid_request', 'Use one client authentication method, not several.')
    if (creds.clientId !== clientId || creds.clientSecret !== clientSecret) {
      return kind === 'github'
        ? tokenError(req, 'incorrect_client_credentials', 'The client_id and/or client_secret passed are incorrect.')
        : tokenError(req, 'invalid_client', 'Unauthorized')
    }
    if (kind === 'google' && !form.grant_type) return tokenError(req, 'invalid_request', 'Required parameter is missing: grant_type')
    if (form.grant_type !== undefined && form.grant_type !== 'authorization_code')
      return tokenError(req, 'unsupported_grant_type', `Invalid grant_type: ${form.grant_type}`)
    const grant = form.code ? codes.get(form.code) : undefined
    if (form.code) codes.delete(form.code) // single use, whatever happens next
    const badCode = () =>
      kind === 'github'
        ? tokenError(req, 'bad_verification_code', 'The code passed is incorrect or expired.')
        : tokenError(req, 'invalid_grant', 'Bad Request')
    if (!grant || grant.clientId !== creds.clientId || grant.expiresAt < Date.now()) return badCode()
    if (
      kind === 'google'
        ? form.redirect_uri !== grant.redirectUri
        : form.redirect_uri !== undefined && form.redirect_uri !== (grant.redirectUri ?? callbackUrl)
    ) {
      return kind === 'github'
        ? tokenError(req, 'redirect_uri_mismatch', 'The redirect_uri MUST match the registered callback URL for this application.')
        : tokenError(req, 'redirect_uri_mismatch', 'Bad Request')
    }
    if (grant.challenge) {
      if (!form.code_verifier) return kind === 'github' ? badCode() : tokenError(req, 'invalid_grant', 'Missing code verifier.')
      const computed = grant.challenge.method === 'S256' ? s256(form.code_verifier) : form.code_verifier
      if (computed !== grant.challenge.value)
        return kind === 'github' ? badCode() : tokenError(req, 'invalid_grant', 'Invalid code verifier.')
    }
    if (kind === 'github') {
      const accessToken = `gho_${randomBytes(18).toString('hex')}`
      tokens.set(accessToken, { user: grant.user, scopes: grant.scopes })
      return github(req, { access_token: accessToken, token_type: 'bearer', scope: grant.scopes.join(',') })
    }
    const accessToken = `ya29.${randomBytes(24).toString('base64url')}`
    tokens.set(accessToken, { user: grant.user, scopes: grant.scopes })
    const scope = grant.scopes.map((s) => GOOGLE_SCOPES[s] ?? s).join(' ')
    return Response.json({
      access_token: accessToken,
      expires_in: 3599,
      scope,
      token_type: 'Bearer',
      ...(grant.offline ? { refresh_token: `1//${randomBytes(24).toString('base64url')}` } : {}),
    })
  }

  function api(req: Request, path: string): Response {
    const auth = req.headers.get('authorization')?.match(kind === 'github' ? /^(?:Bearer|token)\s+(\S+)$/i : /^Bearer\s+(\S+)$/i)
    const grant = auth ? tokens.get(auth[1]!) : undefined
    if (kind === 'github') {
      if (!req.headers.get('user-agent'))
        return new Response(
          'Request forbidden by administrative rules. Please make sure your request has a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required).',
          { status: 403 },
        )
      if (apiFailure) return Response.json({ message: 'Service Unavailable' }, { status: apiFailure })
      if (!grant)
        return Response.json(
          {
            message: auth ? 'Bad credentials' : 'Requires authentication',
            documentation_url: 'https://docs.github.com/rest',
            status: '401',
          },
          { status: 401 },
        )
      const u = grant.user
      if (path === '/user') {
        const primary = u.emails.find((e) => e.primary)
        return Response.json({
          login: u.login ?? `user${u.id}`,
          id: Number(u.id),
          node_id: `U_${u.id}`,
          avatar_url: `https://avatars.githubusercontent.com/u/${u.id}?v=4`,
          type: 'User',
          name: u.name ?? null,
          email: primary?.email ?? null,
        })
      }
      if (!grant.scopes.includes('user:email') && !grant.scopes.includes('user'))
        return Response.json(
          {
            message: 'Not Found',
            documentation_url: 'https://docs.github.com/rest/users/emails#list-email-addresses-for-the-authenticated-user',
            status: '404',
          },
          { status: 404 },
        )
      return Response.json(
        u.emails.map((e) => ({ email: e.email, primary: !!e.primary, verified: e.verified, visibility: e.primary ? 'public' : null })),
      )
    }
    if (apiFailure)
      return Response.json(
        { error: { code: apiFailure, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } },
        { status: apiFailure },
      )
    if (!grant)
      return Response.json(
        { error: 'invalid_request', error_description: 'Invalid Credentials' },
        { status: 401, headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' } },
      )
    const u = grant.user
    const email = u.emails.find((e) => e.primary) ?? u.emails[0]
    const has = (scope: string) => grant.scopes.includes(scope) || grant.scopes.includes(GOOGLE_SCOPES[scope]!)
    return Response.json({
      sub: u.id,
      ...(has('profile') ? { name: u.name ?? undefined, picture: `https://lh3.googleusercontent.com/a/${u.id}` } : {}),
      ...(has('email') && email ? { email: email.email, email_verified: email.verified } : {}),
    })
  }

  function revoke(form: Record<string, string>): Response {
    if (!form.token || !tokens.delete(form.token))
      return Response.json({ error: 'invalid_token', error_description: 'Token expired or revoked' }, { status: 400 })
    return Response.json({})
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const text = await req.text()
      const form = req.headers.get('content-type')?.startsWith('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(text))
        : null
      const query = Object.fromEntries(url.searchParams)
      requests.push({ method: req.method, path: url.pathname, query, headers: headersOf(req), body: form ?? text })

      if (req.method === 'GET' && url.pathname === paths.authorize) return authorize(query)
      if (url.pathname === paths.token || url.pathname === paths.revoke) {
        if (req.method !== 'POST') return page(405, 'Method Not Allowed')
        if (!form) return tokenError(req, 'invalid_request', 'The body must be application/x-www-form-urlencoded.')
        return url.pathname === paths.token ? token(req, form) : revoke(form)
      }
      const apiPaths = kind === 'github' ? ['/user', '/user/emails'] : ['/oauth2/v3/userinfo']
      if (req.method === 'GET' && apiPaths.includes(url.pathname)) return api(req, url.pathname)
      return kind === 'github'
        ? Response.json({ message: 'Not Found', documentation_url: 'https://docs.github.com/rest' }, { status: 404 })
        : page(404, 'Not Found')
    },
  })

  const baseUrl = `http://127.0.0.1:${server.port}`
  const P = kind.toUpperCase()
  return {
    kind,
    baseUrl,
    clientId,
    clientSecret,
    env: {
      [`${P}_CLIENT_ID`]: clientId,
      [`${P}_CLIENT_SECRET`]: clientSecret,
      [`${P}_AUTH_URL`]: baseUrl + paths.authorize,
      [`${P}_TOKEN_URL`]: baseUrl + paths.token,
      [`${P}_API_URL`]: baseUrl,
      ...(paths.revoke ? { [`${P}_REVOKE_URL`]: baseUrl + paths.revoke } : {}),
    },
    requests,
    authorizeRequests: () => requests.filter((r) => r.path === paths.authorize),
    tokenRequests: () => requests.filter((r) => r.path === paths.token),
    signInAs: (user) => {
      current = user
    },
    denyNextConsent: () => {
      denyNext = true
    },
    failApi: (status) => {
      apiFailure = status
    },
    failToken: (status) => {
      tokenFailure = status
    },
    stop: () => server.stop(true),
  }
}
