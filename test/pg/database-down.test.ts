// While the database cannot be reached — PostgreSQL stopped or restarting, a backend ended under a request,
// no connection left, the embedded database closed — a request answers 503 with Retry-After and a message that
// names no host, port or driver error (those go to the log with the request id), never a 500; once the server
// is back the same request succeeds.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { createDb } from '../../db/client'
import { runMigrations } from '../../db/migrate'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { createLogger } from '../../src/log'
import { FakeClock } from '../fakes/clock'
import { BASE, createTestApp, TEST_ENV, type TestApp } from '../harness'
import { realServerOrReason } from './databases'
import { startPostgres, type PgServer } from './server'

const { reason } = await realServerOrReason()
const skipped = reason ? ` (skipped: ${reason})` : ''

const UNAVAILABLE = { error: 'database unavailable, retry shortly', code: 'service_unavailable' }
/** Retry-After: a whole number of seconds to wait. */
const SECONDS = expect.stringMatching(/^[1-9]\d*$/)

/** The answer, its raw text too: what must not leak is looked for in the bytes the client gets. */
async function call(t: TestApp, method: string, path: string, options: Parameters<TestApp['request']>[2] = {}) {
  const res = await t.request(method, path, options)
  const text = await res.text()
  return { status: res.status, text, body: text ? JSON.parse(text) : null, headers: res.headers }
}

/** Log lines as objects, for what the operator is told. */
function memoryLog() {
  const lines: Record<string, unknown>[] = []
  return { lines, log: createLogger('warn', (line) => lines.push(JSON.parse(line))) }
}

/** An app on a database of `url` (migrated here), logging into `log`. */
async function appOn(url: string, log: ReturnType<typeof createLogger>): Promise<TestApp> {
  const config = loadConfig({
    DATA_DIR: 'memory://',
    LOG_LEVEL: 'warn',
    BASE_URL: BASE,
    DATABASE_URL: url,
    ENCRYPTION_KEY: 'ab'.repeat(32),
    ...TEST_ENV,
  })
  const database = await createDb(config, { poolSize: 2 })
  await runMigrations(database, url)
  return createTestApp({ deps: await createDeps(config, { database, clock: new FakeClock(), log }) })
}

describe.skipIf(reason !== null)(`PostgreSQL stopped, then started again${skipped}`, () => {
  // A server of this test's own, since it is stopped mid-test; its data directory outlives the stop.
  let dir: string
  let server: PgServer
  let t: TestApp
  const { lines, log } = memoryLog()
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memory-pg-down-'))
    chmodSync(dir, 0o755) // the server may run as another user (server.ts): it must reach its data directory
    server = await startPostgres({ dataDir: join(dir, 'data') })
    t = await appOn(server.urlFor('postgres'), log)
  })
  afterAll(async () => {
    await t?.close()
    await server?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('writes answer 503 with Retry-After while it is down, naming no host, port or driver error; they succeed once it is back', async () => {
    const u = await t.signUp()
    await server.stop()

    const writes = [
      await call(t, 'POST', '/api/workspaces', { key: u.key, body: { name: 'Runbooks' } }),
      await call(t, 'POST', '/api/workspaces', { key: u.key, body: { name: 'Runbooks' }, headers: { 'idempotency-key': 'k-1' } }),
      await call(t, 'POST', '/api/documents', { cookie: u.cookie, body: { body: 'Backups run nightly at two.' } }),
      await call(t, 'POST', '/api/auth/sign-up', { body: { email: 'late@example.com', password: 'correct horse battery' } }),
    ]
    for (const res of writes) {
      expect({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') }).toEqual({
        status: 503,
        body: UNAVAILABLE,
        retryAfter: SECONDS,
      })
      for (const secret of ['ECONNREFUSED', '127.0.0.1', String(server.port), 'postgres', 'select', 'insert'])
        expect(res.text.toLowerCase()).not.toContain(secret.toLowerCase())
    }
    // The operator learns why, by request id.
    const logged = lines.filter((l) => l.message === 'database unavailable')
    expect(logged.map((l) => l.request_id)).toEqual(writes.map((w) => w.headers.get('x-request-id')))
    expect(String(logged[0]!.cause)).toContain('ECONNREFUSED')

    server = await startPostgres({ dataDir: join(dir, 'data'), port: server.port })
    const again = await call(t, 'POST', '/api/workspaces', { key: u.key, body: { name: 'Runbooks' } })
    expect(again.status).toBe(201)
    expect(again.body.name).toBe('Runbooks')
  })
})

describe.skipIf(reason !== null)(`the server ends the connection under a request${skipped}`, () => {
  let t: TestApp
  let sql: postgres.Sql
  beforeAll(async () => {
    if (reason) return
    t = await createTestApp({ postgres: true })
    sql = postgres(t.config.databaseUrl!, { max: 2, onnotice: () => {} })
  })
  afterAll(async () => {
    await sql?.end({ timeout: 5 })
    await t?.close()
  })

  test('a request whose backend is terminated (pg_terminate_backend) answers 503; the next one gets a new connection', async () => {
    const u = await t.signUp()
    // Someone holds the user's usage counter: the request's first write (counting the call) waits for it.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let holding!: () => void
    const held = new Promise<void>((resolve) => (holding = resolve))
    const holder = sql.begin(async (tx) => {
      await tx`select 1 from usage_counters where user_id = ${u.id} for update`
      holding()
      await released
    })
    await held
    const pending = call(t, 'POST', '/api/workspaces', { key: u.key, body: { name: 'Runbooks' } })
    let ended = 0
    for (let i = 0; i < 500 && ended === 0; i++) {
      const rows = await sql`select pg_terminate_backend(pid) as ended from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`
      ended = rows.filter((r) => r.ended).length
      if (ended === 0) await Bun.sleep(10)
    }
    expect(ended).toBe(1)
    const res = await pending
    release()
    await holder
    expect({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') }).toEqual({
      status: 503,
      body: UNAVAILABLE,
      retryAfter: SECONDS,
    })
    expect(res.text).not.toContain('terminating connection')
    expect((await call(t, 'POST', '/api/workspaces', { key: u.key, body: { name: 'Runbooks' } })).status).toBe(201)
  })

  test('a server with no connection left for the service (too many connections) answers 503, not 500', async () => {
    // A role allowed no connection gets the error a server at max_connections gives (SQLSTATE 53300).
    const role = `full_${crypto.randomUUID().slice(0, 8)}`
    await sql.unsafe(`create role "${role}" login connection limit 0`)
    const url = new URL(t.config.databaseUrl!)
    url.username = role
    const config = loadConfig({
      DATA_DIR: 'memory://',
      LOG_LEVEL: 'silent',
      BASE_URL: BASE,
      DATABASE_URL: url.toString(),
      ENCRYPTION_KEY: 'ab'.repeat(32),
      ...TEST_ENV,
    })
    const database = await createDb(config, { poolSize: 1 })
    const full = await createTestApp({ deps: await createDeps(config, { database, clock: new FakeClock() }) })
    try {
      const res = await call(full, 'POST', '/api/auth/sign-up', { body: { email: 'full@example.com', password: 'correct horse battery' } })
      expect({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') }).toEqual({
        status: 503,
        body: UNAVAILABLE,
        retryAfter: SECONDS,
      })
      expect(res.text).not.toContain(role)
    } finally {
      await full.close()
      await sql.unsafe(`drop role "${role}"`)
    }
  })
})

describe('the embedded database closed under a request', () => {
  test('a request that outlives the database (shutdown) answers 503 with Retry-After, not 500', async () => {
    const t = await createTestApp({ postgres: false })
    const u = await t.signUp()
    await t.deps.close()
    const res = await call(t, 'POST', '/api/workspaces', { key: u.key, body: { name: 'Runbooks' } })
    expect({ status: res.status, body: res.body, retryAfter: res.headers.get('retry-after') }).toEqual({
      status: 503,
      body: UNAVAILABLE,
      retryAfter: SECONDS,
    })
    expect(res.text).not.toContain('PGlite')
  })
})
