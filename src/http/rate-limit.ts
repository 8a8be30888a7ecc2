// Per-minute rate limits held in Postgres (one atomic upsert per request), so they hold across any number of
// server processes. Answers 429 with Retry-After, and RateLimit-* headers on every limited response.
import { lt, sql } from 'drizzle-orm'
import { rateLimitCounters } from '../../db/schema'
import type { Deps } from '../deps'
import { limitsOf, type Limit } from '../plans'
import { AppError } from './errors'
import type { Principal } from './auth'

const WINDOW_MS = 60_000

export type RateBucket = Extract<Limit, 'search_per_min' | 'ask_per_min' | 'embeddings_per_min'>

/**
 * Counts one request of `bucket` for the principal — per user, or per key when `perKey` — and throws 429
 * past the plan's limit. `headers` receives RateLimit-Limit/Remaining/Reset either way.
 */
export async function enforceRateLimit(
  deps: Deps,
  principal: Principal,
  bucket: RateBucket,
  headers: Record<string, string | number>,
  perKey = false,
): Promise<void> {
  const limit = limitsOf(deps, principal.user.plan)[bucket]
  // A plan without this rate (set to `unlimited`): nothing to count.
  if (limit === null) return
  const now = deps.clock.now().getTime()
  const windowStart = new Date(now - (now % WINDOW_MS))
  const key = `${bucket}:${perKey && principal.via === 'key' ? `key:${principal.credentialId}` : `user:${principal.user.id}`}`
  const [row] = await deps.db
    .insert(rateLimitCounters)
    .values({ key, window_start: windowStart, user_id: principal.user.id, count: 1 })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.window_start],
      set: { count: sql`${rateLimitCounters.count} + 1` },
    })
    .returning({ count: rateLimitCounters.count })
  const count = row?.count ?? 1
  const reset = Math.max(1, Math.ceil((windowStart.getTime() + WINDOW_MS - now) / 1000))
  headers['ratelimit-limit'] = String(limit)
  headers['ratelimit-remaining'] = String(Math.max(0, limit - count))
  headers['ratelimit-reset'] = String(reset)
  // Old windows are swept now and then by whoever is counting; nothing else reads them.
  if (count === 1 && Math.random() < 0.01) {
    await deps.db.delete(rateLimitCounters).where(lt(rateLimitCounters.window_start, new Date(now - 10 * WINDOW_MS)))
  }
  if (count > limit) {
    throw new AppError(
      429,
      `rate limit of ${limit} ${bucket.replace('_per_min', '')} requests per minute reached on the ${principal.user.plan} plan; retry in ${reset} s`,
      {
        'retry-after': String(reset),
      },
    )
  }
}
