// External systems: OAuth connections (tokens encrypted at rest), connectors synced from them, sync runs.
import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { workspaces } from './documents'
import { id, timestamps, ts } from './columns'
import { users } from './users'

export const connections = pgTable(
  'connections',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    external_account_id: text('external_account_id'),
    account_name: text('account_name'),
    /** AES-256-GCM under ENCRYPTION_KEY; never returned by the API. */
    access_token_enc: text('access_token_enc').notNull(),
    refresh_token_enc: text('refresh_token_enc'),
    expires_at: ts('expires_at'),
    scopes: text('scopes').array(),
    /** Provider facts later calls need (Confluence: the site's cloud id and URL). */
    meta: jsonb('meta').$type<Record<string, unknown>>().notNull().default({}),
    ...timestamps,
  },
  // Connecting the same provider account again refreshes this row instead of adding a second one.
  (t) => [
    index('connections_user_idx').on(t.user_id),
    uniqueIndex('connections_account_key').on(t.user_id, t.provider, t.external_account_id),
  ],
)

export const connectors = pgTable(
  'connectors',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Disconnecting a connection stops its connectors (they return to pending_auth). */
    connection_id: uuid('connection_id').references(() => connections.id, { onDelete: 'set null' }),
    workspace_id: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    /** confluence | google_drive | notion */
    type: text('type').notNull(),
    label: text('label'),
    /** pending_auth | active | disconnected */
    status: text('status').notNull(),
    /** Sync selection: { spaces?: string[], folders?: string[] } */
    config: jsonb('config').$type<{ spaces?: string[]; folders?: string[]; pages?: string[] }>().notNull().default({}),
    /** Provider-specific incremental cursor (modified-since). */
    cursor: jsonb('cursor').$type<Record<string, unknown>>(),
    last_sync_at: ts('last_sync_at'),
    ...timestamps,
  },
  (t) => [index('connectors_user_idx').on(t.user_id)],
)

export const syncRuns = pgTable(
  'sync_runs',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    connector_id: uuid('connector_id')
      .notNull()
      .references(() => connectors.id, { onDelete: 'cascade' }),
    /** queued | running | succeeded | failed */
    status: text('status').notNull(),
    added: integer('added').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    removed: integer('removed').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    error: text('error'),
    started_at: ts('started_at'),
    finished_at: ts('finished_at'),
    created_at: timestamps.created_at,
  },
  (t) => [index('sync_runs_connector_idx').on(t.connector_id, t.id)],
)

/** Short-lived OAuth `state` values bound to a user (connectors) or to a browser (sign-in). */
export const oauthStates = pgTable('oauth_states', {
  /** SHA-256 of the state sent to the provider. */
  id: text('id').primaryKey(),
  user_id: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
  provider: text('provider').notNull(),
  code_verifier: text('code_verifier'),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
  expires_at: ts('expires_at').notNull(),
})
