// Password guessing throttled: failed sign-ins counted per account (the normalised email, known or not, so a lock
// says nothing of who has an account) and per client address, in Postgres so every process sees one count. Past
// a few failures the key is locked for a time that doubles with each further failure; a locked sign-in is
// refused before any password is verified, so it costs no argon2 work either.
import { eq, inArray, lt, sql } from 'drizzle-orm'
import { signInFailures } from '../../../db/schema'
import type { Deps } from '../../deps'
import { AppError } from '../../http/errors'
import { sha256Hex } from '../../lib/crypto'

const MINUTE_MS = 60_000

/** The README's numbers: 5 failures for an email, 20 from an address; locks of 1, 2, 4, 8, then 15 minutes. */
export const SIGN_IN_THROTTLE = {
  accountFailures: 5,
  addressFailures: 20,
  firstLockMs: MINUTE_MS,
  maxLockMs: 15 * MINUTE_MS,
  /** Failures are forgotten once a key has been unlocked and quiet for this long. */
  quietMs: 15 * MINUTE_MS,
}

interface ThrottleKey {
  key: string
  limit: number
  what: string
}

/**
 * Runs `check` (the password verification) unless the email or the address is locked, which answers 429 with
 * Retry-After. The attempt counts as a failure before `check` runs, so guesses sent in parallel cannot all slip
 * in under the limit; a right password takes it back and clears the account's failures, and so does an error
 * (argon2 too busy), which was no guess.
 */
export async function throttleSignIn(deps: Deps, from: { email: string; address: string }, check: () => Promise<boolean>) {
  const keys: ThrottleKey[] = [
    { key: `account:${sha256Hex(from.email)}`, limit: SIGN_IN_THROTTLE.accountFailures, what: 'for this email' },
    { key: `address:${addressBucket(from.address)}`, limit: SIGN_IN_THROTTLE.addressFailures, what: 'from this address' },
  ]
  await countAttempt(deps, keys)
  let ok: boolean
  try {
    ok = await check()
  } catch (error) {
    await takeBack(deps, keys)
    throw error
  }
  if (ok) {
    await deps.db.delete(signInFailures).where(eq(signInFailures.key, keys[0]!.key))
    await takeBack(deps, keys.slice(1))
  }
  return ok
}

/** One transaction, keys locked in a fixed order (account: before address:), so two attempts never deadlock. */
async function countAttempt(deps: Deps, keys: ThrottleKey[]): Promise<void> {
  const now = deps.clock.now()
  const names = keys.map((k) => k.key)
  const retryAfter = await deps.db.transaction(async (tx) => {
    await tx
      .insert(signInFailures)
      .values(names.map((key) => ({ key, failures: 0, last_failure_at: now })))
      .onConflictDoNothing()
    const rows = await tx.select().from(signInFailures).where(inArray(signInFailures.key, names)).orderBy(signInFailures.key).for('update')
    const locks: { what: string; seconds: number }[] = []
    for (const row of rows) {
      const { limit, what } = keys.find((k) => k.key === row.key)!
      const failures = currentFailures(row, limit, now)
      const releaseAt = releaseTime(failures, row.last_failure_at, limit)
      if (failures >= limit && now < releaseAt) locks.push({ what, seconds: Math.ceil((releaseAt.getTime() - now.getTime()) / 1000) })
      row.failures = failures + 1
    }
    if (locks.length > 0) return locks.sort((a, b) => b.seconds - a.seconds)[0]!
    for (const row of rows) {
      await tx.update(signInFailures).set({ failures: row.failures, last_failure_at: now }).where(eq(signInFailures.key, row.key))
    }
    return null
  })
  // Forgotten rows are swept now and then by whoever is signing in; nothing else reads them.
  if (Math.random() < 0.01) {
    const old = new Date(now.getTime() - SIGN_IN_THROTTLE.maxLockMs - SIGN_IN_THROTTLE.quietMs)
    await deps.db.delete(signInFailures).where(lt(signInFailures.last_failure_at, old))
  }
  if (retryAfter) {
    throw new AppError(429, `too many failed sign-ins ${retryAfter.what}; retry in ${retryAfter.seconds} s`, {
      'retry-after': String(retryAfter.seconds),
    })
  }
}

async function takeBack(deps: Deps, keys: ThrottleKey[]): Promise<void> {
  await deps.db
    .update(signInFailures)
    .set({ failures: sql`greatest(${signInFailures.failures} - 1, 0)` })
    .where(
      inArray(
        signInFailures.key,
        keys.map((k) => k.key),
      ),
    )
}

/** The failures still remembered: none once the key's lock (if any) and a quiet window after it have passed. */
function currentFailures(row: { failures: number; last_failure_at: Date }, limit: number, now: Date): number {
  const forgetAt = releaseTime(row.failures, row.last_failure_at, limit).getTime() + SIGN_IN_THROTTLE.quietMs
  return now.getTime() >= forgetAt ? 0 : row.failures
}

/** When a key with `failures` (the last at `last`) may try again: 1 minute at the limit, doubling, at most 15. */
function releaseTime(failures: number, last: Date, limit: number): Date {
  if (failures < limit) return last
  const lock = Math.min(SIGN_IN_THROTTLE.maxLockMs, SIGN_IN_THROTTLE.firstLockMs * 2 ** Math.min(failures - limit, 20))
  return new Date(last.getTime() + lock)
}

/** An IPv6 client usually holds a whole /64, so it is counted as one; an IPv4 address (or `unknown`) as itself. */
export function addressBucket(address: string): string {
  if (!address.includes(':')) return address
  const [head = '', tail] = address.split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
  return `${groups.slice(0, 4).join(':')}::/64`
}
