// Bearer API keys: `svc_` + 40 base62 characters, shown once, stored as SHA-256, revoked by deletion. Each key has
// scopes (key-scopes.ts); a key with `keys` may mint keys with no more scopes than its own, and sees and revokes only
// itself and the keys it minted — revoking a key revokes those too. A person signed in sees every key, and the MCP
// clients connected by OAuth (kind "oauth"), revoked the same way.
import { and, count, desc, eq, sql } from 'drizzle-orm'
import { apiKeys, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { forbidden, notFound } from '../../http/errors'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { lockUser } from '../../lib/locks'
import { accountPlan, asPlan, assertWithinLimit } from '../../plans'
import type { Plan } from '../../config'
import { settingsOf, type SettingsDto } from '../account/settings.model'
import { recordActivity } from '../activity/activity.service'
import type { Principal, SessionUser } from '../auth/session-user'
import { lookupAndCount } from '../usage/usage.service'
import { listGrants, revokeGrant, type GrantDto } from '../oauth-server/grants.service'
import { asScopes, DEFAULT_KEY_SCOPES, type KeyScope } from './key-scopes'

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
  /** What the key may do; an MCP client connected by OAuth reads and writes. */
  scopes: KeyScope[]
  /** The key that minted this one; null when a person made it (and for oauth). */
  parent_id: string | null
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
  scopes: asScopes(row.scopes),
  parent_id: row.parent_key_id,
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
  scopes: ['read', 'write'],
  parent_id: null,
})

/** The key ids a key may manage: itself and every key it minted, at any depth. */
function subtreeOf(rows: KeyRow[], rootId: string): Set<string> {
  const ids = new Set([rootId])
  for (let grew = true; grew; ) {
    grew = false
    for (const row of rows)
      if (row.parent_key_id && ids.has(row.parent_key_id) && !ids.has(row.id)) {
        ids.add(row.id)
        grew = true
      }
  }
  return ids
}

export async function listKeys(deps: Deps, principal: Principal): Promise<KeyDto[]> {
  const { user } = principal
  const rows = await deps.db.select().from(apiKeys).where(eq(apiKeys.user_id, user.id)).orderBy(desc(apiKeys.id))
  if (principal.via === 'key') {
    const mine = subtreeOf(rows, principal.credentialId)
    return rows.filter((row) => mine.has(row.id)).map((r) => toKeyDto(r, user.plan))
  }
  const grants = await listGrants(deps, user)
  // Newest first across both kinds (UUIDv7 ids sort by creation).
  return [...rows.map((r) => toKeyDto(r, user.plan)), ...grants.map((g) => grantToKeyDto(g, user.plan))].sort((a, b) =>
    a.id < b.id ? 1 : -1,
  )
}

/** A key minted by a key holds no scope its maker lacks, and is revoked with it. */
export async function createKey(
  deps: Deps,
  principal: Principal,
  input: { label: string | null; scopes?: readonly string[] },
): Promise<KeyDto & { key: string }> {
  const { user } = principal
  const scopes = input.scopes ? asScopes(input.scopes) : DEFAULT_KEY_SCOPES
  const minter = principal.via === 'key' ? principal.credentialId : null
  const beyond = minter ? scopes.filter((scope) => !principal.scopes.includes(scope)) : []
  if (beyond.length) throw forbidden(`a key cannot mint a key with more power than its own: it lacks ${beyond.join(', ')}`)
  const key = KEY_PREFIX + randomBase62(40)
  const now = deps.clock.now()
  const row = await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'keys')
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.user_id, user.id))
    assertWithinLimit(deps, user.plan, 'api_keys', n)
    const [created] = await tx
      .insert(apiKeys)
      .values({
        id: deps.ids.next(),
        user_id: user.id,
        prefix: key.slice(0, 16),
        key_hash: sha256Hex(key),
        label: input.label,
        scopes,
        parent_key_id: minter,
        created_at: now,
      })
      .returning()
    await recordActivity(tx, deps, user, {
      action: 'key.create',
      object_type: 'key',
      object_id: created!.id,
      title: created!.label,
      summary: { prefix: created!.prefix, scopes },
    })
    return created!
  })
  return { ...toKeyDto(row, user.plan), key }
}

/** Deleting a key deletes the keys it minted (the foreign key cascades). A key revokes only within its own subtree;
 * another key of the same account is a 404 to it, as it is absent from its list. */
export async function revokeKey(deps: Deps, principal: Principal, id: string): Promise<void> {
  const { user } = principal
  if (principal.via === 'key') {
    const rows = await deps.db.select().from(apiKeys).where(eq(apiKeys.user_id, user.id))
    if (!subtreeOf(rows, principal.credentialId).has(id)) throw notFound(`API key ${id} not found`)
  }
  const deleted = await deps.db
    .delete(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.user_id, user.id)))
    .returning({ id: apiKeys.id, label: apiKeys.label, prefix: apiKeys.prefix })
  if (deleted.length === 0 && (principal.via === 'key' || !(await revokeGrant(deps, user, id)))) throw notFound(`API key ${id} not found`)
  const key = deleted[0]
  await recordActivity(deps.db, deps, user, {
    action: 'key.revoke',
    object_type: 'key',
    object_id: id,
    title: key ? key.label : null,
    summary: key ? { prefix: key.prefix } : { kind: 'oauth' },
  })
}

/** last_used_at is kept to the minute: a busy key is not rewritten on every request. */
const LAST_USED_RESOLUTION_MS = 60_000

export interface VerifiedKey {
  user: SessionUser
  keyId: string
  scopes: KeyScope[]
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
    label: string | null
    prefix: string
    scopes: string[]
    last_used_at: Date | string | null
    email: string
    name: string | null
    plan: string
  }>(
    deps,
    sql`select ${apiKeys.id} as key_id, ${apiKeys.label} as label, ${apiKeys.prefix} as prefix, ${apiKeys.scopes} as scopes, ${apiKeys.last_used_at} as last_used_at, ${users.id} as id, ${users.email} as email, ${users.name} as name,
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
    scopes: asScopes(row.scopes),
    user: {
      id: row.id,
      email: row.email,
      name: row.name,
      plan: row.plan,
      actor: { kind: 'key', surface: 'rest', id: row.key_id, label: row.label, prefix: row.prefix },
    },
    apiCalls: row.api_calls,
    settings: settingsOf(row.settings as never),
  }
}
