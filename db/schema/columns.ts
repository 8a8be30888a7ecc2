// Column helpers shared by every table: UUIDv7 ids, UTC timestamps, pgvector and tsvector types.
import { customType, timestamp, uuid } from 'drizzle-orm/pg-core'

/** Ids are UUIDv7 strings made by the app (time-ordered, so `ORDER BY id` is creation order). */
export const id = () => uuid('id').primaryKey()

export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' })

export const timestamps = {
  created_at: ts('created_at').notNull().defaultNow(),
  updated_at: ts('updated_at').notNull().defaultNow(),
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
