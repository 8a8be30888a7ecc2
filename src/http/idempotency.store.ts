// Idempotency-Key records in Postgres, so a key holds across every process sharing the database: claim a key
// for a request, complete it with the response, release it when nothing should be remembered, sweep old ones.
import { and, eq, isNull, lt, lte } from 'drizzle-orm'
import { idempotencyKeys } from '../../db/schema'
import type { Deps } from '../deps'

/** How long a finished request is replayed (Stripe's 24 hours). */
export const KEEP_MS = 24 * 60 * 60 * 1000
/** A request still marked running after this long belongs to a process that died: a duplicate takes it over. */
export const ABANDONED_AFTER_MS = 5 * 60 * 1000

export interface KeyRequest {
  userId: string
  key: string
  method: string
  path: string
  fingerprint: string
}

export interface Claim extends KeyRequest {
  lockedAt: Date
}

export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: string
}

export type ClaimResult =
  | { kind: 'claimed'; claim: Claim }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch'; message: string }
  | { kind: 'running' }

const byKey = (r: { userId: string; key: string }) => and(eq(idempotencyKeys.user_id, r.userId), eq(idempotencyKeys.key, r.key))

/** One attempt to own `request.key`: claimed (run the request), a response to replay, a mismatch, or still running. */
export async function claimKey(deps: Deps, request: KeyRequest): Promise<ClaimResult> {
  for (;;) {
    const now = deps.clock.now()
    const inserted = await deps.db
      .insert(idempotencyKeys)
      .values({
        user_id: request.userId,
        key: request.key,
        method: request.method,
        path: request.path,
        fingerprint: request.fingerprint,
        locked_at: now,
        created_at: now,
        expires_at: new Date(now.getTime() + KEEP_MS),
      })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key })
    if (inserted.length) return { kind: 'claimed', claim: { ...request, lockedAt: now } }
    const [row] = await deps.db.select().from(idempotencyKeys).where(byKey(request))
    if (!row) continue // released between the insert and the read: try again
    if (row.expires_at <= now) {
      await deps.db.delete(idempotencyKeys).where(and(byKey(request), lte(idempotencyKeys.expires_at, now)))
      continue
    }
    if (row.method !== request.method || row.path !== request.path) {
      return {
        kind: 'mismatch',
        message: `Idempotency-Key "${request.key}" was already used for ${row.method} ${row.path}; use a new key for ${request.method} ${request.path}`,
      }
    }
    if (row.fingerprint !== request.fingerprint) {
      return {
        kind: 'mismatch',
        message: `Idempotency-Key "${request.key}" was already used with a different request body; use a new key for a different request`,
      }
    }
    if (row.status !== null) return { kind: 'replay', response: { status: row.status, headers: row.headers ?? {}, body: row.body ?? '' } }
    if (row.locked_at.getTime() < now.getTime() - ABANDONED_AFTER_MS) {
      const taken = await deps.db
        .update(idempotencyKeys)
        .set({ locked_at: now })
        .where(and(byKey(request), eq(idempotencyKeys.locked_at, row.locked_at), isNull(idempotencyKeys.status)))
        .returning({ key: idempotencyKeys.key })
      if (taken.length) return { kind: 'claimed', claim: { ...request, lockedAt: now } }
      continue
    }
    return { kind: 'running' }
  }
}

const ownedBy = (claim: Claim) => and(byKey(claim), eq(idempotencyKeys.locked_at, claim.lockedAt), isNull(idempotencyKeys.status))

/** Remembers the response of a claimed request, to be replayed until the record expires. */
export async function completeKey(deps: Deps, claim: Claim, response: StoredResponse): Promise<void> {
  await deps.db.update(idempotencyKeys).set(response).where(ownedBy(claim))
}

/** Forgets a claimed request (a 5xx, a refusal before any work): a retry with the same key runs again. */
export async function releaseKey(deps: Deps, claim: Claim): Promise<void> {
  await deps.db.delete(idempotencyKeys).where(ownedBy(claim))
}

/** Deletes expired records (the maintenance tick); answers how many. */
export async function sweepIdempotencyKeys(deps: Deps): Promise<number> {
  const swept = await deps.db
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.expires_at, deps.clock.now()))
    .returning({ key: idempotencyKeys.key })
  return swept.length
}
