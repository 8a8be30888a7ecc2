// `bun run reindex`: the background re-embedding (reembed.job.ts) run in the foreground — it starts a chain
// for the configured model, if none is under way, and runs the queue here until it is empty. Servers and
// workers do the same on their own (at boot and whenever a model becomes available), so this is only for
// re-embedding with no server running; with PostgreSQL, running workers share the queue.
import { loadConfigOrExit } from '../config'
import { createDepsOrExit } from '../boot'
import { countBacklog } from '../embedding/embedding-backlog'
import { startReembedding } from '../embedding/reembedding'
import { drainJobs } from './worker'

const config = loadConfigOrExit()
// On the embedded database this refuses to run beside a server (one process per DATA_DIR).
const deps = await createDepsOrExit(config)
if (!deps.embedder) {
  console.error(`no embedding model is available (${deps.embeddingStatus.reason}); nothing to re-embed`)
  await deps.close()
  process.exit(1)
}
const marked = await startReembedding(deps)
console.log(
  marked === null
    ? `re-embedding for ${deps.embedder.id} was already under way; running its jobs`
    : `${marked} documents to re-embed for ${deps.embedder.id}`,
)
const started = performance.now()
const ran = await drainJobs(deps)
const { pending, failed } = await countBacklog(deps.db)
console.log(`ran ${ran} jobs in ${((performance.now() - started) / 1000).toFixed(1)} s; ${pending} documents pending, ${failed} failed`)
await deps.close()
