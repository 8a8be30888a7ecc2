// The OAuth authorization server for MCP clients: registered clients, authorization codes, grants and tokens.
// Every secret (client secret, code, token) is stored as its SHA-256 only, like API keys.
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core'
import { timestamps, ts } from './columns'
import { users } from './users'

/** Clients registered dynamically (RFC 7591); nobody owns one. Deleting a client deletes its codes and grants. */
export const oauthClients = pgTable(
  'oauth_clients',
  {
    /** The client_id given out at registration. */
    id: text('id').primaryKey(),
    /** null: a public client (token_endpoint_auth_method "none"). */
    secret_hash: text('secret_hash'),
    name: text('name'),
    redirect_uris: jsonb('redirect_uris').$type<string[]>().notNull(),
    auth_method: text('auth_method').notNull(),
    /** The rest of the registered metadata, echoed back as registered (client_uri, software_id, …). */
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
    /** Where the registration came from: registrations are rate limited per address. */
    registered_from: text('registered_from').notNull(),
    created_at: timestamps.created_at,
  },
  (t) => [index('oauth_clients_from_idx').on(t.registered_from, t.created_at)],
)

/** What the user approved for one client: shown in the key list, revoked by deleting it (and its tokens). */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: uuid('id').primaryKey(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    client_id: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    resource: text('resource').notNull(),
    scope: text('scope').notNull(),
    created_at: timestamps.created_at,
    last_used_at: ts('last_used_at'),
  },
  (t) => [index('oauth_grants_user_idx').on(t.user_id), index('oauth_grants_client_idx').on(t.client_id)],
)

/** Authorization codes: single use (used_at), short-lived, bound to everything the token request must repeat. */
export const oauthCodes = pgTable('oauth_codes', {
  /** SHA-256 of the code. */
  id: text('id').primaryKey(),
  client_id: text('client_id')
    .notNull()
    .references(() => oauthClients.id, { onDelete: 'cascade' }),
  user_id: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** As given in the authorization request (null when omitted): the token request must repeat it. */
  redirect_uri: text('redirect_uri'),
  code_challenge: text('code_challenge').notNull(),
  resource: text('resource').notNull(),
  scope: text('scope').notNull(),
  expires_at: ts('expires_at').notNull(),
  used_at: ts('used_at'),
  /** The grant the code was exchanged for: a second use of the code revokes it (RFC 6749 §4.1.2). */
  grant_id: uuid('grant_id'),
  created_at: timestamps.created_at,
})

/** Access and refresh tokens of a grant. A refresh token is rotated once (rotated_at); showing it again revokes the grant. */
export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    /** SHA-256 of the token. */
    id: text('id').primaryKey(),
    grant_id: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    /** The grant's user, as on every table that holds a user's rows (cascades with the account). */
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').$type<'access' | 'refresh'>().notNull(),
    expires_at: ts('expires_at').notNull(),
    rotated_at: ts('rotated_at'),
    created_at: timestamps.created_at,
  },
  (t) => [index('oauth_tokens_grant_idx').on(t.grant_id), index('oauth_tokens_expiry_idx').on(t.expires_at)],
)
