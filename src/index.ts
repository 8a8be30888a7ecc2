// Boot only: loadConfig → createDeps → createApp → listen.
import { createApp } from './app'
import { loadConfigOrExit } from './config'
import { createDeps } from './deps'
import { startMaintenance } from './jobs/maintenance'
import { startWorker } from './jobs/worker'

const started = performance.now()
const config = loadConfigOrExit()
const deps = await createDeps(config)
const app = createApp(deps)
const stopMaintenance = startMaintenance(deps)
const worker = config.workerInProcess ? startWorker(deps) : null
// Bun's own limit sits above the app's 2 MiB, so oversized bodies still get the app's 413 `{ error }`.
const server = Bun.serve({ port: config.port, fetch: app.fetch, maxRequestBodySize: 8 * 1024 * 1024 })
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
