// CORS, two rules. The endpoints MCP clients call — /mcp, OAuth discovery (/.well-known/*), registration, token
// and revocation — take bearer credentials or none, never the session cookie, so any origin may call them
// without credentials: browser-based MCP clients (the MCP Inspector) run on origins nobody can list. Everything
// else (the cookie-authenticated API and the consent page) answers ALLOWED_ORIGINS (and the service's own
// origin, BASE_URL) only: credentials allowed, preflights answered here with every header the API reads, and
// the response headers clients need exposed. A preflight from any other origin is refused plainly (403, no
// CORS headers), so the browser says why rather than "404".
import { Elysia } from 'elysia'
import { errorResponse } from './error-codes'
import type { Config } from '../config'

const ALLOW_METHODS = 'GET, HEAD, POST, PATCH, PUT, DELETE, OPTIONS'
/** Request headers the API reads. */
const ALLOW_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'x-request-id',
  'idempotency-key',
  'if-match',
  'if-none-match',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]
const EXPOSE_HEADERS = [
  'etag',
  'location',
  'allow',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-request-id',
  'idempotent-replayed',
  'mcp-session-id',
]

/** The bearer-only endpoints open to every origin. Not /oauth/authorize: the consent page reads the session cookie. */
const OPEN_PATHS = new Set(['/mcp', '/oauth/register', '/oauth/token', '/oauth/revoke'])
const isOpenPath = (pathname: string) => OPEN_PATHS.has(pathname) || pathname.startsWith('/.well-known/')

/** What MCP clients send (RFC 6750 bearer, the MCP Streamable HTTP headers) and read: the 401's challenge
 * (RFC 9728 discovery starts from it), the session id, a 429's Retry-After. */
const OPEN_ALLOW_HEADERS = ['authorization', 'content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id']
const OPEN_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': ['www-authenticate', 'mcp-session-id', 'mcp-protocol-version', 'retry-after', 'x-request-id'].join(', '),
}

export function cors(config: Config) {
  const allowed = new Set(config.allowedOrigins)
  return new Elysia({ name: 'cors' }).onRequest(({ request, set }) => {
    const origin = request.headers.get('origin')
    const preflight = request.method === 'OPTIONS' && request.headers.has('access-control-request-method')
    // Set whatever the Origin (none included): a shared cache may hand the same answer to a browser.
    if (isOpenPath(new URL(request.url).pathname)) {
      Object.assign(set.headers, OPEN_HEADERS)
      if (!preflight) return
      return new Response(null, {
        status: 204,
        headers: {
          ...OPEN_HEADERS,
          'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
          'access-control-allow-headers': allowedHeaders(request, OPEN_ALLOW_HEADERS),
          'access-control-max-age': '600',
        },
      })
    }
    if (!origin) return
    if (!allowed.has(origin)) {
      if (!preflight) return // served without CORS headers: the browser keeps the answer from the page
      return errorResponse(request, 403, `origin ${origin} is not allowed: add it to ALLOWED_ORIGINS`, { headers: { vary: 'Origin' } })
    }
    set.headers['access-control-allow-origin'] = origin
    set.headers['access-control-allow-credentials'] = 'true'
    set.headers['access-control-expose-headers'] = EXPOSE_HEADERS.join(', ')
    set.headers.vary = 'Origin'
    if (preflight) {
      return new Response(null, {
        status: 204,
        headers: {
          ...(set.headers as Record<string, string>),
          'access-control-allow-methods': ALLOW_METHODS,
          'access-control-allow-headers': allowedHeaders(request, ALLOW_HEADERS),
          'access-control-max-age': '600',
        },
      })
    }
  })
}

/** `known` and the headers the preflight asks for (clients' SDKs add their own: OpenAI's x-stainless-*, an MCP
 * host's configured ones): the origin is trusted, or the endpoint takes no cookie. */
function allowedHeaders(request: Request, known: string[]): string {
  const asked = (request.headers.get('access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(h))
  return [...new Set([...known, ...asked])].join(', ')
}
