// Shared operational state that lets any number of processes cooperate: usage and rate-limit counters,
// recorded events for statistics, and the job queue.
import { sql } from 'drizzle-orm'
import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core'
import { id, timestamps, ts } from './columns'
import { users } from './users'

/** API calls per user per calendar month (UTC), incremented atomically by every authenticated request. */
export const usageCounters = pgTable(
  'usage_counters',
  {
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** 'YYYY-MM' */
    period: text('period').notNull(),
    api_calls: bigint('api_calls', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.period] })],
)

/**
 * Documents and bytes stored per user, whatever their status — what the documents and storage limits count.
 * Kept exact by a trigger on documents (migration 0010), so a limit check reads one row, not every document.
 */
export const storageTotals = pgTable('storage_totals', {
  user_id: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  documents: integer('documents').notNull().default(0),
  bytes: bigint('bytes', { mode: 'number' }).notNull().default(0),
})

/** Fixed one-minute windows per (user or key, bucket); a row per window, upserted atomically. */
export const rateLimitCounters = pgTable(
  'rate_limit_counters',
  {
    key: text('key').notNull(),
    window_start: ts('window_start').notNull(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.key, t.window_start] }), index('rate_limit_user_idx').on(t.user_id)],
)

/** Countable events (searches, answers, ingests) for statistics and their daily series. */
export const events = pgTable(
  'events',
  {
    id: id(),
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    created_at: timestamps.created_at,
  },
  (t) => [index('events_user_type_idx').on(t.user_id, t.type, t.created_at)],
)

/** The job queue: claimed with FOR UPDATE SKIP LOCKED, retried with backoff until max_attempts. */
export const jobs = pgTable(
  'jobs',
  {
    id: id(),
    user_id: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** queued | running | succeeded | failed */
    status: text('status').notNull().default('queued'),
    attempts: integer('attempts').notNull().default(0),
    max_attempts: integer('max_attempts').notNull().default(5),
    run_at: ts('run_at').notNull().default(sql`now()`),
    locked_at: ts('locked_at'),
    locked_by: text('locked_by'),
    last_error: text('last_error'),
    ...timestamps,
  },
  (t) => [index('jobs_claim_idx').on(t.status, t.run_at), index('jobs_user_idx').on(t.user_id)],
)

/**
 * Idempotency-Key records (src/http/idempotency.ts), per user and key: the request's method, path and body
 * fingerprint, and once it has finished, the response to replay. A row without `status` is a request still
 * running; `locked_at` lets a later duplicate take over one whose process died. Kept 24 h (`expires_at`),
 * then swept by the maintenance tick.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    user_id: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    fingerprint: text('fingerprint').notNull(),
    status: integer('status'),
    headers: jsonb('headers').$type<Record<string, string>>(),
    body: text('body'),
    locked_at: ts('locked_at').notNull(),
    created_at: ts('created_at').notNull(),
    expires_at: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.key] }), index('idempotency_keys_expires_idx').on(t.expires_at)],
)

/**
 * Failed password sign-ins per account and per client address (src/modules/auth/sign-in-throttle.ts), so the
 * lock holds across processes. `key` is `account:<sha-256 of the email>` or `address:<address or /64>`; a row is
 * forgotten once its lock and a quiet window have passed, and swept later.
 */
export const signInFailures = pgTable(
  'sign_in_failures',
  {
    key: text('key').primaryKey(),
    failures: integer('failures').notNull(),
    last_failure_at: ts('last_failure_at').notNull(),
  },
  (t) => [index('sign_in_failures_last_idx').on(t.last_failure_at)],
)
