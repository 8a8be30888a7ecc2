// `bun run worker`: the job worker alone, no HTTP — run as many as the queue needs, beside any number of
// API processes started with WORKER_IN_PROCESS=false (PostgreSQL only: an embedded DATA_DIR has one process).
import { createDepsOrExit, exitOnDatabaseCrash, onSignals, watchDatabase } from '../boot'
import { loadConfigOrExit } from '../config'
import { startMaintenance } from './maintenance'
import { startWorker } from './worker'

const config = loadConfigOrExit()
const deps = await createDepsOrExit(config)
exitOnDatabaseCrash(deps)
const stopWatchdog = await watchDatabase(deps, 'worker')
const stopMaintenance = startMaintenance(deps)
const worker = startWorker(deps)

onSignals(async (signal) => {
  deps.log.info('worker shutting down', { signal })
  stopWatchdog()
  stopMaintenance()
  await worker.stop()
  await deps.close()
  process.exit(0)
})
