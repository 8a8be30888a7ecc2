// Boot only: loadConfig → bind the port → createDeps (locks DATA_DIR) → createApp → background work (boot.ts).
import { onSignals, startServer } from './boot'
import { loadConfigOrExit } from './config'

const running = startServer(loadConfigOrExit())
// Listened for from the start: a stop asked for during boot is a clean shutdown once boot is done.
onSignals(async (signal) => (await running).shutdown(signal))
await running
