// Accounts and how they authenticate: users, browser sessions, bearer API keys, per-user settings.
import { index, pgTable, text, uniqueIndex, uuid, customType } from 'drizzle-orm/pg-core'
import { id, timestamps, ts } from './columns'

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' })

export const users = pgTable(
  'users',
  {
    id: id(),
    /** Stored lowercased; one account per address. */
    email: text('email').notNull(),
    name: text('name'),
    /** argon2id (Bun.password); null for accounts that only sign in with OAuth. */
    password_hash: text('password_hash'),
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
    created_at: timestamps.created_at,
  },
  (t) => [index('sessions_user_idx').on(t.user_id)],
)

/** Bearer keys: only the SHA-256 of the key is kept; deleting the row revokes the key on the next request. */
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
    created_at: timestamps.created_at,
    last_used_at: ts('last_used_at'),
  },
  (t) => [uniqueIndex('api_keys_hash_key').on(t.key_hash), index('api_keys_user_idx').on(t.user_id)],
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
