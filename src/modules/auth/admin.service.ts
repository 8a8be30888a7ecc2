// What a self-hoster's administrator does for a person when the server sends no mail (`bun run admin`): set a new
// password, vouch for an address, end every session. Plain functions of the database, like every service.
import { eq } from 'drizzle-orm'
import { sessions, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { notFound } from '../../http/errors'
import { randomBase62 } from '../../lib/crypto'
import { hashPassword } from '../../lib/passwords'

type AdminDeps = Pick<Deps, 'db' | 'clock'>

async function accountId(deps: AdminDeps, email: string): Promise<string> {
  const [row] = await deps.db.select({ id: users.id }).from(users).where(eq(users.email, email.trim().toLowerCase()))
  if (!row) throw notFound(`no account has the email ${email.trim().toLowerCase()}`)
  return row.id
}

/** A new random password (returned once, to hand to the person), and every session of the account ends. */
export async function adminResetPassword(deps: AdminDeps, email: string): Promise<string> {
  const id = await accountId(deps, email)
  const password = randomBase62(20)
  const hash = await hashPassword(password)
  await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ password_hash: hash, updated_at: deps.clock.now() }).where(eq(users.id, id))
    await tx.delete(sessions).where(eq(sessions.user_id, id))
  })
  return password
}

/** The administrator vouches that the person receives mail at the address (a provider may then be linked by it). */
export async function adminVerifyEmail(deps: AdminDeps, email: string): Promise<void> {
  const id = await accountId(deps, email)
  await deps.db.update(users).set({ email_verified_at: deps.clock.now() }).where(eq(users.id, id))
}

/** Every session of the account ends (keys stay: they are revoked in the dashboard). Returns how many ended. */
export async function adminSignOut(deps: AdminDeps, email: string): Promise<number> {
  const id = await accountId(deps, email)
  return (await deps.db.delete(sessions).where(eq(sessions.user_id, id)).returning({ id: sessions.id })).length
}
