// Browser sessions, as the Lucia guide teaches: a random token in the cookie, only its SHA-256 stored,
// sliding expiry (renewed when less than half its life is left), deleted on sign-out.
import { and, desc, eq, gt, sql } from 'drizzle-orm'
import { sessions, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { accountPlan } from '../../plans'
import { settingsOf, type SettingsDto } from '../account/settings.model'
import { lookupAndCount } from '../usage/usage.service'
import { PERSON, type SessionUser } from './session-user'

export const SESSION_COOKIE = 'session'
const DAY = 86_400_000

export type { SessionUser } from './session-user'

/** `userAgent`: the browser's User-Agent, kept (trimmed) so the person can tell their sessions apart. */
export async function createSession(deps: Deps, userId: string, userAgent?: string | null): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken()
  const expiresAt = new Date(deps.clock.now().getTime() + deps.config.sessionTtlDays * DAY)
  await deps.db.insert(sessions).values({
    id: sha256Hex(token),
    user_id: userId,
    expires_at: expiresAt,
    user_agent: userAgent?.slice(0, 300) || null,
    created_at: deps.clock.now(),
  })
  return { token, expiresAt }
}

export interface SessionDto {
  id: string
  created_at: string
  expires_at: string
  user_agent: string | null
  /** The session this request came with. */
  current: boolean
}

/** The account's live sessions, newest first; `currentId` marks the caller's own. */
export async function listSessions(deps: Deps, userId: string, currentId: string): Promise<SessionDto[]> {
  const rows = await deps.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.user_id, userId), gt(sessions.expires_at, deps.clock.now())))
    .orderBy(desc(sessions.created_at))
  return rows.map((row) => ({
    id: row.id,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    user_agent: row.user_agent,
    current: row.id === currentId,
  }))
}

/** Ends one session of the account; false when it has none by that id (another account's reads the same). */
export async function endSession(deps: Deps, userId: string, id: string): Promise<boolean> {
  const ended = await deps.db
    .delete(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.user_id, userId)))
    .returning({ id: sessions.id })
  return ended.length > 0
}

/** Sign out everywhere: every session of the account ends, this one included. */
export async function endAllSessions(deps: Deps, userId: string): Promise<void> {
  await deps.db.delete(sessions).where(eq(sessions.user_id, userId))
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
    user: { id: row.id, email: row.email, name: row.name, plan: row.plan, actor: PERSON },
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
  // Secure exactly when the service is reached over https: over plain http (a LAN address) a browser drops a Secure
  // cookie and the dashboard would silently stay signed out.
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax']
  if (new URL(deps.config.baseUrl).protocol === 'https:') parts.push('Secure')
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
