// One error shape for the whole API: services throw these; `errorHandler` maps every error to `{ error }`.
import { Elysia, ValidationError } from 'elysia'
import { DatabaseCrashedError } from '../../db/pglite-guard'
import type { Logger } from '../log'
import { drainBody } from './drain'
import { bodyLimitFor } from './route-body-limits'
import { requestIdFor } from './request-id'

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new AppError(400, message)
export const unauthorized = (message = 'missing or invalid credentials') => new AppError(401, message)
export const paymentRequired = (message: string) => new AppError(402, message)
export const forbidden = (message: string) => new AppError(403, message)
export const notFound = (message: string) => new AppError(404, message)
export const conflict = (message: string) => new AppError(409, message)
export const payloadTooLarge = (message: string) => new AppError(413, message)
export const unavailable = (message: string) => new AppError(503, message)

/** Request ids, kept per request so the error mapper can log them even before routing succeeds. */
const requestIds = new WeakMap<Request, string>()
export const requestIdOf = (request: Request) => requestIds.get(request) ?? 'unknown'

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
    .onError({ as: 'global' }, ({ code, error: thrown, set, request }) => {
      let error: unknown = thrown
      set.headers['content-type'] = 'application/json'
      // An AppError thrown while parsing (the body limit) arrives wrapped in Elysia's parse error.
      if (code === 'PARSE' && (error as Error).cause instanceof AppError) error = (error as Error).cause as AppError
      if (error instanceof AppError) {
        Object.assign(set.headers, error.headers)
        set.status = error.status
        return { error: error.message }
      }
      // The query builder wraps the driver's error; the crash is the cause.
      const crash = error instanceof DatabaseCrashedError ? error : (error as Error)?.cause instanceof DatabaseCrashedError ? (error as Error).cause : null
      if (crash) {
        set.status = 503
        return { error: 'the database is unavailable: the service must be restarted' }
      }
      if (accountGone(error)) {
        set.status = 401
        return { error: 'the account was deleted' }
      }
      if (error instanceof ValidationError && error.type !== 'response') {
        set.status = 400
        return { error: describeValidation(error) }
      }
      if (code === 'NOT_FOUND') {
        set.status = 404
        return { error: `no route for ${request.method} ${new URL(request.url).pathname}` }
      }
      if (code === 'PARSE') {
        set.status = 400
        return { error: 'request body is not valid JSON (or does not match its content-type)' }
      }
      if (code === 'INVALID_COOKIE_SIGNATURE') {
        set.status = 401
        return { error: 'invalid session cookie' }
      }
      set.status = 500
      log.error('unhandled error', { request_id: requestIdOf(request), method: request.method, path: new URL(request.url).pathname, error: String((error as Error)?.stack ?? error), cause: String((error as Error)?.cause ?? '') })
      return { error: 'internal error' }
    })
}

/** A write that references a user who is gone: the account was deleted (with its keys and sessions) while this
 * request, authenticated just before, was in flight. Only a server running requests side by side shows it. */
function accountGone(error: unknown): boolean {
  for (let e = error as { code?: string; detail?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23503' && /is not present in table "users"/.test(e.detail ?? '')) return true
  }
  return false
}

/** "body.learnings[2].title: Expected string" — names the field, as DESIGN.md §5 asks. */
function describeValidation(error: ValidationError): string {
  const first = error.valueError
  if (!first) return `invalid ${error.type}`
  const where = first.path
    .split('/')
    .filter(Boolean)
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
    .join('')
  const message = (first.schema as { error?: unknown })?.error ?? first.message
  return `${error.type}${where}: ${String(message)}`
}
