// CORS for ALLOWED_ORIGINS (and the service's own origin): credentials allowed, preflights answered here.
import { Elysia } from 'elysia'
import type { Config } from '../config'

const ALLOW_METHODS = 'GET, POST, PATCH, PUT, DELETE, OPTIONS'
const ALLOW_HEADERS = 'authorization, content-type, x-request-id'

export function cors(config: Config) {
  const allowed = new Set(config.allowedOrigins)
  return new Elysia({ name: 'cors' }).onRequest(({ request, set }) => {
    const origin = request.headers.get('origin')
    if (!origin || !allowed.has(origin)) return
    set.headers['access-control-allow-origin'] = origin
    set.headers['access-control-allow-credentials'] = 'true'
    set.headers['access-control-expose-headers'] = 'x-request-id, retry-after, ratelimit-limit, ratelimit-remaining, ratelimit-reset'
    set.headers['vary'] = 'Origin'
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return new Response(null, {
        status: 204,
        headers: { ...(set.headers as Record<string, string>), 'access-control-allow-methods': ALLOW_METHODS, 'access-control-allow-headers': ALLOW_HEADERS, 'access-control-max-age': '600' },
      })
    }
  })
}
