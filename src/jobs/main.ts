// `bun run worker`: the job worker alone, no HTTP — run as many as the queue needs, beside any number of
// API processes started with WORKER_IN_PROCESS=false.
import { ConfigError, loadConfig } from '../config'
import { createDeps } from '../deps'
import { startMaintenance } from './maintenance'
import { startWorker } from './worker'

let config
try {
  config = loadConfig()
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`)
    process.exit(1)
  }
  throw error
}
const deps = await createDeps(config)
const stopMaintenance = startMaintenance(deps)
const worker = startWorker(deps)

async function shutdown(signal: string) {
  deps.log.info('worker shutting down', { signal })
  stopMaintenance()
  await worker.stop()
  await deps.close()
  process.exit(0)
}
process.on('SIGINT', () => void shutdown('SIGINT'))
process.on('SIGTERM', () => void shutdown('SIGTERM'))
