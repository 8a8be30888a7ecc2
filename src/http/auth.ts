// The `auth` macro: routes opt in with `{ auth: true }` and receive a typed `user`.
// Bearer keys for API clients, the session cookie for the dashboard and extension (with an Origin check
// on state-changing requests), and every authenticated request counted for usage. MCP's OAuth access tokens
// are refused here (403): they are good for /mcp only, whose tools call the API as their principal (actAs).
import { Elysia } from 'elysia'
import type { Deps } from '../deps'
import { forbidden, insufficientStorage, paymentRequired, unauthorized } from './errors'
import { viaSurface, type Actor, type Principal } from '../modules/auth/session-user'
import { readCookie, SESSION_COOKIE, sessionCookie, validateSession } from '../modules/auth/sessions.service'
import { assertAllowed, KEY_SCOPES, requirementOf } from '../modules/keys/key-scopes'
import { verifyKey } from '../modules/keys/keys.service'
import { ACCESS_TOKEN_PREFIX } from '../modules/oauth-server/oauth.urls'
import { verifyAccessToken } from '../modules/oauth-server/tokens.service'
import { countApiCall } from '../modules/usage/usage.service'
import { limitMessage, limitsOf } from '../plans'

export type { Principal } from '../modules/auth/session-user'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

export const security: Record<string, string[]>[] = [{ bearer: [] }, { session: [] }]

/** Principals by request: authenticated in `transform` (before validation, so a caller without credentials
 * learns 401, not what the body should look like), handed to the handler by `resolve`. */
const principals = new WeakMap<Request, Principal>()
/** Who made an authenticated request, once the `auth` macro has run (cross-cutting plugins: idempotency). */
export const principalOf = (request: Request): Principal | undefined => principals.get(request)

export function authPlugin(deps: Deps) {
  return new Elysia({ name: 'auth' }).macro({
    auth: {
      detail: { security },
      async transform({ request, set, route }) {
        const { apiCalls, ...principal } = await authenticate(deps, request, (cookie) => (set.headers['set-cookie'] = cookie), {
          countCall: true,
        })
        // A key without the route's scope is refused here, before validation (counted like any authenticated call).
        const requirement = requirementOf(request.method, route)
        assertAllowed(principal, requirement)
        if (requirement !== 'read' && !SAFE_METHODS.has(request.method)) assertDiskRoom(deps)
        // Delegated requests (actAs) were authenticated already, and are counted here on their own.
        const calls = apiCalls ?? (await countApiCall(deps, principal.user.id))
        const cap = limitsOf(deps, principal.user.plan).api_calls_per_month
        if (cap !== null && calls > cap) throw paymentRequired(limitMessage(deps, principal.user.plan, 'api_calls_per_month'))
        principals.set(request, principal)
      },
      resolve({ request }) {
        const principal = principals.get(request)
        if (!principal) throw unauthorized()
        return { user: principal.user, principal }
      },
    },
  })
}

/** A write while DATA_DIR's disk is down to its reserve: 507 before it starts (db/disk-space.ts). */
function assertDiskRoom(deps: Deps): void {
  const room = deps.diskSpace?.read()
  if (!room?.low) return
  const mb = (bytes: number) => `${Math.floor(bytes / 1024 / 1024)} MB`
  throw insufficientStorage(
    `the disk holding the service's data is nearly full (${mb(room.freeBytes)} free, ${mb(room.reserveBytes)} kept for reads): nothing was written; writes resume once space is freed`,
  )
}

/** Requests the app makes to itself on behalf of an already authenticated principal (the MCP tools' API calls). */
const delegated = new WeakMap<Request, Principal>()

/** `request` (made in-process, never one from the network) runs as `principal`. */
export function actAs(request: Request, principal: Principal): Request {
  delegated.set(request, principal)
  return request
}

/**
 * The request's principal, or 401/403. With `countCall`, the request is counted for usage in the credential's own
 * lookup statement and `apiCalls` is the month's total (null for a delegated request, which nothing counted yet).
 */
export async function authenticate(
  deps: Deps,
  request: Request,
  setCookie: (cookie: string) => void,
  { countCall = false } = {},
): Promise<Principal & { apiCalls: number | null }> {
  const acting = delegated.get(request)
  if (acting) return { ...acting, apiCalls: null }
  const authorization = request.headers.get('authorization')
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) throw unauthorized('Authorization header must be "Bearer <API key>"')
    if (match[1]!.startsWith(ACCESS_TOKEN_PREFIX)) {
      if (await verifyAccessToken(deps, match[1]!))
        throw forbidden('this is an MCP OAuth token: it works on /mcp only; use an API key (POST /api/keys) for the REST API and /v1')
      throw unauthorized('invalid, expired or revoked token')
    }
    const found = await verifyKey(deps, match[1]!, { countCall })
    if (!found) throw unauthorized('invalid or revoked API key')
    return {
      user: viaSurface(found.user, surfaceOfKey(request)),
      via: 'key',
      credentialId: found.keyId,
      scopes: found.scopes,
      settings: found.settings,
      apiCalls: found.apiCalls,
    }
  }
  const token = readCookie(request.headers.get('cookie'), SESSION_COOKIE)
  if (!token) throw unauthorized('missing credentials: send "Authorization: Bearer <API key>" or sign in')
  // An unknown session is a 401 before a refused Origin is a 403; a refused write is not counted.
  const checkOrigin = !SAFE_METHODS.has(request.method)
  const originAllowed = !checkOrigin || deps.config.allowedOrigins.includes(request.headers.get('origin') ?? '')
  const session = await validateSession(deps, token, { countCall: countCall && originAllowed })
  if (!session) throw unauthorized('session expired or signed out')
  if (checkOrigin) assertAllowedOrigin(deps, request)
  if (session.renewed) setCookie(sessionCookie(deps, token, session.expiresAt))
  return {
    user: viaSurface(session.user, surfaceOfSession(request)),
    via: 'session',
    credentialId: session.sessionId,
    scopes: KEY_SCOPES,
    settings: session.settings,
    apiCalls: session.apiCalls,
  }
}

/** A key's way in, for the activity record: the OpenAI-compatible /v1, or the REST API. */
const surfaceOfKey = (request: Request): Actor['surface'] => (new URL(request.url).pathname.startsWith('/v1/') ? 'v1' : 'rest')

/** A session's way in: the extension (its origin says so: the browser sets Origin, a page cannot), else the dashboard. */
function surfaceOfSession(request: Request): Actor['surface'] {
  const origin = request.headers.get('origin') ?? ''
  return /^(chrome|moz|safari-web)-extension:\/\//.test(origin) ? 'extension' : 'dashboard'
}

/** Cookie-authenticated writes must come from the service's own origin or a configured one (CSRF). */
export function assertAllowedOrigin(deps: Deps, request: Request, required = true): void {
  const origin = request.headers.get('origin')
  if (origin === null && !required) return
  if (origin === null || !deps.config.allowedOrigins.includes(origin)) {
    throw forbidden(`origin ${origin ?? '(none)'} is not allowed to make cookie-authenticated changes`)
  }
}
