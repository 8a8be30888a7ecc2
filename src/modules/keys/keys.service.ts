// Bearer API keys: `svc_` + 40 base62 characters, shown once, stored as SHA-256, revoked by deletion. The list
// also shows the MCP clients connected by OAuth (kind "oauth"), revoked the same way.
import { and, count, desc, eq, sql } from 'drizzle-orm'
import { apiKeys, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { notFound } from '../../http/errors'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { lockUser } from '../../lib/locks'
import { accountPlan, asPlan, assertWithinLimit } from '../../plans'
import type { Plan } from '../../config'
import { settingsOf, type SettingsDto } from '../account/settings.model'
import type { SessionUser } from '../auth/sessions.service'
import { lookupAndCount } from '../usage/usage.service'
import { listGrants, revokeGrant, type GrantDto } from '../oauth/grants.service'

export const KEY_PREFIX = 'svc_'
export const KEY_PATTERN = /^svc_[0-9A-Za-z]{40}$/

export interface KeyDto {
  id: string
  prefix: string
  label: string | null
  tier: Plan
  created_at: string
  last_used_at: string | null
  /** api_key: a bearer key for every route; oauth: a token grant of an MCP client, good for /mcp only. */
  kind: 'api_key' | 'oauth'
  /** The MCP client's registered name (oauth); null for API keys. */
  client_name: string | null
}

type KeyRow = typeof apiKeys.$inferSelect

// `tier` is read from the account's plan, so a plan change moves every key's tier at once.
const toKeyDto = (row: KeyRow, plan: string): KeyDto => ({
  id: row.id,
  prefix: row.prefix,
  label: row.label,
  tier: asPlan(plan),
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
  kind: 'api_key',
  client_name: null,
})

const grantToKeyDto = (grant: GrantDto, plan: string): KeyDto => ({
  id: grant.id,
  prefix: grant.client_id.slice(0, 16),
  label: grant.client_name,
  tier: asPlan(plan),
  created_at: grant.created_at,
  last_used_at: grant.last_used_at,
  kind: 'oauth',
  client_name: grant.client_name,
})

export async function listKeys(deps: Deps, user: SessionUser): Promise<KeyDto[]> {
  const rows = await deps.db.select().from(apiKeys).where(eq(apiKeys.user_id, user.id)).orderBy(desc(apiKeys.id))
  const grants = await listGrants(deps, user)
  // Newest first across both kinds (UUIDv7 ids sort by creation).
  return [...rows.map((r) => toKeyDto(r, user.plan)), ...grants.map((g) => grantToKeyDto(g, user.plan))].sort((a, b) =>
    a.id < b.id ? 1 : -1,
  )
}

export async function createKey(deps: Deps, user: SessionUser, label: string | null): Promise<KeyDto & { key: string }> {
  const key = KEY_PREFIX + randomBase62(40)
  const now = deps.clock.now()
  const row = await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'keys')
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.user_id, user.id))
    assertWithinLimit(deps, user.plan, 'api_keys', n)
    const [created] = await tx
      .insert(apiKeys)
      .values({ id: deps.ids.next(), user_id: user.id, prefix: key.slice(0, 16), key_hash: sha256Hex(key), label, created_at: now })
      .returning()
    return created!
  })
  return { ...toKeyDto(row, user.plan), key }
}

export async function revokeKey(deps: Deps, user: SessionUser, id: string): Promise<void> {
  const deleted = await deps.db
    .delete(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.user_id, user.id)))
    .returning({ id: apiKeys.id })
  if (deleted.length === 0 && !(await revokeGrant(deps, user, id))) throw notFound(`API key ${id} not found`)
}

/** last_used_at is kept to the minute: a busy key is not rewritten on every request. */
const LAST_USED_RESOLUTION_MS = 60_000

export interface VerifiedKey {
  user: SessionUser
  keyId: string
  /** This month's API calls including this one, when `countCall` asked to count it; else null. */
  apiCalls: number | null
  settings: SettingsDto
}

/**
 * The key's owner, or null — and, with `countCall`, the request counted for usage in the same statement. No
 * cache: a deleted key fails on the very next request, on every process, and the plan is read as it is now.
 */
export async function verifyKey(deps: Deps, key: string, { countCall = false } = {}): Promise<VerifiedKey | null> {
  if (!KEY_PATTERN.test(key)) return null
  const row = await lookupAndCount<{
    id: string
    key_id: string
    last_used_at: Date | string | null
    email: string
    name: string | null
    plan: string
  }>(
    deps,
    sql`select ${apiKeys.id} as key_id, ${apiKeys.last_used_at} as last_used_at, ${users.id} as id, ${users.email} as email, ${users.name} as name,
          ${accountPlan(deps.config)} as plan
        from ${apiKeys} inner join ${users} on ${users.id} = ${apiKeys.user_id}
        where ${apiKeys.key_hash} = ${sha256Hex(key)}`,
    countCall,
  )
  if (!row) return null
  const now = deps.clock.now()
  // Its own statement, once a minute at most: folded into the lookup it would hold the key's row while the usage
  // write waits on the user's, the opposite order of an account deletion's cascade.
  if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= LAST_USED_RESOLUTION_MS) {
    await deps.db.update(apiKeys).set({ last_used_at: now }).where(eq(apiKeys.id, row.key_id))
  }
  return {
    keyId: row.key_id,
    user: { id: row.id, email: row.email, name: row.name, plan: row.plan },
    apiCalls: row.api_calls,
    settings: settingsOf(row.settings as never),
  }
}
