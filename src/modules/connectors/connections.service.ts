// OAuth connections: the return from a provider's consent (state checked, code exchanged, account identified,
// tokens sealed, the connector activated and its first sync queued), listing, and disconnecting — revoked at
// the provider, tokens deleted here, and the connectors that used it back to pending_auth.
import { and, eq, inArray, sql } from 'drizzle-orm'
import { connections, connectors, syncRuns } from '../../../db/schema'
import type { OAuthProvider } from '../../config'
import { openAccessToken, openRefreshToken, sealTokens, type ConnectionRow } from '../../connectors/connection-tokens'
import { ProviderError } from '../../connectors/provider-api'
import { providerApi } from '../../connectors/provider-session'
import { providerOf } from '../../connectors/providers'
import type { Deps } from '../../deps'
import { AppError, badRequest, forbidden, notFound } from '../../http/errors'
import { exchangeCode, PROVIDER_TRAITS, revokeToken } from '../../oauth-client/oauth.client'
import { consumeState } from '../../oauth-client/oauth.state'
import type { SessionUser } from '../auth/sessions.service'
import { connectorCallbackUrl, connectorDto, findConnector, providerFailure, queueRun, toRunDto } from './connectors.service'

export interface CallbackQuery {
  code?: string
  state?: string
  error?: string
  error_description?: string
}

export interface Completed {
  connector: Awaited<ReturnType<typeof connectorDto>>
  sync_run: ReturnType<typeof toRunDto> | null
  /** Where the browser goes next, when the flow was started with redirect_to. */
  redirect: string | null
}

/**
 * The state is the credential here (random, single use, ten minutes, bound to the user who started the flow),
 * so the return works for flows started with an API key too. A browser signed in as someone else is refused:
 * a victim must not be able to connect their account to an attacker's connector.
 */
export async function completeConnection(deps: Deps, query: CallbackQuery, signedInUserId: string | null): Promise<Completed> {
  const { userId, provider: oauthProvider, codeVerifier, payload } = await consumeState(deps, null, query.state)
  if (payload.purpose !== 'connector' || !userId) throw badRequest('state is not a connector authorization: start again')
  if (signedInUserId && signedInUserId !== userId)
    throw forbidden('this authorization was started by another account: sign in as that account and start again')
  const connector = await findConnector(deps, userId, String(payload.connector_id))
  const landing = typeof payload.redirect_to === 'string' ? payload.redirect_to : null
  if (query.error) {
    if (landing)
      return {
        connector: await connectorDto(deps, connector),
        sync_run: null,
        redirect: withParams(landing, { connector_id: connector.id, error: query.error }),
      }
    throw badRequest(`${connector.type} authorization was not completed: ${query.error}`)
  }
  if (!query.code) throw badRequest('code is missing from the callback')
  const provider = providerOf(connector.type)
  let tokens: Awaited<ReturnType<typeof exchangeCode>>
  let account: Awaited<ReturnType<typeof provider.identify>>
  try {
    tokens = await exchangeCode(deps, oauthProvider, connectorCallbackUrl(deps), query.code, codeVerifier)
    const access = tokens.accessToken()
    account = await provider.identify(
      providerApi(deps, provider, { token: async () => access, refresh: async () => null }),
      tokens.data as Record<string, unknown>,
    )
  } catch (error) {
    // A browser that came from the dashboard goes back there with the reason, not to a JSON error page.
    if (!landing) providerFailure(error)
    if (!(error instanceof AppError || error instanceof ProviderError)) throw error
    return {
      connector: await connectorDto(deps, connector),
      sync_run: null,
      redirect: withParams(landing, { connector_id: connector.id, error: error.message }),
    }
  }
  const now = deps.clock.now()
  const connectionId = await deps.db.transaction(async (tx) => {
    // The same provider account connected again refreshes its connection instead of adding a second one.
    const [existing] = await tx
      .select({ id: connections.id })
      .from(connections)
      .where(
        and(
          eq(connections.user_id, userId),
          eq(connections.provider, oauthProvider),
          eq(connections.external_account_id, account.externalAccountId),
        ),
      )
    const id = existing?.id ?? deps.ids.next()
    const sealed = sealTokens(deps, id, tokens)
    const fields = {
      account_name: account.accountName,
      meta: account.meta,
      ...sealed,
      refresh_token_enc: sealed.refresh_token_enc ?? null,
      updated_at: now,
    }
    if (existing) await tx.update(connections).set(fields).where(eq(connections.id, id))
    else
      await tx.insert(connections).values({
        id,
        user_id: userId,
        provider: oauthProvider,
        external_account_id: account.externalAccountId,
        ...fields,
        created_at: now,
      })
    await tx.update(connectors).set({ connection_id: id, status: 'active', updated_at: now }).where(eq(connectors.id, connector.id))
    return id
  })
  deps.log.info('connector connected', { connector_id: connector.id, connection_id: connectionId, provider: oauthProvider })
  const active = await findConnector(deps, userId, connector.id)
  const run = await queueRun(deps, active)
  return {
    connector: await connectorDto(deps, active),
    sync_run: toRunDto(run),
    redirect: landing ? withParams(landing, { connector_id: connector.id, connected: 'true' }) : null,
  }
}

function withParams(to: string, params: Record<string, string>): string {
  const url = new URL(to)
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v)
  return url.toString()
}

export async function listConnections(deps: Deps, user: SessionUser) {
  const rows = await deps.db
    // Written out qualified: drizzle leaves column names bare inside a select's subquery.
    .select({ row: connections, used: sql<number>`(select count(*)::int from connectors c where c.connection_id = connections.id)` })
    .from(connections)
    .where(eq(connections.user_id, user.id))
    .orderBy(connections.id)
  return {
    data: rows.map(({ row, used }) => ({
      id: row.id,
      provider: row.provider,
      account_name: row.account_name,
      external_account_id: row.external_account_id,
      scopes: row.scopes ?? [],
      expires_at: row.expires_at?.toISOString() ?? null,
      connectors: used,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    })),
  }
}

export async function disconnectConnection(deps: Deps, user: SessionUser, id: string): Promise<void> {
  const [row] = await deps.db
    .select()
    .from(connections)
    .where(and(eq(connections.id, id), eq(connections.user_id, user.id)))
  if (!row) throw notFound(`connection ${id} not found`)
  await revokeAtProvider(deps, row)
  await deps.db.transaction(async (tx) => {
    const stopped = await tx
      .update(connectors)
      .set({ status: 'pending_auth', connection_id: null, updated_at: deps.clock.now() })
      .where(eq(connectors.connection_id, id))
      .returning({ id: connectors.id })
    if (stopped.length) {
      await tx
        .update(syncRuns)
        .set({ status: 'failed', error: 'the connection was disconnected', finished_at: deps.clock.now() })
        .where(
          and(
            inArray(
              syncRuns.connector_id,
              stopped.map((c) => c.id),
            ),
            inArray(syncRuns.status, ['queued', 'running']),
          ),
        )
    }
    await tx.delete(connections).where(eq(connections.id, id))
  })
}

/** Account deletion: every grant is revoked at its provider before the rows go (best effort, logged). */
export async function revokeAllConnections(deps: Deps, userId: string): Promise<void> {
  for (const row of await deps.db.select().from(connections).where(eq(connections.user_id, userId))) await revokeAtProvider(deps, row)
}

async function revokeAtProvider(deps: Deps, row: ConnectionRow): Promise<void> {
  const provider = row.provider as OAuthProvider
  if (!deps.config.oauth[provider]) return
  try {
    const token =
      PROVIDER_TRAITS[provider].revokeWith === 'refresh'
        ? (openRefreshToken(deps, row) ?? openAccessToken(deps, row))
        : openAccessToken(deps, row)
    await revokeToken(deps, provider, token)
  } catch (error) {
    deps.log.warn('token revocation failed', { provider, connection_id: row.id, error: String(error) })
  }
}
