// A local stand-in for Google Drive on 127.0.0.1 (Bun.serve, port 0): Google's OAuth 2.0 endpoints
// (GET /o/oauth2/v2/auth, POST /token for authorization_code and refresh_token, POST /revoke) and the Drive API
// v3 read endpoints (google-drive-api.ts) on one origin, in their documented wire formats. The token endpoint
// takes client_secret_basic or client_secret_post (never both); a code is single use, lives 10 minutes and is
// bound to its redirect_uri and PKCE challenge; a refresh token is issued only for access_type=offline and is
// not rotated; revoking either token of a grant ends both. Drive answers 401 authError without a live token,
// 403 insufficientPermissions without a Drive scope. The test scripts the files, edits and removals, and can
// expire tokens, rate-limit, fail or freeze the API and read every request back.
import { randomBytes } from 'node:crypto'
import { credentialsOf, s256 } from './oauth-provider'
import { createDriveStore, type DriveError, type DriveFakeFile, type DriveUser, type NewDriveFile } from './google-drive-api'

export { DOC, FOLDER, SHEET, type DriveFakeFile, type DriveUser } from './google-drive-api'
import type { ConnectorFake, RecordedRequest } from './connector-fake'

export type RecordedDriveRequest = RecordedRequest

export interface FakeGoogleDrive extends ConnectorFake {
  /** Requests to the Drive API (/drive/v3/...) only. */
  apiRequests(): RecordedRequest[]

  /** The signed-in Drive user (about.get); change its fields to script another account. */
  user: DriveUser
  /** My Drive's root folder id (also reachable as `root`); new files land there unless given parents. */
  rootFolderId: string
  files: Map<string, DriveFakeFile>
  addFolder(name: string, parents?: string[]): DriveFakeFile
  addFile(file: NewDriveFile): DriveFakeFile
  /** New content and/or name: `version` grows and `modifiedTime` moves on, as in Drive. */
  editFile(id: string, change: { content?: string; name?: string }): DriveFakeFile
  /** New parents (a metadata change: `version` grows). */
  moveFile(id: string, parents: string[]): void
  /** To the trash (or back); a trashed folder's contents count as trashed. */
  trashFile(id: string, trashed?: boolean): void
  /** Deleted for good, with what is only below it. */
  deleteFile(id: string): void
  /** files.list answers incompleteSearch: true (some corpus could not be searched). */
  setIncompleteSearch(on: boolean): void
}

export interface FakeGoogleDriveOptions {
  /** The redirect URI registered for the client; authorize and token requests must name it. */
  callbackUrl: string
  clientId?: string
  clientSecret?: string
  user?: Partial<DriveUser>
  /** Most files one page holds whatever pageSize asks (Drive may return fewer than asked). */
  pageLimit?: number
  /** files.export refuses larger exports with 403 exportSizeLimitExceeded (Drive: 10 MB). */
  exportLimitBytes?: number
}

interface Grant {
  scopes: string[]
  refreshToken: string | null
}

const PATHS = { authorize: '/o/oauth2/v2/auth', token: '/token', revoke: '/revoke' }
const SCOPE_ALIASES: Record<string, string> = {
  email: 'https://www.googleapis.com/auth/userinfo.email',
  profile: 'https://www.googleapis.com/auth/userinfo.profile',
}
const KNOWN_SCOPES = new Set([
  'openid',
  'email',
  'profile',
  ...Object.values(SCOPE_ALIASES),
  ...['drive', 'drive.readonly', 'drive.file', 'drive.metadata.readonly'].map((s) => `https://www.googleapis.com/auth/${s}`),
])
const DRIVE_READ_SCOPES = ['https://www.googleapis.com/auth/drive', 'https://www.googleapis.com/auth/drive.readonly']
const CODE_TTL_MS = 10 * 60_000

function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {}
  req.headers.forEach((value, name) => {
    out[name] = value
  })
  return out
}

const page = (status: number, text: string) =>
  new Response(`<!doctype html><title>Error ${status}</title><p>${text}</p>`, { status, headers: { 'content-type': 'text/html' } })
const oauthError = (error: string, description: string) =>
  Response.json({ error, error_description: description }, { status: error === 'invalid_client' ? 401 : 400 })
const driveError: DriveError = (status, reason, message, location) =>
  Response.json(
    {
      error: {
        code: status,
        message,
        errors: [{ message, domain: 'global', reason, ...(location ? { location, locationType: 'parameter' } : {}) }],
      },
    },
    { status },
  )

export function startGoogleDriveFake({
  callbackUrl,
  clientId = 'google-client-id',
  clientSecret = 'google-client-secret',
  ...options
}: FakeGoogleDriveOptions): FakeGoogleDrive {
  const store = createDriveStore(options)
  const user: DriveUser = {
    displayName: 'Dana Drive',
    emailAddress: 'dana@example.com',
    permissionId: '01234567890123456789',
    ...options.user,
  }
  const requests: RecordedRequest[] = []
  const revokedTokens: string[] = []
  const codes = new Map<
    string,
    { redirectUri: string; scopes: string[]; challenge: { value: string; method: string } | null; offline: boolean; expiresAt: number }
  >()
  const accessTokens = new Map<string, { grant: Grant; expired: boolean }>()
  const refreshTokens = new Map<string, Grant>()
  let denyNext = false
  let apiFailure: number | null = null
  let rateLimit = { left: 0, seconds: 1 }
  let gate: Promise<void> | null = null

  const back = (params: Record<string, string | undefined>) => {
    const url = new URL(callbackUrl)
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
    return new Response(null, { status: 302, headers: { location: url.toString() } })
  }
  const issueAccessToken = (grant: Grant) => {
    const token = `ya29.${randomBytes(24).toString('base64url')}`
    accessTokens.set(token, { grant, expired: false })
    return token
  }

  function authorize(q: Record<string, string>): Response {
    if (q.client_id !== clientId) return page(401, 'Error 401: invalid_client. The OAuth client was not found.')
    if (!q.redirect_uri) return page(400, 'Error 400: invalid_request. Missing required parameter: redirect_uri')
    if (q.redirect_uri !== callbackUrl) return page(400, 'Error 400: redirect_uri_mismatch')
    if (q.response_type !== 'code') return page(400, `Error 400: invalid_request. Invalid response_type: ${q.response_type ?? '(missing)'}`)
    if (!q.scope) return page(400, 'Error 400: invalid_request. Missing required parameter: scope')
    const scopes = q.scope.split(' ').filter(Boolean)
    const unknown = scopes.find((s) => !KNOWN_SCOPES.has(s))
    if (unknown) return page(400, `Error 400: invalid_scope. Some requested scopes were invalid: ${unknown}`)
    const method = q.code_challenge_method ?? 'plain'
    if (q.code_challenge && method !== 'S256' && method !== 'plain')
      return page(400, `Error 400: invalid_request. Invalid code_challenge_method: ${method}`)
    if (q.access_type !== undefined && q.access_type !== 'online' && q.access_type !== 'offline')
      return page(400, `Error 400: invalid_request. Invalid access_type: ${q.access_type}`)
    if (q.prompt?.split(' ').some((p) => !['none', 'consent', 'select_account'].includes(p)))
      return page(400, `Error 400: invalid_request. Invalid prompt: ${q.prompt}`)
    if (denyNext) {
      denyNext = false
      return back({ error: 'access_denied', state: q.state })
    }
    const granted = scopes.map((s) => SCOPE_ALIASES[s] ?? s)
    const code = `4/0A${randomBytes(24).toString('base64url')}`
    codes.set(code, {
      redirectUri: q.redirect_uri,
      scopes: granted,
      challenge: q.code_challenge ? { value: q.code_challenge, method } : null,
      offline: q.access_type === 'offline',
      expiresAt: Date.now() + CODE_TTL_MS,
    })
    return back({ state: q.state, code, scope: granted.join(' '), authuser: '0', prompt: 'consent' })
  }

  function token(req: Request, form: Record<string, string>): Response {
    const creds = credentialsOf({ headers: headersOf(req), body: form })
    if (creds.method === 'basic' && form.client_secret !== undefined)
      return oauthError('invalid_request', 'Use one client authentication method, not several.')
    if (!creds.clientId) return oauthError('invalid_request', 'Could not determine client ID from request.')
    if (creds.clientId !== clientId || creds.clientSecret !== clientSecret) return oauthError('invalid_client', 'Unauthorized')
    if (form.grant_type === 'refresh_token') {
      const grant = form.refresh_token ? refreshTokens.get(form.refresh_token) : undefined
      if (!grant) return oauthError('invalid_grant', 'Token has been expired or revoked.')
      // Google does not rotate refresh tokens: the answer carries none.
      return Response.json({ access_token: issueAccessToken(grant), expires_in: 3599, scope: grant.scopes.join(' '), token_type: 'Bearer' })
    }
    if (form.grant_type !== 'authorization_code')
      return oauthError(
        form.grant_type ? 'unsupported_grant_type' : 'invalid_request',
        form.grant_type ? `Invalid grant_type: ${form.grant_type}` : 'Required parameter is missing: grant_type',
      )
    const code = form.code ? codes.get(form.code) : undefined
    if (form.code) codes.delete(form.code) // single use, whatever happens next
    if (!code || code.expiresAt < Date.now()) return oauthError('invalid_grant', 'Malformed auth code.')
    if (form.redirect_uri !== code.redirectUri) return oauthError('redirect_uri_mismatch', 'Bad Request')
    if (code.challenge) {
      if (!form.code_verifier) return oauthError('invalid_grant', 'Missing code verifier.')
      const computed = code.challenge.method === 'S256' ? s256(form.code_verifier) : form.code_verifier
      if (computed !== code.challenge.value) return oauthError('invalid_grant', 'Invalid code verifier.')
    }
    const grant: Grant = { scopes: code.scopes, refreshToken: code.offline ? `1//0${randomBytes(32).toString('base64url')}` : null }
    if (grant.refreshToken) refreshTokens.set(grant.refreshToken, grant)
    const body = { access_token: issueAccessToken(grant), expires_in: 3599, scope: grant.scopes.join(' '), token_type: 'Bearer' }
    return Response.json(grant.refreshToken ? { ...body, refresh_token: grant.refreshToken } : body)
  }

  /** Revoking an access token or a refresh token ends the whole grant. */
  function revoke(tokenValue: string | undefined): Response {
    const grant = tokenValue ? (refreshTokens.get(tokenValue) ?? accessTokens.get(tokenValue)?.grant) : undefined
    if (!tokenValue || !grant)
      return Response.json({ error: 'invalid_token', error_description: 'Token expired or revoked' }, { status: 400 })
    revokedTokens.push(tokenValue)
    if (grant.refreshToken) refreshTokens.delete(grant.refreshToken)
    for (const [t, a] of accessTokens) if (a.grant === grant) accessTokens.delete(t)
    return Response.json({})
  }

  async function api(req: Request, path: string, query: Record<string, string>): Promise<Response> {
    if (gate) await gate
    if (apiFailure)
      return Response.json(
        {
          error: {
            code: apiFailure,
            message: 'The service is currently unavailable.',
            errors: [{ message: 'Backend Error', domain: 'global', reason: 'backendError' }],
            status: 'UNAVAILABLE',
          },
        },
        { status: apiFailure },
      )
    if (rateLimit.left > 0) {
      rateLimit.left--
      const body = {
        error: {
          code: 429,
          message: 'Rate Limit Exceeded',
          errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
          status: 'RESOURCE_EXHAUSTED',
        },
      }
      return Response.json(body, { status: 429, headers: { 'retry-after': String(rateLimit.seconds) } })
    }
    const bearer = req.headers.get('authorization')?.match(/^Bearer\s+(\S+)$/i)?.[1]
    const access = bearer ? accessTokens.get(bearer) : undefined
    if (!access || access.expired) {
      const message =
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.'
      const body = {
        error: {
          code: 401,
          message,
          errors: [
            { message: 'Invalid Credentials', domain: 'global', reason: 'authError', location: 'Authorization', locationType: 'header' },
          ],
          status: 'UNAUTHENTICATED',
        },
      }
      return Response.json(body, {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
      })
    }
    if (!access.grant.scopes.some((s) => DRIVE_READ_SCOPES.includes(s))) {
      const body = {
        error: {
          code: 403,
          message: 'Request had insufficient authentication scopes.',
          errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
          status: 'PERMISSION_DENIED',
        },
      }
      return Response.json(body, { status: 403 })
    }
    return store.handle(path, query, user, driveError)
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

      if (url.pathname === PATHS.authorize) return req.method === 'GET' ? authorize(query) : page(405, 'Method Not Allowed')
      if (url.pathname === PATHS.token || url.pathname === PATHS.revoke) {
        if (req.method !== 'POST') return page(405, 'Method Not Allowed')
        // The revoke endpoint also takes ?token= (Google's documented curl example).
        if (url.pathname === PATHS.revoke) return revoke(form?.token ?? query.token)
        return form ? token(req, form) : oauthError('invalid_request', 'The body must be application/x-www-form-urlencoded.')
      }
      if (url.pathname.startsWith('/drive/v3/'))
        return req.method === 'GET' ? api(req, url.pathname, query) : driveError(405, 'httpMethodNotAllowed', 'Method Not Allowed')
      return page(404, 'Not Found')
    },
  })

  const baseUrl = `http://127.0.0.1:${server.port}`
  return {
    baseUrl,
    clientId,
    clientSecret,
    env: {
      GOOGLE_CLIENT_ID: clientId,
      GOOGLE_CLIENT_SECRET: clientSecret,
      GOOGLE_AUTH_URL: baseUrl + PATHS.authorize,
      GOOGLE_TOKEN_URL: baseUrl + PATHS.token,
      GOOGLE_API_URL: baseUrl,
      GOOGLE_REVOKE_URL: baseUrl + PATHS.revoke,
    },
    requests,
    apiRequests: () => requests.filter((r) => r.path.startsWith('/drive/')),
    expireAccessTokens: () => {
      for (const a of accessTokens.values()) a.expired = true
    },
    revokedTokens,
    rateLimitNext: (n, retryAfterSeconds = 1) => {
      rateLimit = { left: n, seconds: retryAfterSeconds }
    },
    failApi: (status) => {
      apiFailure = status
    },
    denyNextConsent: () => {
      denyNext = true
    },
    gateApi: (next) => {
      gate = next
    },
    stop: () => server.stop(true),

    user,
    rootFolderId: store.rootId,
    files: store.files,
    addFolder: (name, parents) => store.addFile({ name, mimeType: 'application/vnd.google-apps.folder', parents }),
    addFile: store.addFile,
    editFile: store.editFile,
    moveFile: store.moveFile,
    trashFile: store.trashFile,
    deleteFile: store.deleteFile,
    setIncompleteSearch: store.setIncompleteSearch,
  }
}
