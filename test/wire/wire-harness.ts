// startWireApp(): the service booted the production way (config → createDeps → postgres.js + runMigrations)
// against an in-memory PGlite that speaks the Postgres wire protocol on 127.0.0.1 through pglite-socket, or
// with TEST_DATABASE=postgres against an empty database of a real PostgreSQL server (test/pg/).
import type { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { openPglite } from '../../db/client'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { createTestApp, TEST_ENV, type TestApp } from '../harness'
import { createTestDatabase, onPostgres } from '../pg/databases'
import { startWireGate, type WireGate } from './wire-gate'

// Room for the app's postgres.js pool (10) plus runMigrations' dedicated connections.
const MAX_CONNECTIONS = 32

export interface WireApp extends TestApp {
  /** Absent on a real server. */
  pglite?: PGlite
  socketServer?: PGLiteSocketServer
  /** Absent when started with `gate: false`. */
  gate?: WireGate
  /** The DATABASE_URL the app booted with (the gate, which forwards to pglite-socket, unless `gate: false`). */
  databaseUrl: string
  /** Stops the app's pool, the gate, the socket server and PGlite, in that order. */
  close(): Promise<void>
}

export interface WireOptions {
  /** Extra environment for loadConfig. */
  env?: Record<string, string>
  /** false: connect postgres.js to pglite-socket directly, to see the bridge's own behaviour (see wire-gate.ts). */
  gate?: boolean
}

export async function startWireApp(options: WireOptions = {}): Promise<WireApp> {
  return onPostgres ? startOnServer(options) : startOnPglite(options)
}

function bootConfig(databaseUrl: string, env: Record<string, string>) {
  return loadConfig({
    DATA_DIR: 'memory://',
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEY: 'ab'.repeat(32),
    LOG_LEVEL: 'silent',
    BASE_URL: 'http://localhost:3000',
    ...TEST_ENV,
    ...env,
  })
}

/** The real server: no bridge, no gate; the app's database is dropped at close. */
async function startOnServer({ env = {} }: WireOptions): Promise<WireApp> {
  const database = await createTestDatabase({ migrated: false })
  try {
    const config = bootConfig(database.url, env)
    const t = await createTestApp({ deps: await createDeps(config) })
    const close = async () => {
      await t.close()
      await database.drop()
    }
    return { ...t, config, databaseUrl: database.url, close }
  } catch (error) {
    await database.drop()
    throw error
  }
}

async function startOnPglite({ env = {}, gate: useGate = true }: WireOptions): Promise<WireApp> {
  const pglite = await openPglite('memory://')
  const socketServer = new PGLiteSocketServer({ db: pglite, host: '127.0.0.1', port: 0, maxConnections: MAX_CONNECTIONS })
  let gate: WireGate | undefined
  try {
    await socketServer.start()
    if (useGate) gate = await startWireGate('127.0.0.1', portOf(socketServer))
    const databaseUrl = `postgres://postgres@127.0.0.1:${gate?.port ?? portOf(socketServer)}/postgres`
    const config = bootConfig(databaseUrl, env)
    // No database override: the boot path itself opens the postgres.js pool and migrates over the wire.
    const deps = await createDeps(config)
    const t = await createTestApp({ deps })
    return {
      ...t,
      config,
      pglite,
      socketServer,
      gate,
      databaseUrl,
      close: async () => {
        await t.close()
        await shutDown(pglite, socketServer, gate)
      },
    }
  } catch (error) {
    await shutDown(pglite, socketServer, gate)
    throw error
  }
}

async function shutDown(pglite: PGlite, socketServer: PGLiteSocketServer, gate: WireGate | undefined): Promise<void> {
  await gate?.close()
  await socketServer.stop()
  // stop() detaches its handlers without awaiting them; let them finish before PGlite goes away.
  await new Promise((resolve) => setTimeout(resolve, 10))
  if (!pglite.closed) await pglite.close()
}

function portOf(server: PGLiteSocketServer): number {
  const port = Number(server.getServerConn().split(':').pop())
  if (!Number.isInteger(port) || port <= 0) throw new Error(`pglite-socket is not listening on a port: ${server.getServerConn()}`)
  return port
}
