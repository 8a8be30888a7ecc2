// Deleting an account: every key and session stops working at once, and every row of the user goes — the
// foreign keys cascade from users to everything a user owns (documents, chunks, keyword blocks, links, jobs,
// conversations, events, counters, connectors, tokens), so one delete in one transaction leaves nothing behind.
import { eq } from 'drizzle-orm'
import { users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { notFound } from '../../http/errors'
import type { SessionUser } from '../auth/sessions.service'
import { cancelForDeletion } from '../billing/billing.service'
import { revokeAllConnections } from '../connectors/connections.service'

export async function deleteAccount(deps: Deps, user: SessionUser): Promise<void> {
  // Stop charging and end every provider grant first (both best effort when a provider is down).
  await cancelForDeletion(deps, user.id)
  await revokeAllConnections(deps, user.id)
  const deleted = await deps.db.delete(users).where(eq(users.id, user.id)).returning({ id: users.id })
  if (deleted.length === 0) throw notFound('account not found')
  deps.log.info('account deleted', { user_id: user.id })
}
