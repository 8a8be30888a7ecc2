// Column helpers shared by every table: UUIDv7 ids, UTC timestamps, pgvector and tsvector types.
import { sql } from 'drizzle-orm'
import { customType, uuid } from 'drizzle-orm/pg-core'
import { pgTimestampText, pgTimestampToIso } from '../pg-timestamps'

/** Ids are UUIDv7 strings made by the app (time-ordered, so `ORDER BY id` is creation order). */
export const id = () => uuid('id').primaryKey()

/**
 * A timestamptz read and written as a Date, any year a Date has: written as PostgreSQL's own text (BC years too,
 * which the ISO string drizzle's timestamp sends cannot say) and read from ISO 8601 (db/pg-timestamps.ts).
 */
export const ts = customType<{ data: Date; driverData: string }>({
  dataType: () => 'timestamp with time zone',
  toDriver: pgTimestampText,
  fromDriver: (text) => new Date(pgTimestampToIso(text)),
})

export const timestamps = {
  created_at: ts('created_at').notNull().default(sql`now()`),
  updated_at: ts('updated_at').notNull().default(sql`now()`),
}

/**
 * A pgvector column without a fixed dimension: vectors record the model that made them, and each model
 * gets its own partial expression index (built by the retrieval migrations), so models never mix.
 */
export const vector = customType<{ data: number[]; driverData: string }>({
  dataType: () => 'vector',
  toDriver: (v) => `[${v.join(',')}]`,
  fromDriver: (v) => JSON.parse(v) as number[],
})

/** Postgres full-text vector; written with to_tsvector() in SQL, never parsed in JS. */
export const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' })

/** Bytes as stored (an avatar, a file's original): a Uint8Array on PGlite, a Buffer (one too) on postgres.js. */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' })
