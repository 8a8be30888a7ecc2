// `bun run reindex`: after a change of embedding model, queues an embed-document job for every document
// with a chunk not embedded by the current model, and runs them here (stop the server first on the embedded
// database; with PostgreSQL, running workers share the queue). Queries only ever compare one model's vectors,
// so search stays correct — with fewer semantic matches — until this finishes.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { loadConfigOrExit } from '../config'
import { createDepsOrExit } from '../boot'
import { enqueueJob } from './catalog'
import { drainJobs } from './worker'

const config = loadConfigOrExit()
// On the embedded database this refuses to run beside a server (one process per DATA_DIR).
const deps = await createDepsOrExit(config)
if (!deps.embedder) {
  console.error(`no embedding model is available (${deps.embeddingStatus.reason}); nothing to re-embed`)
  await deps.close()
  process.exit(1)
}
const stale = await queryRows<{ id: string; user_id: string }>(
  deps.db,
  sql`select distinct d.id, d.user_id from documents d join chunks c on c.document_id = d.id
      where c.embedding_model is distinct from ${deps.embedder.id}`,
)
await deps.db.transaction(async (tx) => {
  for (const doc of stale) await enqueueJob(tx, deps, 'embed-document', { document_id: doc.id }, doc.user_id)
})
console.log(`queued ${stale.length} documents for ${deps.embedder.id}`)
const started = performance.now()
const ran = await drainJobs(deps)
console.log(`ran ${ran} jobs in ${((performance.now() - started) / 1000).toFixed(1)} s`)
await deps.close()
