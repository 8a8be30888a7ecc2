// `bun run worker`: the job worker alone, no HTTP — run as many as the queue needs, beside any number of
// API processes started with WORKER_IN_PROCESS=false.
import { loadConfigOrExit } from '../config'
import { createDeps } from '../deps'
import { startMaintenance } from './maintenance'
import { startWorker } from './worker'

const config = loadConfigOrExit()
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
