// What a connector provider is: how it is authorised, who a token belongs to, what its selection lists and
// how one item becomes plain text. The sync engine (modules/connectors/sync.engine.ts) only speaks this interface.
import type { OAuthProvider } from '../config'
import type { ExtractLimits } from '../files/extract-file'
import type { ProviderApi } from './provider-api'

export const CONNECTOR_TYPES = ['confluence', 'google_drive', 'notion'] as const
export type ConnectorType = (typeof CONNECTOR_TYPES)[number]

/**
 * The sync selection. Each type reads its own key: confluence `spaces` (space keys), google_drive `folders`
 * (folder ids), notion `pages` (root page or database ids). An empty or absent selection means everything
 * the grant can see.
 */
export interface ConnectorConfig {
  spaces?: string[]
  folders?: string[]
  pages?: string[]
}

/** Who the connection's token belongs to, read once after the code exchange and kept on the connection. */
export interface ConnectionAccount {
  externalAccountId: string
  accountName: string
  /** Provider facts later calls need (Confluence: the site's cloud id and URL). */
  meta: Record<string, unknown>
}

export interface SyncContext {
  api: ProviderApi
  account: ConnectionAccount
  config: ConnectorConfig
  /** Largest body the service stores (bytes); bigger items are skipped, never cut. */
  maxBodyBytes: number
  /** How a file (a PDF, an Office document) is read: its largest size (the owner's plan) and the reading limits. */
  files: ExtractLimits & { maxBytes: number }
}

/** One importable item of the selection, as listed (metadata only). */
export interface RemoteItem {
  /** The provider's stable id: upserts and tombstones match on it. */
  externalId: string
  title: string
  /** Changes whenever the content changes (version number, modified time): an unchanged item is not fetched. */
  version: string
  url: string | null
  /** Where it sits upstream (space, folder, parent), kept in the document's metadata. */
  container?: string
  /** Set when the item cannot be imported (unsupported type, too large): counted as skipped, not fetched. */
  skip?: string
}

export interface WikiSpace {
  id: string
  key: string
  name: string
}

export interface ConnectorProvider {
  type: ConnectorType
  /** The OAuth app it authorises with (config.oauth[...]); google_drive uses the Google app. */
  oauth: OAuthProvider
  scopes: string[]
  /** Extra authorize parameters (offline access, consent prompt, owner). */
  authorizeParams?: Record<string, string>
  /** Headers every API call carries (Notion-Version). */
  headers?: Record<string, string>
  /** The selection key PATCH accepts for this type. */
  selectionKey: keyof ConnectorConfig
  /** Who the token belongs to; `tokenData` is the token endpoint's JSON (Notion puts the workspace there). */
  identify(api: ProviderApi, tokenData: Record<string, unknown>): Promise<ConnectionAccount>
  /**
   * Every item of the selection, metadata only. The listing must be complete: what the engine had before and
   * does not see now is removed. Throws when it cannot finish (then nothing is removed).
   */
  list(ctx: SyncContext): AsyncIterable<RemoteItem>
  /** The item's content as plain text. */
  content(ctx: SyncContext, item: RemoteItem): Promise<string>
  /** Wiki types only: the spaces a user can pick from. */
  spaces?(ctx: Pick<SyncContext, 'api' | 'account'>): Promise<WikiSpace[]>
}
