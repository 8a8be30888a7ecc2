// A connection's OAuth tokens: sealed at rest under ENCRYPTION_KEY, opened only to call the provider, and
// refreshed shortly before they expire or when the provider refuses them. Rotated refresh tokens are stored
// at once, so the next call (in any process) uses the live one.
import { eq } from 'drizzle-orm'
import type { OAuth2Tokens } from 'arctic'
import { connections } from '../../db/schema'
import type { OAuthProvider } from '../config'
import type { Deps } from '../deps'
import { openSecret, sealSecret } from '../lib/secret-box'
import { refreshTokens } from '../oauth-client/oauth.client'
import type { TokenSource } from './provider-api'

export type ConnectionRow = typeof connections.$inferSelect

/** Refresh this long before the recorded expiry, so a call never starts with a token about to lapse. */
const EARLY_REFRESH_MS = 60_000

const context = (connectionId: string, which: 'access' | 'refresh') => `connection:${connectionId}:${which}`

/** The sealed columns of a token answer (a refresh that returns no new refresh token keeps the old one). */
export function sealTokens(deps: Deps, connectionId: string, tokens: OAuth2Tokens) {
  const data = tokens.data as { refresh_token?: unknown; scope?: unknown; expires_in?: unknown }
  const refresh = typeof data.refresh_token === 'string' ? data.refresh_token : null
  return {
    access_token_enc: sealSecret(deps.config.encryptionKey, tokens.accessToken(), context(connectionId, 'access')),
    ...(refresh ? { refresh_token_enc: sealSecret(deps.config.encryptionKey, refresh, context(connectionId, 'refresh')) } : {}),
    // From the service's clock, not arctic's (which reads Date.now): expiry is compared with deps.clock.
    expires_at: typeof data.expires_in === 'number' ? new Date(deps.clock.now().getTime() + data.expires_in * 1000) : null,
    ...(typeof data.scope === 'string' ? { scopes: data.scope.split(/[\s,]+/).filter(Boolean) } : {}),
  }
}

export const openAccessToken = (deps: Deps, row: ConnectionRow) =>
  openSecret(deps.config.encryptionKey, row.access_token_enc, context(row.id, 'access'))
export const openRefreshToken = (deps: Deps, row: ConnectionRow) =>
  row.refresh_token_enc ? openSecret(deps.config.encryptionKey, row.refresh_token_enc, context(row.id, 'refresh')) : null

export function connectionTokens(deps: Deps, connectionId: string): TokenSource {
  const load = async () => {
    const [row] = await deps.db.select().from(connections).where(eq(connections.id, connectionId))
    if (!row) throw new Error('the connection was disconnected')
    return row
  }
  const expiring = (row: ConnectionRow) =>
    row.expires_at !== null && row.expires_at.getTime() - EARLY_REFRESH_MS <= deps.clock.now().getTime()

  async function refresh(seen: ConnectionRow): Promise<string | null> {
    const refreshToken = openRefreshToken(deps, seen)
    if (!refreshToken) return null
    try {
      const tokens = await refreshTokens(deps, seen.provider as OAuthProvider, refreshToken)
      await deps.db
        .update(connections)
        .set({ ...sealTokens(deps, seen.id, tokens), updated_at: deps.clock.now() })
        .where(eq(connections.id, seen.id))
      return tokens.accessToken()
    } catch (error) {
      // Another sync may have rotated the refresh token a moment ago: its fresh access token is as good.
      const now = await load()
      if (now.access_token_enc !== seen.access_token_enc && !expiring(now)) return openAccessToken(deps, now)
      throw error
    }
  }

  return {
    async token() {
      const row = await load()
      if (expiring(row)) return (await refresh(row)) ?? openAccessToken(deps, row)
      return openAccessToken(deps, row)
    },
    async refresh() {
      return refresh(await load())
    },
  }
}
