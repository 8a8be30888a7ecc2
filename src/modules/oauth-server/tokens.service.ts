// The token endpoint's rules: an authorization code (single use, PKCE S256, same client, redirect_uri and
// resource) or a refresh token (rotated at each use; a rotated one shown again revokes its grant) becomes an
// access token for /mcp (an hour) and a new refresh token. Revocation (RFC 7009: a token ends its grant) and the
// check of /mcp's tokens.
import { and, eq, gt, lt } from 'drizzle-orm'
import { oauthClients, oauthCodes, oauthGrants, oauthTokens, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { accountPlan } from '../../plans'
import type { SessionUser } from '../auth/sessions.service'
import type { OAuthClient } from './clients.service'
import { OAuthError } from './oauth.errors'
import { ACCESS_TOKEN_PREFIX, ACCESS_TOKEN_TTL_S, mcpResourceOf, REFRESH_TOKEN_PREFIX, REFRESH_TOKEN_TTL_MS } from './oauth.urls'

type Tx = Parameters<Parameters<Deps['db']['transaction']>[0]>[0]

export interface TokenResponse {
  access_token: string
  token_type: 'Bearer'
  expires_in: number
  refresh_token: string
  scope: string
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

export async function exchangeCode(deps: Deps, client: OAuthClient, form: Record<string, string>): Promise<TokenResponse> {
  const code = required(form, 'code')
  const verifier = required(form, 'code_verifier')
  const now = deps.clock.now()
  return settle(deps, async (tx) => {
    const [row] = await tx
      .select()
      .from(oauthCodes)
      .where(eq(oauthCodes.id, sha256Hex(code)))
      .for('update')
    if (!row || row.client_id !== client.id) throw invalidGrant('unknown authorization code')
    if (row.used_at) {
      // RFC 6749 §4.1.2: a code used twice was stolen or replayed; what it gave is taken back.
      if (row.grant_id) await tx.delete(oauthGrants).where(eq(oauthGrants.id, row.grant_id))
      return invalidGrant('authorization code already used; the tokens issued for it are revoked')
    }
    if (row.expires_at <= now) throw invalidGrant('authorization code expired: authorize again')
    if (row.redirect_uri !== null && form.redirect_uri !== row.redirect_uri)
      throw invalidGrant('redirect_uri differs from the one in the authorization request')
    if (!VERIFIER.test(verifier) || pkceS256(verifier) !== row.code_challenge)
      throw invalidGrant('code_verifier does not match the code_challenge (PKCE S256)')
    if (form.resource !== undefined && form.resource !== row.resource)
      throw new OAuthError('invalid_target', `resource must be ${row.resource}, the one authorized`)

    // One grant per user and client: approving again replaces what the client held before.
    await tx.delete(oauthGrants).where(and(eq(oauthGrants.user_id, row.user_id), eq(oauthGrants.client_id, client.id)))
    const grantId = deps.ids.next()
    await tx
      .insert(oauthGrants)
      .values({ id: grantId, user_id: row.user_id, client_id: client.id, resource: row.resource, scope: row.scope, created_at: now })
    await tx.update(oauthCodes).set({ used_at: now, grant_id: grantId }).where(eq(oauthCodes.id, row.id))
    return issueTokens(deps, tx, grantId, row.scope)
  })
}

export async function refreshTokens(deps: Deps, client: OAuthClient, form: Record<string, string>): Promise<TokenResponse> {
  const token = required(form, 'refresh_token')
  const now = deps.clock.now()
  return settle(deps, async (tx) => {
    const [row] = await tx
      .select({
        id: oauthTokens.id,
        kind: oauthTokens.kind,
        expiresAt: oauthTokens.expires_at,
        rotatedAt: oauthTokens.rotated_at,
        grantId: oauthGrants.id,
        clientId: oauthGrants.client_id,
        resource: oauthGrants.resource,
        scope: oauthGrants.scope,
      })
      .from(oauthTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grant_id))
      .where(eq(oauthTokens.id, sha256Hex(token)))
      .for('update')
    if (row?.kind !== 'refresh' || row.clientId !== client.id) throw invalidGrant('unknown or revoked refresh token')
    if (row.rotatedAt) {
      // OAuth 2.1 §4.3.1: an old refresh token in use means two holders; the whole grant ends for both.
      await tx.delete(oauthGrants).where(eq(oauthGrants.id, row.grantId))
      return invalidGrant('refresh token already used; the grant is revoked: authorize again')
    }
    if (row.expiresAt <= now) throw invalidGrant('refresh token expired: authorize again')
    if (form.resource !== undefined && form.resource !== row.resource)
      throw new OAuthError('invalid_target', `resource must be ${row.resource}, the one authorized`)
    await tx.update(oauthTokens).set({ rotated_at: now }).where(eq(oauthTokens.id, row.id))
    return issueTokens(deps, tx, row.grantId, row.scope)
  })
}

/**
 * RFC 7009: the token stops working, and so does every token of its grant (RFC 7009 §2.1 lets an access token's
 * revocation take its refresh token): a client that signs out by revoking what it shows would otherwise leave
 * a refresh token behind, good for a month of new access tokens. Unknown tokens are no error.
 */
export async function revokeToken(deps: Deps, client: OAuthClient, token: string): Promise<void> {
  const [row] = await deps.db
    .select({ grantId: oauthGrants.id, clientId: oauthGrants.client_id })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grant_id))
    .where(eq(oauthTokens.id, sha256Hex(token)))
  // Another client's token is left alone, and the answer does not say it exists.
  if (!row || row.clientId !== client.id) return
  await deps.db.delete(oauthGrants).where(eq(oauthGrants.id, row.grantId))
}

/** last_used_at of a grant is kept to the minute, as for keys. */
const LAST_USED_RESOLUTION_MS = 60_000

/** The user behind a live access token for `resource`, or null. No cache: revocation holds on the next request. */
export async function verifyAccessToken(
  deps: Deps,
  token: string,
): Promise<{ user: SessionUser; grantId: string; resource: string } | null> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null
  const now = deps.clock.now()
  const [row] = await deps.db
    .select({
      grantId: oauthGrants.id,
      resource: oauthGrants.resource,
      client: oauthClients.name,
      lastUsedAt: oauthGrants.last_used_at,
      id: users.id,
      email: users.email,
      name: users.name,
      plan: accountPlan(deps.config),
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grant_id))
    .innerJoin(users, eq(users.id, oauthGrants.user_id))
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.client_id))
    .where(and(eq(oauthTokens.id, sha256Hex(token)), eq(oauthTokens.kind, 'access'), gt(oauthTokens.expires_at, now)))
  if (!row) return null
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await deps.db.update(oauthGrants).set({ last_used_at: now }).where(eq(oauthGrants.id, row.grantId))
  }
  const actor = { kind: 'oauth', surface: 'mcp', id: row.grantId, label: row.client, prefix: null } as const
  return { grantId: row.grantId, resource: row.resource, user: { id: row.id, email: row.email, name: row.name, plan: row.plan, actor } }
}

/** Whether `resource` is the one /mcp answers for (tokens are audience-bound, RFC 8707). */
export const isMcpResource = (deps: Deps, resource: string) => resource === mcpResourceOf(deps.config)

async function issueTokens(deps: Deps, tx: Tx, grantId: string, scope: string): Promise<TokenResponse> {
  const now = deps.clock.now().getTime()
  const access = ACCESS_TOKEN_PREFIX + randomBase62(40)
  const refresh = REFRESH_TOKEN_PREFIX + randomBase62(40)
  const [grant] = await tx.select({ user_id: oauthGrants.user_id }).from(oauthGrants).where(eq(oauthGrants.id, grantId))
  const user_id = grant!.user_id
  await tx.insert(oauthTokens).values([
    {
      id: sha256Hex(access),
      grant_id: grantId,
      user_id,
      kind: 'access',
      expires_at: new Date(now + ACCESS_TOKEN_TTL_S * 1000),
      created_at: new Date(now),
    },
    {
      id: sha256Hex(refresh),
      grant_id: grantId,
      user_id,
      kind: 'refresh',
      expires_at: new Date(now + REFRESH_TOKEN_TTL_MS),
      created_at: new Date(now),
    },
  ])
  // Expired tokens are swept now and then by whoever issues new ones.
  if (Math.random() < 0.05) await tx.delete(oauthTokens).where(lt(oauthTokens.expires_at, new Date(now - 86_400_000)))
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_S, refresh_token: refresh, scope }
}

/** Runs `work` in a transaction; an OAuthError it returns (rather than throws) is thrown after the commit, so
 * the revocation that goes with it holds. */
async function settle(deps: Deps, work: (tx: Tx) => Promise<TokenResponse | OAuthError>): Promise<TokenResponse> {
  const outcome = await deps.db.transaction(work)
  if (outcome instanceof OAuthError) throw outcome
  return outcome
}

export function pkceS256(verifier: string): string {
  return new Bun.CryptoHasher('sha256').update(verifier).digest('base64url')
}

function required(form: Record<string, string>, name: string): string {
  const value = form[name]
  if (!value) throw new OAuthError('invalid_request', `${name} is required`)
  return value
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description)
