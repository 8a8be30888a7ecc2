// The credentials a person controls: the sign-in email (changed only with the current password, verified by mail
// when mail is configured), the password (changed with the current one, or reset by a mailed link), and proof of
// the address. Every rule here takes a person signed in: the key-scopes table keeps keys out of these routes.
import { and, eq, ne } from 'drizzle-orm'
import { sessions, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { badRequest, conflict, forbidden, unavailable } from '../../http/errors'
import { hashPassword, verifyPassword } from '../../lib/passwords'
import type { Principal } from './session-user'
import { canMail, consumeLink, dropLinks, mailLink, peekLink } from './email-links.service'

/** An account without a password (GitHub or Google only) proves it is the person by a sign-in this recent. */
export const RECENT_SIGN_IN_MS = 10 * 60_000

type UserRow = typeof users.$inferSelect

async function accountOf(deps: Deps, userId: string): Promise<UserRow> {
  const [row] = await deps.db.select().from(users).where(eq(users.id, userId))
  if (!row) throw badRequest('account not found')
  return row
}

/** The person proves they are who signed in: the current password, or, without one, a sign-in of the last minutes. */
async function assertReauthenticated(deps: Deps, principal: Principal, account: UserRow, currentPassword: string | undefined) {
  if (principal.via !== 'session') throw forbidden('this takes a person signed in (the dashboard): an API key cannot change credentials')
  if (account.password_hash) {
    if (!currentPassword) throw badRequest('current_password is required to change the sign-in email or password')
    if (!(await verifyPassword(currentPassword, account.password_hash))) throw forbidden('current_password is wrong')
    return
  }
  const [session] = await deps.db.select({ created_at: sessions.created_at }).from(sessions).where(eq(sessions.id, principal.credentialId))
  if (!session || deps.clock.now().getTime() - session.created_at.getTime() > RECENT_SIGN_IN_MS) {
    throw forbidden('sign in again (within the last 10 minutes) to change the sign-in email of an account without a password')
  }
}

async function assertEmailFree(deps: Deps, email: string, userId: string) {
  const [taken] = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.email, email), ne(users.id, userId)))
  if (taken) throw conflict('email is already used by another account')
}

const verifyLink = (deps: Deps) => (token: string) => `${deps.config.baseUrl}/api/auth/verify-email?token=${token}`

/** Mails `email` a link that proves the person receives mail there (and makes it the sign-in email if it differs). */
export function sendVerification(deps: Deps, userId: string, email: string): Promise<boolean> {
  return mailLink(deps, {
    userId,
    email,
    purpose: 'verify-email',
    link: verifyLink(deps),
    subject: 'Confirm your email address',
    text: (link) =>
      `Open this link to confirm that ${email} is yours and use it to sign in:\n\n${link}\n\n` +
      'It works once, for 24 hours. If you did not ask for this, ignore this mail: nothing changes.',
  })
}

/**
 * Changes the sign-in email. With mail configured the change waits for the link mailed to the new address (`pending`);
 * without, it is made at once and the address stays unverified — so it can never be linked to a GitHub or Google
 * sign-in until an administrator verifies it.
 */
export async function changeEmail(
  deps: Deps,
  principal: Principal,
  input: { email: string; current_password?: string },
): Promise<{ pending: boolean }> {
  const account = await accountOf(deps, principal.user.id)
  const email = input.email.trim().toLowerCase()
  if (email === account.email) return { pending: false }
  await assertReauthenticated(deps, principal, account, input.current_password)
  await assertEmailFree(deps, email, account.id)
  if (canMail(deps)) {
    if (!(await sendVerification(deps, account.id, email)))
      throw unavailable('the confirmation mail could not be sent (or too many were sent this hour): try again later')
    return { pending: true }
  }
  await setEmail(deps, account.id, email, null)
  return { pending: false }
}

async function setEmail(deps: Deps, userId: string, email: string, verifiedAt: Date | null) {
  await deps.db
    .update(users)
    .set({ email, email_verified_at: verifiedAt, updated_at: deps.clock.now() })
    .where(eq(users.id, userId))
    .catch((error: unknown) => {
      // Two accounts taking the same address at the same moment: the unique index decides, the loser gets 409.
      for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
        if (e.code === '23505') throw conflict('email is already used by another account')
      throw error
    })
}

/** A verification link was opened: the address is the person's; it becomes the sign-in email if it was a change. */
export async function verifyEmail(deps: Deps, token: string): Promise<void> {
  const { userId, email } = await consumeLink(deps, 'verify-email', token)
  await assertEmailFree(deps, email, userId)
  await setEmail(deps, userId, email, deps.clock.now())
  // Links still out for the address the account had (or another change) would move the sign-in email again.
  await dropLinks(deps, userId, 'verify-email')
}

/** Sets a new password after checking the current one; every other session of the account ends. */
export async function changePassword(
  deps: Deps,
  principal: Principal,
  input: { current_password?: string; new_password: string },
  problemOf: (password: string, email: string) => string | null,
): Promise<void> {
  const account = await accountOf(deps, principal.user.id)
  await assertReauthenticated(deps, principal, account, input.current_password)
  const problem = problemOf(input.new_password, account.email)
  if (problem) throw badRequest(problem)
  const hash = await hashPassword(input.new_password)
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ password_hash: hash, updated_at: deps.clock.now() }).where(eq(users.id, account.id))
    await tx.delete(sessions).where(and(eq(sessions.user_id, account.id), ne(sessions.id, principal.credentialId)))
  })
}

/**
 * Mails a reset link when an account has this address. The answer is the same either way (no way to learn who has
 * an account); 503 when this server cannot send mail, naming the administrator's command instead.
 */
export async function requestPasswordReset(deps: Deps, emailInput: string): Promise<void> {
  if (!canMail(deps))
    throw unavailable(
      'password reset by email is not configured on this server (SMTP_URL): ask its administrator to run `bun run admin reset-password <email>`',
    )
  const email = emailInput.trim().toLowerCase()
  const [account] = await deps.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  if (!account) return
  await mailLink(deps, {
    userId: account.id,
    email,
    purpose: 'reset-password',
    link: (token) => `${deps.config.baseUrl}/app/reset-password#token=${token}`,
    subject: 'Reset your password',
    text: (link) =>
      `Someone (we hope you) asked to reset the password of the account ${email}. Choose a new one here:\n\n${link}\n\n` +
      'The link works once, for one hour. If you did not ask for this, ignore this mail: your password stays as it is.',
  })
}

/** A reset link was used: the new password is set, the address counts as verified (the mail reached it), and every
 * session of the account ends, so whoever knew the old password is signed out. */
export async function resetPassword(
  deps: Deps,
  input: { token: string; new_password: string },
  problemOf: (password: string, email: string) => string | null,
): Promise<void> {
  // A password the rules refuse leaves the link usable: the person tries another without a new mail.
  const peeked = await peekLink(deps, 'reset-password', input.token)
  if (peeked) {
    const problem = problemOf(input.new_password, (await accountOf(deps, peeked.userId)).email)
    if (problem) throw badRequest(problem)
  }
  const { userId, email } = await consumeLink(deps, 'reset-password', input.token)
  const account = await accountOf(deps, userId)
  const hash = await hashPassword(input.new_password)
  const now = deps.clock.now()
  await deps.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({
        password_hash: hash,
        updated_at: now,
        ...(account.email === email && { email_verified_at: account.email_verified_at ?? now }),
      })
      .where(eq(users.id, userId))
    await tx.delete(sessions).where(eq(sessions.user_id, userId))
  })
  await dropLinks(deps, userId, 'reset-password')
}
