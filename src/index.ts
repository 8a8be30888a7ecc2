// Boot only: loadConfig → createDeps → createApp → listen.
import { createApp } from './app'
import { loadConfigOrExit } from './config'
import { createDeps } from './deps'
import { serveApp } from './http/serve'
import { startMaintenance } from './jobs/maintenance'
import { startWorker } from './jobs/worker'

const started = performance.now()
const config = loadConfigOrExit()
const deps = await createDeps(config)
const app = createApp(deps)
const stopMaintenance = startMaintenance(deps)
const worker = config.workerInProcess ? startWorker(deps) : null
const server = serveApp(app, { port: config.port })
// A crashed embedded database cannot be trusted with another statement: exit for the supervisor to restart
// the service on the files as the last commit left them (db/pglite-guard.ts).
deps.databaseGuard?.onCrash((reason) => {
  deps.log.error('the embedded database crashed; exiting so the service restarts', { reason })
  setTimeout(() => process.exit(70), 100)
})
deps.log.info('listening', { url: config.baseUrl, port: server.port, database: deps.dbKind, ready_ms: Math.round(performance.now() - started) })

async function shutdown(signal: string) {
  deps.log.info('shutting down', { signal })
  stopMaintenance()
  await server.stop()
  await worker?.stop()
  await deps.close()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))
