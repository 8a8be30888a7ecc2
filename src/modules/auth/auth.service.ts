// Accounts: sign-up (with a default workspace and settings), sign-in by password, the public user view.
import { eq, getTableColumns } from 'drizzle-orm'
import { settings, users, workspaces } from '../../../db/schema'
import type { Deps } from '../../deps'
import { conflict, unauthorized } from '../../http/errors'
import { hashPassword, verifyPassword } from '../../lib/passwords'
import { accountPlan, asPlan } from '../../plans'
import type { Plan } from '../../config'
import { assertPasswordAllowed } from './password-rules'
import { createSession } from './sessions.service'
import { throttleSignIn } from './sign-in-throttle'

export interface UserDto {
  id: string
  email: string
  name: string | null
  plan: Plan
  avatar_url: string | null
  created_at: string
}

type UserRow = typeof users.$inferSelect

/** users' columns, with the plan the account is on now rather than the one stored at sign-up. */
const withPlan = (deps: Deps) => ({ ...getTableColumns(users), plan: accountPlan(deps.config) })

export function toUserDto(
  deps: Deps,
  user: Pick<UserRow, 'id' | 'email' | 'name' | 'plan' | 'avatar_type' | 'created_at' | 'updated_at'>,
): UserDto {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    plan: asPlan(user.plan),
    avatar_url: user.avatar_type ? `${deps.config.baseUrl}/api/avatar/${user.id}?v=${user.updated_at.getTime()}` : null,
    created_at: user.created_at.toISOString(),
  }
}

/** Creates the account, its default workspace and its settings in one transaction. */
/** `verified`: the address is proven already (a provider's verified email). */
export async function createAccount(
  deps: Deps,
  input: { email: string; password: string | null; name?: string | null; verified?: boolean },
): Promise<UserRow> {
  const email = input.email.trim().toLowerCase()
  if (input.password !== null) assertPasswordAllowed(input.password, email)
  const passwordHash = input.password === null ? null : await hashPassword(input.password)
  const now = deps.clock.now()
  return deps.db.transaction(async (tx) => {
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email))
    if (existing) throw conflict('an account with this email already exists')
    // Another sign-up for the same email may be in flight, unseen above: its commit makes this insert do nothing.
    const [user] = await tx
      .insert(users)
      .values({
        id: deps.ids.next(),
        email,
        name: input.name?.trim() || null,
        password_hash: passwordHash,
        email_verified_at: input.verified ? now : null,
        plan: deps.config.defaultPlan,
        created_at: now,
        updated_at: now,
      })
      .onConflictDoNothing({ target: users.email })
      .returning()
    if (!user) throw conflict('an account with this email already exists')
    const [workspace] = await tx
      .insert(workspaces)
      .values({ id: deps.ids.next(), user_id: user.id, name: 'Default', created_at: now, updated_at: now })
      .returning()
    await tx.insert(settings).values({ user_id: user.id, default_workspace_id: workspace!.id, updated_at: now })
    return user
  })
}

export async function signUp(deps: Deps, input: { email: string; password: string; name?: string }, userAgent?: string | null) {
  const user = await createAccount(deps, input)
  return { user, session: await createSession(deps, user.id, userAgent) }
}

/**
 * Wrong password and unknown email answer the same 401, after the same hashing work; repeated failures for the
 * email or from the address answer 429 before any (sign-in-throttle.ts).
 */
export async function signIn(deps: Deps, input: { email: string; password: string }, address: string, userAgent?: string | null) {
  const email = input.email.trim().toLowerCase()
  const [user] = await deps.db.select(withPlan(deps)).from(users).where(eq(users.email, email))
  const ok = await throttleSignIn(deps, { email, address }, () => verifyPassword(input.password, user?.password_hash ?? null))
  if (!ok || !user) throw unauthorized('wrong email or password')
  return { user, session: await createSession(deps, user.id, userAgent) }
}

export async function getUser(deps: Deps, id: string): Promise<UserRow> {
  const [user] = await deps.db.select(withPlan(deps)).from(users).where(eq(users.id, id))
  if (!user) throw unauthorized()
  return user
}
