// How a process starts and stops: the server's boot order (port, database, app, then background work), and
// the one-line refusals every entry point shares (port in use, data directory in use).
import type { Server } from 'bun'
import { createApp } from './app'
import type { Config } from './config'
import { createDeps } from './create-deps'
import type { Deps } from './deps'
import { startMaintenance } from './jobs/maintenance'
import { startWorker } from './jobs/worker'
import { errorResponse } from './http/error-codes'
import { serveApp } from './http/serve'
import { DataDirInUseError } from './lib/data-dir-lock'
import { startWatchdog } from './lib/watchdog'

/** One line on stderr, exit 1: what a person starting the process reads when it cannot run. */
export function refuse(line: string): never {
  console.error(line)
  process.exit(1)
}

/** The deps (database opened and migrated), or a one-line refusal when another process holds DATA_DIR. */
export async function createDepsOrExit(config: Config): Promise<Deps> {
  try {
    return await createDeps(config)
  } catch (error) {
    if (error instanceof DataDirInUseError) refuse(error.message)
    throw error
  }
}

/** Calls `shutdown` once, on the first SIGINT or SIGTERM. */
export function onSignals(shutdown: (signal: string) => Promise<void>): void {
  let stopping = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return
      stopping = true
      void shutdown(signal)
    })
  }
}

/** A crashed embedded database cannot be trusted with another statement (db/pglite-guard.ts): one line, and
 * exit 70 for the supervisor to restart the process on the files as the last commit left them. */
export function exitOnDatabaseCrash(deps: Deps): void {
  deps.databaseGuard?.onCrash((reason) => {
    deps.log.error('the embedded database crashed; exiting so the service restarts', { reason })
    setTimeout(() => process.exit(70), 100)
  })
}

/** The database watchdog of a long-running process (a no-op with DB_WATCHDOG_SECONDS=0). */
export const watchDatabase = (deps: Deps, role: string) =>
  startWatchdog(deps.db, {
    seconds: deps.config.dbWatchdogSeconds,
    fields: { role, pid: process.pid, database: deps.dbKind },
    quiet: deps.config.logLevel === 'silent',
  })

export interface RunningServer {
  deps: Deps
  server: Server<undefined>
  shutdown(signal: string): Promise<void>
}

/**
 * Binds the port first, so a port in use is said at once, before the data directory is locked or any worker
 * runs; until the app is built the port answers 503. Then the database, the app, and the background work.
 */
export async function startServer(config: Config): Promise<RunningServer> {
  const started = performance.now()
  let handle = (request: Request): Response | Promise<Response> => errorResponse(request, 503, 'starting')
  let server: Server<undefined>
  try {
    server = serveApp({ fetch: (request) => handle(request) }, { port: config.port })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      refuse(`port ${config.port} is already in use: stop the process using it, or set PORT to another port`)
    if ((error as NodeJS.ErrnoException).code === 'EACCES')
      refuse(`port ${config.port} needs privileges this process does not have: set PORT to a port above 1023`)
    throw error
  }
  let deps: Deps
  try {
    deps = await createDeps(config)
  } catch (error) {
    await server.stop(true)
    if (error instanceof DataDirInUseError) refuse(error.message)
    throw error
  }
  exitOnDatabaseCrash(deps)
  const app = createApp(deps)
  handle = (request) => app.fetch(request)
  const stopWatchdog = await watchDatabase(deps, 'server')
  deps.log.info('listening', {
    url: config.baseUrl,
    port: server.port,
    database: deps.dbKind,
    ready_ms: Math.round(performance.now() - started),
  })
  const stopMaintenance = startMaintenance(deps)
  const worker = config.workerInProcess ? startWorker(deps) : null

  const shutdown = async (signal: string) => {
    deps.log.info('shutting down', { signal })
    stopWatchdog()
    stopMaintenance()
    await server.stop()
    await worker?.stop()
    await deps.close()
    process.exit(0)
  }
  return { deps, server, shutdown }
}
