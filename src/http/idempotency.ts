// Idempotency-Key on POST, PATCH and DELETE, with Stripe's semantics: the same key with the same request
// (same user, method, path and body) replays the first response for 24 hours, marked `Idempotent-Replayed:
// true`; the same key with another request is a 422 naming the difference; a duplicate that arrives while
// the first is still running waits for it (up to `idempotencyTiming.waitMs`, then 409 with Retry-After).
// What is remembered: every response of a request that reached its handler, except a 5xx and the refusals
// that come before any work (402 plan limit, 429 rate limit): a retry of those may succeed, so it runs again.
// Requests refused before the handler (401, 403, validation 400) claim nothing. Streamed answers cannot be
// replayed, so a key on one is refused with 400 (see STREAMED).
import { Elysia } from 'elysia'
import type { Deps } from '../deps'
import { sha256Hex } from '../lib/crypto'
import { principalOf } from './auth'
import { rawBodyOf } from './body-limit'
import { AppError, badRequest } from './errors'
import { claimKey, completeKey, releaseKey, type Claim } from './idempotency.store'

export const IDEMPOTENCY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'
const METHODS = new Set(['POST', 'PATCH', 'DELETE'])
/** Printable ASCII, 1–255 characters (a UUID is the usual choice). */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/
/** Headers replayed with the body; the rest (request id, rate-limit counts, cookies) belong to each request. */
const KEPT_HEADERS = ['content-type', 'location', 'etag', 'last-modified']
/** Statuses not remembered: refusals before any work was done, and server errors. */
const forgotten = (status: number) => status >= 500 || status === 402 || status === 429

/** Tests shorten these; a real duplicate waits up to 10 s for the first request to finish. */
export const idempotencyTiming = { waitMs: 10_000, pollMs: 25 }

/** Routes whose answer is an event stream: a stream cannot be replayed, and recording half of one would be worse. */
function streamed(path: string, body: unknown): boolean {
  if (path === '/api/ask' || path === '/api/agent/chat') return true
  return path.startsWith('/v1/') && (body as { stream?: unknown } | undefined)?.stream === true
}

const claims = new WeakMap<Request, Claim>()

export function idempotency(deps: Deps) {
  return new Elysia({ name: 'idempotency' })
    .onBeforeHandle({ as: 'global' }, async ({ request, body }) => {
      const key = request.headers.get(IDEMPOTENCY_HEADER)
      if (key === null || !METHODS.has(request.method)) return
      if (!VALID_KEY.test(key))
        throw badRequest(`${IDEMPOTENCY_HEADER} must be 1 to 255 printable ASCII characters (a UUID is a good choice)`)
      const url = new URL(request.url)
      const principal = principalOf(request)
      if (!principal) throw badRequest(`${IDEMPOTENCY_HEADER} is accepted only on authenticated requests; ${url.pathname} takes none`)
      if (streamed(url.pathname, body)) {
        throw badRequest(
          `${IDEMPOTENCY_HEADER} cannot be used with a streamed response (${url.pathname}): a stream is not replayable; send the request without the header`,
        )
      }
      const wanted = {
        userId: principal.user.id,
        key,
        method: request.method,
        path: url.pathname + url.search,
        fingerprint: await fingerprintOf(request, body),
      }
      const started = performance.now()
      for (;;) {
        const result = await claimKey(deps, wanted)
        if (result.kind === 'claimed') {
          claims.set(request, result.claim)
          return
        }
        if (result.kind === 'replay') {
          return new Response(result.response.status === 204 || result.response.status === 304 ? null : result.response.body, {
            status: result.response.status,
            headers: { ...result.response.headers, [REPLAYED_HEADER]: 'true' },
          })
        }
        if (result.kind === 'mismatch') throw new AppError(422, result.message)
        if (performance.now() - started >= idempotencyTiming.waitMs) {
          throw new AppError(
            409,
            `a request with ${IDEMPOTENCY_HEADER} "${key}" is still in progress; retry once it has finished`,
            { 'retry-after': '1' },
            'idempotency_in_progress',
          )
        }
        await Bun.sleep(idempotencyTiming.pollMs)
      }
    })
    .wrap((fetch) => async (request: Request): Promise<Response> => {
      let response: Response
      try {
        response = await (fetch as unknown as (request: Request) => Response | Promise<Response>)(request)
      } catch (error) {
        const claim = claims.get(request)
        if (claim) await releaseKey(deps, claim)
        throw error
      }
      const claim = claims.get(request)
      return claim ? record(deps, claim, response) : response
    })
}

/** Stores the finished response (or releases the key) and hands over an equivalent one. */
async function record(deps: Deps, claim: Claim, response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? ''
  if (forgotten(response.status) || type.startsWith('text/event-stream')) {
    await releaseKey(deps, claim)
    return response
  }
  const body = await response.text()
  const headers: Record<string, string> = {}
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name)
    if (value !== null) headers[name] = value
  }
  await completeKey(deps, claim, { status: response.status, headers, body })
  return new Response(response.status === 204 || response.status === 304 ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  })
}

/** The request as the key remembers it: the JSON body as sent (keys sorted), or form fields with files by content. */
async function fingerprintOf(request: Request, body: unknown): Promise<string> {
  const raw = rawBodyOf(request)
  return fingerprintValue(raw ? JSON.parse(new TextDecoder().decode(raw)) : body)
}

export const fingerprintValue = async (value: unknown): Promise<string> => sha256Hex(await canonical(value))

async function canonical(value: unknown): Promise<string> {
  if (value instanceof Blob)
    return JSON.stringify({ blob: value.type, sha256: new Bun.CryptoHasher('sha256').update(await value.arrayBuffer()).digest('hex') })
  if (Array.isArray(value)) return `[${(await Promise.all(value.map(canonical))).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.keys(value)
        .sort()
        .map(async (k) => `${JSON.stringify(k)}:${await canonical((value as Record<string, unknown>)[k])}`),
    )
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
