// Links mailed to a person: one to verify an address (at sign-up, or a new sign-in email), one to reset a password.
// Each is a random token of which only the SHA-256 is stored, single use, short-lived; at most a few are mailed to
// an account an hour, so nobody can make the service flood an inbox.
import { and, count, eq, gt, lt } from 'drizzle-orm'
import { emailTokens } from '../../../db/schema'
import type { Deps } from '../../deps'
import { badRequest } from '../../http/errors'
import { randomToken, sha256Hex } from '../../lib/crypto'
import { sendMail } from '../../lib/mail'

export type EmailPurpose = 'verify-email' | 'reset-password'

const HOUR_MS = 3_600_000
const TTL_MS: Record<EmailPurpose, number> = { 'verify-email': 24 * HOUR_MS, 'reset-password': HOUR_MS }
/** Mails of one purpose to one account in an hour; past it, requests are answered the same but nothing is sent. */
export const MAILS_PER_HOUR = 3

/** Whether this service can send mail (SMTP_URL): without it, addresses stay unverified unless an admin verifies them. */
export const canMail = (deps: Deps) => deps.config.mail !== null

/** Mails `email` a link carrying a new token; false when rate-limited or the mail server failed. */
export async function mailLink(
  deps: Deps,
  input: {
    userId: string
    email: string
    purpose: EmailPurpose
    link: (token: string) => string
    subject: string
    text: (link: string) => string
  },
): Promise<boolean> {
  if (!canMail(deps)) return false
  const now = deps.clock.now()
  await deps.db.delete(emailTokens).where(lt(emailTokens.expires_at, now))
  const [{ n } = { n: 0 }] = await deps.db
    .select({ n: count() })
    .from(emailTokens)
    .where(
      and(
        eq(emailTokens.user_id, input.userId),
        eq(emailTokens.purpose, input.purpose),
        gt(emailTokens.created_at, new Date(now.getTime() - HOUR_MS)),
      ),
    )
  if (n >= MAILS_PER_HOUR) return false
  const token = randomToken()
  await deps.db.insert(emailTokens).values({
    id: sha256Hex(token),
    user_id: input.userId,
    purpose: input.purpose,
    email: input.email,
    expires_at: new Date(now.getTime() + TTL_MS[input.purpose]),
    created_at: now,
  })
  const link = input.link(token)
  return sendMail(deps.config, deps.log, { to: input.email, subject: input.subject, text: input.text(link) })
}

/** Takes a token (single use: deleted) or throws 400 naming why; a used or unknown token reads the same. */
export async function consumeLink(deps: Deps, purpose: EmailPurpose, token: string): Promise<{ userId: string; email: string }> {
  const [row] = await deps.db
    .delete(emailTokens)
    .where(and(eq(emailTokens.id, sha256Hex(token)), eq(emailTokens.purpose, purpose)))
    .returning()
  if (!row || row.expires_at.getTime() <= deps.clock.now().getTime()) {
    throw badRequest(
      `this ${purpose === 'reset-password' ? 'password reset' : 'verification'} link is unknown, used or expired: ask for a new one`,
    )
  }
  return { userId: row.user_id, email: row.email }
}

/** The link's account and address without spending it (to check a new password before the link is used). */
export async function peekLink(deps: Deps, purpose: EmailPurpose, token: string): Promise<{ userId: string; email: string } | null> {
  const [row] = await deps.db
    .select()
    .from(emailTokens)
    .where(and(eq(emailTokens.id, sha256Hex(token)), eq(emailTokens.purpose, purpose)))
  if (!row || row.expires_at.getTime() <= deps.clock.now().getTime()) return null
  return { userId: row.user_id, email: row.email }
}

/** Every outstanding link of the account for `purpose`: a reset ends them all. */
export async function dropLinks(deps: Deps, userId: string, purpose: EmailPurpose): Promise<void> {
  await deps.db.delete(emailTokens).where(and(eq(emailTokens.user_id, userId), eq(emailTokens.purpose, purpose)))
}
