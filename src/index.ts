// Boot only: loadConfig → bind the port → createDeps (locks DATA_DIR) → createApp → background work (boot.ts).
import { onSignals, startServer } from './boot'
import { loadConfigOrExit } from './config'

const { shutdown } = await startServer(loadConfigOrExit())
onSignals(shutdown)
