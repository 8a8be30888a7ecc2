// One error shape for the whole API: services throw these; `errorHandler` maps every error to `{ error, code }` (OpenAI's shape on /v1, JSON-RPC's on /mcp's 401 and 403).
import type { ValueError } from '@sinclair/typebox/errors'
import { Elysia, ValidationError } from 'elysia'
import { DatabaseCrashedError } from '../../db/pglite-guard'
import type { Logger } from '../log'
import { drainBody } from './drain'
import { bodyLimitFor } from './route-body-limits'
import { codeForStatus, errorBody, type ErrorCode, rpcIdOf } from './error-codes'
import { requestIdFor } from './request-id'

/**
 * `code` defaults to the status's own (error-codes.ts); name one only where the status has several meanings.
 * `message` is what the client reads; a `cause` (the driver's or the network's own error, which names hosts,
 * ports and internals) is written to the log with the request id, never into the answer.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly code: ErrorCode = codeForStatus(status),
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

export const badRequest = (message: string) => new AppError(400, message)
export const unauthorized = (message = 'missing or invalid credentials') => new AppError(401, message)
export const paymentRequired = (message: string) => new AppError(402, message)
export const forbidden = (message: string) => new AppError(403, message)
export const notFound = (message: string) => new AppError(404, message)
export const conflict = (message: string) => new AppError(409, message)
export const payloadTooLarge = (message: string) => new AppError(413, message)
/** A dependency that is not configured (billing, an OAuth provider). */
export const insufficientStorage = (message: string) => new AppError(507, message, {}, 'insufficient_storage')
export const unavailable = (message: string) => new AppError(503, message, {}, 'service_unavailable')
/** An upstream service (Stripe, an OAuth or connector provider) failed or could not be reached: `message` names
 * which, in words that stay the same whatever went wrong; `cause` is why, for the log only. */
export const providerFailed = (message: string, cause?: unknown) => new AppError(502, message, {}, 'provider_error', { cause })
/** No embedding or chat model is loaded, or it failed. */
export const modelUnavailable = (message: string) => new AppError(503, message, {}, 'model_unavailable')

/** Request ids, kept per request so the error mapper can log them even before routing succeeds. */
const requestIds = new WeakMap<Request, string>()
export const requestIdOf = (request: Request) => requestIds.get(request) ?? 'unknown'

/** What a client waiting out a database restart or an exhausted pool is told to wait, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 5

export function errorHandler(log: Logger, maxBodyBytes: number) {
  return new Elysia({ name: 'error-handler' })
    .onRequest(async ({ request, set }) => {
      const id = requestIdFor(request)
      requestIds.set(request, id)
      set.headers['x-request-id'] = id
      const length = Number(request.headers.get('content-length') ?? 0)
      const limit = length > maxBodyBytes ? bodyLimitFor(request, maxBodyBytes) : maxBodyBytes
      if (length > limit) {
        await drainBody(request.body)
        throw payloadTooLarge(`request body is larger than ${limit} bytes`)
      }
    })
    .onError({ as: 'global' }, ({ code, error: thrown, set, request, body }) => {
      let error: unknown = thrown
      set.headers['content-type'] = 'application/json'
      const pathname = new URL(request.url).pathname
      const answer = (status: number, message: string, errorCode?: ErrorCode) => {
        set.status = status
        return errorBody(pathname, status, message, errorCode, rpcIdOf(body))
      }
      // An AppError thrown while parsing (the body limit) arrives wrapped in Elysia's parse error.
      if (code === 'PARSE' && (error as Error).cause instanceof AppError) error = (error as Error).cause as AppError
      const where = () => ({ request_id: requestIdOf(request), method: request.method, path: pathname })
      if (error instanceof AppError) {
        if (error.status >= 500 && error.cause !== undefined)
          log.warn('upstream failed', { ...where(), error: error.message, cause: describeError(error.cause) })
        Object.assign(set.headers, error.headers)
        return answer(error.status, error.message, error.code)
      }
      // The query builder wraps the driver's error; the crash is the cause.
      const crash =
        error instanceof DatabaseCrashedError
          ? error
          : (error as Error)?.cause instanceof DatabaseCrashedError
            ? (error as Error).cause
            : null
      if (crash) return answer(503, 'the database is unavailable: the service must be restarted')
      const unreachable = databaseUnreachable(error)
      if (unreachable) {
        log.warn('database unavailable', { ...where(), cause: describeError(unreachable) })
        set.headers['retry-after'] = String(DATABASE_RETRY_AFTER_SECONDS)
        return answer(503, 'database unavailable, retry shortly', 'service_unavailable')
      }
      if (accountGone(error)) return answer(401, 'the account was deleted')
      if (diskFull(error)) {
        log.warn('disk full', { ...where(), cause: describeError(error) })
        return answer(507, DISK_FULL)
      }
      if (error instanceof ValidationError && error.type !== 'response') return answer(400, describeValidation(error))
      if (code === 'NOT_FOUND') return answer(404, `no route for ${request.method} ${pathname}`)
      if (code === 'PARSE') return answer(400, 'request body is not valid JSON (or does not match its content-type)')
      if (code === 'INVALID_COOKIE_SIGNATURE') return answer(401, 'invalid session cookie')
      log.error('unhandled error', {
        ...where(),
        error: String((error as Error)?.stack ?? error),
        cause: String((error as Error)?.cause ?? ''),
      })
      return answer(500, 'internal error')
    })
}

/** Socket errors (Node's, as postgres.js passes them on) and postgres.js's own connection errors. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'CONNECTION_ENDED',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
])
/** SQLSTATEs of a server that is there but cannot serve now: class 08 (connection exception), too many
 * connections, and a backend ended by the server (shut down, crashed, terminated, starting up, idle timeout). */
const UNAVAILABLE_STATES = /^(08...|53300|57P0[1-5])$/

/**
 * The error, or the cause in its chain, that says the database cannot be reached right now (down, restarting,
 * out of connections, closed) rather than that a statement was wrong: the request may succeed once it is back,
 * so the client is told to retry (503 with Retry-After), not that the service is broken (500). The query
 * builder wraps the driver's error; the cause is what the driver threw.
 */
function databaseUnreachable(error: unknown): Error | null {
  let depth = 0
  for (
    let e = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
    e && depth < 8;
    e = e.cause as typeof e, depth++
  ) {
    const code = typeof e.code === 'string' ? e.code : ''
    if (CONNECTION_CODES.has(code) || UNAVAILABLE_STATES.test(code)) return e as Error
    // The embedded database after close() (a request that outlived shutdown's drain).
    if (e instanceof Error && /^PGlite is clos(ed|ing)$/.test(e.message)) return e
  }
  return null
}

export const DISK_FULL =
  "the disk holding the service's data is full: nothing was written; writes resume once space is freed (reads still work)"

/** PostgreSQL's disk_full (53100): a file of the database could not grow. The statement wrote nothing. */
function diskFull(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 8; e = e.cause as typeof e, depth++)
    if (e.code === '53100') return true
  return false
}

/** "Error: connect ECONNREFUSED 127.0.0.1:5432", with its causes (a few: a chain may loop). */
export function describeError(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause !== undefined && depth < 4 ? ` (cause: ${describeError(error.cause, depth + 1)})` : ''
  return `${error.name}: ${error.message}${cause}`
}

/** A write that references a user who is gone: the account was deleted (with its keys and sessions) while this
 * request, authenticated just before, was in flight. Only a server running requests side by side shows it. */
function accountGone(error: unknown): boolean {
  for (let e = error as { code?: string; detail?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23503' && /is not present in table "users"/.test(e.detail ?? '')) return true
  }
  return false
}

/** "body.learnings[2].title: Expected string" — names the field (docs/decisions.md#errors). */
function describeValidation(error: ValidationError): string {
  const first = error.valueError && specific(error.valueError)
  if (!first) return `invalid ${error.type}`
  const where = first.path
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
  // A Text's message is about its length or form; a value that is no string at all is told so instead.
  const notText = (first.schema as { [Kind]?: unknown })[Kind] === 'Text' && first.value !== undefined && typeof first.value !== 'string'
  const message = notText
    ? `must be a string, not ${jsonType(first.value)}`
    : ((first.schema as { error?: unknown })?.error ?? first.message)
  return `${error.type}${where}: ${String(message)}`
}

/**
 * A union that failed says only "Expected union value"; unless it carries its own message, the error of the branch
 * that got furthest into the value names the field — `tools: [{ type: 'web_search' }]` against a nullable list of
 * function tools is wrong at tools[0].type, not at tools.
 */
function specific(error: ValueError): ValueError {
  if ((error.schema as { error?: unknown }).error !== undefined || !error.errors?.length) return error
  let best: ValueError | undefined
  for (const branch of error.errors) {
    const first = branch.First()
    if (!first) continue
    const candidate = specific(first)
    // The deepest error wins; at equal depth, not the null branch of a nullable field ("Expected null" helps no one).
    if (!best || candidate.path.length > best.path.length || (candidate.path.length === best.path.length && isNull(best))) best = candidate
  }
  return best ?? error
}

const isNull = (error: ValueError) => (error.schema as { type?: unknown }).type === 'null'

const Kind = Symbol.for('TypeBox.Kind')
const jsonType = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`
