// runMigrations(database): replays the committed drizzle-kit migrations, at boot and in tests.
import { fileURLToPath } from 'node:url'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import postgres from 'postgres'
import type { Database } from './client'

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url))

/** Any number of processes may boot at once on PostgreSQL: an advisory lock lets one migrate at a time. */
const MIGRATION_LOCK = 727_001

export async function runMigrations(database: Database, databaseUrl?: string | null): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder })
    return
  }
  if (!databaseUrl) throw new Error('runMigrations: databaseUrl is required for postgres')
  // One dedicated connection, so the session-level lock and the migration share it.
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK})`
    await migratePostgres(drizzlePostgres(client), { migrationsFolder })
    await client`select pg_advisory_unlock(${MIGRATION_LOCK})`
  } finally {
    await client.end({ timeout: 5 })
  }
}
