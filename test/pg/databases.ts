// The real PostgreSQL of this test process, and a fresh database on it per test app (cloned from a template
// migrated once). TEST_DATABASE=postgres runs createTestApp and startWireApp on it; TEST_POSTGRES_URL points
// at a server that is already running (a superuser's URL) instead of starting one.
import postgres from 'postgres'
import { createDb } from '../../db/client'
import { runMigrations } from '../../db/migrate'
import { startPostgres, WHEEL, WHEEL_VERSION } from './server'

/** Whether this test run puts createTestApp and startWireApp on the real server. */
export const onPostgres = process.env.TEST_DATABASE === 'postgres'

interface Server {
  urlFor(database: string): string
  admin: postgres.Sql
}

let server: Promise<Server> | undefined

/** The server, started on first use and stopped when this process exits (see server.ts's watchdog). */
export function testServer(): Promise<Server> {
  server ??= (async () => {
    const given = process.env.TEST_POSTGRES_URL
    const urlFor = given ? (database: string) => withDatabase(given, database) : (await startPostgres()).urlFor
    const admin = postgres(urlFor('postgres'), { max: 2, onnotice: () => {} })
    if (given) await dropStale(admin)
    return { urlFor, admin }
  })().catch((error) => {
    throw new Error(
      `the real PostgreSQL for tests (${WHEEL}==${WHEEL_VERSION}, see test/pg/server.ts) is not available: ${error instanceof Error ? error.message : error}`,
    )
  })
  return server
}

/** For suites that only make sense on a real server: the server, or why it is missing. Under CI=true a
 * missing server fails the run instead of skipping. */
export async function realServerOrReason(): Promise<{ server: Server; reason: null } | { server: null; reason: string }> {
  try {
    return { server: await testServer(), reason: null }
  } catch (error) {
    if (process.env.CI === 'true') throw error
    return { server: null, reason: error instanceof Error ? error.message : String(error) }
  }
}

// Databases are named after this process, so runs sharing a server never touch each other's.
const PREFIX = `mt_${process.pid}_`
let counter = 0
let template: Promise<string> | undefined

function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const { admin, urlFor } = await testServer()
    const name = `${PREFIX}template`
    await admin.unsafe(`create database "${name}"`)
    const url = urlFor(name)
    const database = await createDb({ dataDir: 'memory://', databaseUrl: url }, { poolSize: 1 })
    try {
      await runMigrations(database, url)
    } finally {
      await database.close()
    }
    return name
  })()
  return template
}

export interface TestDatabase {
  name: string
  url: string
  drop(): Promise<void>
}

/** A new database: a copy of the migrated template, or empty (`migrated: false`, for the boot path's own migration). */
export async function createTestDatabase({ migrated = true }: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const { admin, urlFor } = await testServer()
  const source = migrated ? await migratedTemplate() : null
  const name = `${PREFIX}${++counter}`
  await admin.unsafe(`create database "${name}"${source ? ` template "${source}" strategy file_copy` : ''}`)
  return { name, url: urlFor(name), drop: () => admin.unsafe(`drop database if exists "${name}" with (force)`).then(() => {}) }
}

/** Prepares the template up front (test/setup.ts), so no test's own hooks pay for the migrations. */
export async function warmUp(): Promise<void> {
  await migratedTemplate()
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${encodeURIComponent(database)}`
  return u.toString()
}

/** Databases left on a shared server by test processes that are gone (killed before their cleanup). */
async function dropStale(admin: postgres.Sql): Promise<void> {
  const rows = await admin<{ datname: string }[]>`select datname from pg_database where datname like 'mt\\_%'`
  for (const { datname } of rows) {
    const pid = Number(datname.split('_')[1])
    if (pid === process.pid || alive(pid)) continue
    await admin.unsafe(`drop database if exists "${datname}" with (force)`)
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
