// CORS for ALLOWED_ORIGINS (and the service's own origin, BASE_URL): credentials allowed, preflights answered
// here with every header the API reads, and the response headers clients need exposed. A preflight from any
// other origin is refused plainly (403, no CORS headers), so the browser says why rather than "404".
import { Elysia } from 'elysia'
import { errorResponse } from './error-codes'
import type { Config } from '../config'

const ALLOW_METHODS = 'GET, HEAD, POST, PATCH, PUT, DELETE, OPTIONS'
/** Request headers the API reads (MCP's for /mcp); a preflight's own extra headers are allowed too, since the
 * origin is trusted and browser SDKs add their own (OpenAI's x-stainless-*). */
export const ALLOW_HEADERS = [
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
export const EXPOSE_HEADERS = [
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

export function cors(config: Config) {
  const allowed = new Set(config.allowedOrigins)
  return new Elysia({ name: 'cors' }).onRequest(({ request, set }) => {
    const origin = request.headers.get('origin')
    const preflight = request.method === 'OPTIONS' && request.headers.has('access-control-request-method')
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
      const asked = (request.headers.get('access-control-request-headers') ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter((h) => /^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(h))
      return new Response(null, {
        status: 204,
        headers: {
          ...(set.headers as Record<string, string>),
          'access-control-allow-methods': ALLOW_METHODS,
          'access-control-allow-headers': [...new Set([...ALLOW_HEADERS, ...asked])].join(', '),
          'access-control-max-age': '600',
        },
      })
    }
  })
}
