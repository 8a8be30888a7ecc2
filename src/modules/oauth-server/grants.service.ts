// What the key list shows of OAuth: one entry per grant (a client the user connected to /mcp), and its revocation.
import { and, desc, eq } from 'drizzle-orm'
import { oauthClients, oauthGrants } from '../../../db/schema'
import type { Deps } from '../../deps'
import type { SessionUser } from '../auth/sessions.service'

export interface GrantDto {
  id: string
  client_id: string
  client_name: string | null
  created_at: string
  last_used_at: string | null
}

export async function listGrants(deps: Deps, user: SessionUser): Promise<GrantDto[]> {
  const rows = await deps.db
    .select({
      id: oauthGrants.id,
      client_id: oauthGrants.client_id,
      client_name: oauthClients.name,
      created_at: oauthGrants.created_at,
      last_used_at: oauthGrants.last_used_at,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.client_id))
    .where(eq(oauthGrants.user_id, user.id))
    .orderBy(desc(oauthGrants.id))
  return rows.map((r) => ({ ...r, created_at: r.created_at.toISOString(), last_used_at: r.last_used_at?.toISOString() ?? null }))
}

/** Deletes the grant with every token of it: the client's next call to /mcp is a 401. False when there is none. */
export async function revokeGrant(deps: Deps, user: SessionUser, id: string): Promise<boolean> {
  const deleted = await deps.db
    .delete(oauthGrants)
    .where(and(eq(oauthGrants.id, id), eq(oauthGrants.user_id, user.id)))
    .returning({ id: oauthGrants.id })
  return deleted.length > 0
}
