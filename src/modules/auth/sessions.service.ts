// Browser sessions, as the Lucia guide teaches: a random token in the cookie, only its SHA-256 stored,
// sliding expiry (renewed when less than half its life is left), deleted on sign-out.
import { eq, sql } from 'drizzle-orm'
import { sessions, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { accountPlan } from '../../plans'
import { settingsOf, type SettingsDto } from '../account/settings.model'
import { lookupAndCount } from '../usage/usage.service'
import type { SessionUser } from './session-user'

export const SESSION_COOKIE = 'session'
const DAY = 86_400_000

export type { SessionUser } from './session-user'

export async function createSession(deps: Deps, userId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken()
  const expiresAt = new Date(deps.clock.now().getTime() + deps.config.sessionTtlDays * DAY)
  await deps.db.insert(sessions).values({ id: sha256Hex(token), user_id: userId, expires_at: expiresAt, created_at: deps.clock.now() })
  return { token, expiresAt }
}

export interface ValidSession {
  user: SessionUser
  sessionId: string
  expiresAt: Date
  renewed: boolean
  /** This month's API calls including this one, when `countCall` asked to count it; else null. */
  apiCalls: number | null
  settings: SettingsDto
}

/** The session's user, or null when the token is unknown or expired; with `countCall`, the request counted for usage
 * in the same statement. `renewed` is set when the expiry slid. */
export async function validateSession(deps: Deps, token: string, { countCall = false } = {}): Promise<ValidSession | null> {
  const id = sha256Hex(token)
  const now = deps.clock.now()
  const row = await lookupAndCount<{ id: string; email: string; name: string | null; plan: string; expires_at: Date | string }>(
    deps,
    sql`select ${users.id} as id, ${users.email} as email, ${users.name} as name, ${accountPlan(deps.config)} as plan, ${sessions.expires_at} as expires_at
        from ${sessions} inner join ${users} on ${users.id} = ${sessions.user_id}
        where ${sessions.id} = ${id} and ${sessions.expires_at} > ${now.toISOString()}::timestamptz`,
    countCall,
  )
  if (!row) return null
  const found = {
    user: { id: row.id, email: row.email, name: row.name, plan: row.plan },
    sessionId: id,
    apiCalls: row.api_calls,
    settings: settingsOf(row.settings as never),
  }
  const ttl = deps.config.sessionTtlDays * DAY
  const expiry = new Date(row.expires_at)
  if (expiry.getTime() - now.getTime() >= ttl / 2) return { ...found, expiresAt: expiry, renewed: false }
  const expiresAt = new Date(now.getTime() + ttl)
  await deps.db.update(sessions).set({ expires_at: expiresAt }).where(eq(sessions.id, id))
  return { ...found, expiresAt, renewed: true }
}

export async function invalidateSession(deps: Deps, token: string): Promise<void> {
  await deps.db.delete(sessions).where(eq(sessions.id, sha256Hex(token)))
}

export function sessionCookie(deps: Deps, token: string, expiresAt: Date | null): string {
  const base = new URL(deps.config.baseUrl)
  const plainLocalhost = base.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(base.hostname)
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax']
  if (!plainLocalhost) parts.push('Secure')
  parts.push(expiresAt ? `Expires=${expiresAt.toUTCString()}` : 'Max-Age=0')
  return parts.join('; ')
}

export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null
  }
  return null
}
