// runMigrations(database): replays the committed drizzle-kit migrations, then applies db/functions (the one
// definition of every SQL function and trigger), at boot and in tests.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Transaction } from '@electric-sql/pglite'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator'
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator'
import type { PgliteDatabase } from 'drizzle-orm/pglite'
import postgres from 'postgres'
import type { Database } from './client'

export const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url))
export const functionsFolder = fileURLToPath(new URL('./functions', import.meta.url))

/** Any number of processes may boot at once on PostgreSQL: an advisory lock lets one migrate at a time. */
const MIGRATION_LOCK = 727_001

export async function runMigrations(database: Database, databaseUrl?: string | null): Promise<void> {
  if (database.kind === 'pglite') {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder })
    if (!database.pglite) throw new Error('runMigrations: the embedded instance is missing')
    await database.pglite.transaction((tx) => applyFunctions(pgliteRunner(tx)))
    return
  }
  if (!databaseUrl) throw new Error('runMigrations: databaseUrl is required for postgres')
  // One dedicated connection, so the session-level lock and the migration share it.
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} })
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK})`
    await migratePostgres(drizzlePostgres(client), { migrationsFolder })
    await client.begin((tx) => applyFunctions(postgresRunner(tx)))
    await client`select pg_advisory_unlock(${MIGRATION_LOCK})`
  } finally {
    await client.end({ timeout: 5 })
  }
}

/** db/functions/*.sql in name order: the current definition of every function and trigger, each file idempotent. */
export function readFunctionFiles(): { file: string; text: string }[] {
  return readdirSync(functionsFolder)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(functionsFolder, file), 'utf8') }))
}

/** The newest migration this code has (its journal's `when`, which drizzle records as created_at). */
function newestMigration(): { tag: string; when: number } {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string; when: number }[]
  }
  const newest = journal.entries.at(-1)
  if (!newest) throw new Error('runMigrations: the migrations journal is empty')
  return newest
}

/** Runs SQL in the functions step's transaction: one statement with its rows, or a script of many. */
interface Runner {
  rows<T>(text: string): Promise<T[]>
  script(text: string): Promise<void>
}

const pgliteRunner = (tx: Transaction): Runner => ({
  rows: async <T>(text: string) => (await tx.query<T>(text)).rows,
  script: async (text) => void (await tx.exec(text)),
})

const postgresRunner = (tx: postgres.TransactionSql): Runner => ({
  rows: async <T>(text: string) => [...(await tx.unsafe(text))] as T[],
  script: async (text) => void (await tx.unsafe(text).simple()),
})

/**
 * Applies db/functions in one transaction, after the migrations. Skipped when nothing changed since the last time
 * (the files and the newest migration, as the marker function db_functions_applied() records them): replacing a
 * trigger locks its table against writes, which every boot of every process should not do. Skipped too when the
 * database has a migration this code does not know: a newer release migrated it and its functions are the ones
 * that fit — an older process booting beside it must not put its own back.
 */
async function applyFunctions(run: Runner): Promise<void> {
  const newest = newestMigration()
  const files = readFunctionFiles()
  const key = createHash('sha256')
    .update(newest.tag)
    .update(files.map((f) => `${f.file}\n${f.text}`).join('\n'))
    .digest('hex')
  const marker = ` SELECT '${key}' `
  const [state] = await run.rows<{ newest: number | null; applied: string | null }>(
    `select (select max(created_at)::float8 from drizzle.__drizzle_migrations) as newest,
            (select prosrc from pg_proc where oid = to_regprocedure('db_functions_applied()')) as applied`,
  )
  if (state && state.newest !== null && Number(state.newest) > newest.when) return
  if (state?.applied === marker) return
  await run.script(
    [
      ...files.map((f) => f.text),
      `CREATE OR REPLACE FUNCTION db_functions_applied() RETURNS text LANGUAGE sql IMMUTABLE AS $$${marker}$$;`,
    ].join('\n;\n'),
  )
}
