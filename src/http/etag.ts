// ETags and conditional requests. A single object's ETag is a strong validator: a hash of its JSON
// representation, so it changes whenever anything the client sees changes (a workspace's document_count
// too). `If-None-Match` on a GET answers 304 (any route that sets an ETag gets it: see `conditionalGet`);
// `If-Match` on PATCH and DELETE is checked against the current representation in the same transaction
// as the write, under a lock, so of two editors holding the same ETag exactly one wins and the other gets 412.
import { Elysia } from 'elysia'
import type { Tx } from '../../db/client'
import type { Deps } from '../deps'
import { lockUser } from '../lib/locks'
import { sha256 } from '@oslojs/crypto/sha2'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { AppError } from './errors'

/** The strong ETag of a representation. */
export function etagOf(value: unknown): string {
  return `"${encodeBase64urlNoPadding(sha256(new TextEncoder().encode(JSON.stringify(value)))).slice(0, 27)}"`
}

/** Sets the ETag of `value` on the response and returns `value` (for a handler's last line). */
export function tagged<T>(set: { headers: Record<string, unknown> }, value: T): T {
  set.headers.etag = etagOf(value)
  return value
}

/** The opaque part of an entity-tag, without `W/` and without the suffix compression adds (`"abc-gzip"`). */
const opaque = (tag: string) => tag.replace(/^W\//, '').replace(/-(gzip|br)"$/, '"')
const listed = (header: string) =>
  header
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean)

/** RFC 9110 §13.1.1: strong comparison — a weak tag never matches; `*` matches any current representation. */
export function matchesIfMatch(header: string, current: string): boolean {
  return listed(header).some((tag) => tag === '*' || (!tag.startsWith('W/') && opaque(tag) === current))
}

/** RFC 9110 §13.1.2: weak comparison. */
export function matchesIfNoneMatch(header: string, current: string): boolean {
  return listed(header).some((tag) => tag === '*' || opaque(tag) === opaque(current))
}

/**
 * Runs `write` under the request's `If-Match` precondition: with none, as is; with one, in a transaction that
 * locks the resource (per user and path), reads its current representation with `read`, answers 412 when
 * the ETag does not match, and writes. `read` and `write` receive deps whose db is that transaction.
 */
export async function ifMatched<T>(
  deps: Deps,
  userId: string,
  request: Request,
  read: (deps: Deps) => Promise<unknown>,
  write: (deps: Deps) => Promise<T>,
): Promise<T> {
  const header = request.headers.get('if-match')
  if (header === null) return write(deps)
  return deps.db.transaction(async (tx: Tx) => {
    await lockUser(tx, userId, `if-match:${new URL(request.url).pathname}`)
    const inTx = { ...deps, db: tx as Deps['db'] }
    const current = etagOf(await read(inTx))
    if (!matchesIfMatch(header, current)) {
      throw new AppError(
        412,
        `If-Match ${header} does not match the current version (ETag ${current}): it changed since you read it; fetch it again and reapply your change`,
        { etag: current },
      )
    }
    return write(inTx)
  })
}

/** If-None-Match on GET and HEAD: a response whose ETag matches becomes a 304 without a body. */
export function conditionalGet() {
  return new Elysia({ name: 'conditional-get' }).wrap((fetch) => async (request: Request): Promise<Response> => {
    const response = await (fetch as unknown as (request: Request) => Response | Promise<Response>)(request)
    if (request.method !== 'GET' && request.method !== 'HEAD') return response
    const header = request.headers.get('if-none-match')
    const etag = response.headers.get('etag')
    if (header === null || etag === null || response.status !== 200 || !matchesIfNoneMatch(header, etag)) return response
    void response.body?.cancel()
    const headers = new Headers(response.headers)
    headers.delete('content-type')
    headers.delete('content-length')
    return new Response(null, { status: 304, headers })
  })
}
