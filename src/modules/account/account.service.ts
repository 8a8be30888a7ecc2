// Deleting an account: every key and session stops working at once, and every row of the user goes — the
// foreign keys cascade from users to everything a user owns (documents, chunks, postings, links, jobs,
// conversations, events, counters, connectors, tokens), so one delete in one transaction leaves nothing behind.
import { eq } from 'drizzle-orm'
import { users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { notFound } from '../../http/errors'
import type { SessionUser } from '../auth/sessions.service'

export async function deleteAccount(deps: Deps, user: SessionUser): Promise<void> {
  // Connectors are disconnected at their providers and the subscription is cancelled before the rows go,
  // once those integrations exist (issue 5); today an account has neither.
  const deleted = await deps.db.delete(users).where(eq(users.id, user.id)).returning({ id: users.id })
  if (deleted.length === 0) throw notFound('account not found')
  deps.log.info('account deleted', { user_id: user.id })
}
