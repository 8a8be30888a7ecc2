// How the service talks to a connector's provider: its API client (the configured base URL, the provider's
// headers, a connection's tokens) and the account a connection belongs to — one place for the sync, the
// space listing and the OAuth return.
import type { Deps } from '../deps'
import { appOf } from '../oauth-client/oauth.client'
import { connectionTokens, type ConnectionRow } from './connection-tokens'
import type { ConnectionAccount, ConnectorProvider } from './provider'
import { createProviderApi, type ProviderApi, type TokenSource } from './provider-api'

/** 503 when the provider's app is not configured. */
export function providerApi(deps: Deps, provider: ConnectorProvider, tokens: TokenSource): ProviderApi {
  return createProviderApi({ name: provider.type, base: appOf(deps, provider.oauth).apiUrl, tokens, headers: provider.headers })
}

/** The API as a stored connection reaches it, with the account it belongs to. */
export function connectionSession(
  deps: Deps,
  provider: ConnectorProvider,
  connection: ConnectionRow,
): { api: ProviderApi; account: ConnectionAccount } {
  return {
    api: providerApi(deps, provider, connectionTokens(deps, connection.id)),
    account: { externalAccountId: connection.external_account_id ?? '', accountName: connection.account_name ?? '', meta: connection.meta },
  }
}
