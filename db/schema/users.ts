// Accounts and how they authenticate: users, browser sessions, bearer API keys, per-user settings.
import { type AnyPgColumn, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { bytea, id, timestamps, ts } from './columns'

export const users = pgTable(
  'users',
  {
    id: id(),
    /** Stored lowercased; one account per address. */
    email: text('email').notNull(),
    name: text('name'),
    /** argon2id (Bun.password); null for accounts that only sign in with OAuth. */
    password_hash: text('password_hash'),
    /** When the person proved they receive mail at `email` (a mailed link, a provider's verified address, the admin
     * command); null until then. Only a verified address may be linked to a GitHub or Google sign-in. */
    email_verified_at: ts('email_verified_at'),
    /** The plan every limit is read from; moved by billing, `DEFAULT_PLAN` for new accounts. */
    plan: text('plan').notNull(),
    avatar: bytea('avatar'),
    avatar_type: text('avatar_type'),
    ...timestamps,
  },
  (t) => [uniqueIndex('users_email_key').on(t.email)],
)

/** Sessions as the Lucia guide teaches: the id is the SHA-256 of a random token that only the cookie holds. */
export const sessions = pgTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expires_at: ts('expires_at').notNull(),
    /** The browser that signed in (User-Agent, trimmed), so the person can tell their sessions apart. */
    user_agent: text('user_agent'),
    created_at: timestamps.created_at,
  },
  (t) => [index('sessions_user_idx').on(t.user_id)],
)

/** Bearer keys: only the SHA-256 of the key is kept; deleting the row revokes the key on the next request, and the
 * keys it minted with it (the cascade on parent_key_id). */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    prefix: text('prefix').notNull(),
    key_hash: text('key_hash').notNull(),
    label: text('label'),
    /** What the key may do (src/http/key-scopes.ts): read, write, keys. */
    scopes: text('scopes').array().notNull().default(['read', 'write']),
    /** The key that minted this one (null: made by a person signed in). */
    parent_key_id: uuid('parent_key_id').references((): AnyPgColumn => apiKeys.id, { onDelete: 'cascade' }),
    created_at: timestamps.created_at,
    last_used_at: ts('last_used_at'),
  },
  (t) => [
    uniqueIndex('api_keys_hash_key').on(t.key_hash),
    index('api_keys_user_idx').on(t.user_id),
    index('api_keys_parent_idx').on(t.parent_key_id),
  ],
)

/** OAuth identities used to sign in (GitHub, Google); an account may have several. */
export const identities = pgTable(
  'identities',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    provider_user_id: text('provider_user_id').notNull(),
    created_at: timestamps.created_at,
  },
  (t) => [uniqueIndex('identities_provider_key').on(t.provider, t.provider_user_id), index('identities_user_idx').on(t.user_id)],
)

/** Single-use links mailed to a person: verify an address (purpose verify-email, `email` the address to verify, which
 * becomes the sign-in email when it differs) or reset a password (purpose reset-password). Only the SHA-256 of the
 * token is kept. */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: text('id').primaryKey(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose').notNull(),
    email: text('email').notNull(),
    expires_at: ts('expires_at').notNull(),
    created_at: timestamps.created_at,
  },
  (t) => [index('email_tokens_user_idx').on(t.user_id)],
)
