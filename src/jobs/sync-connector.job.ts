// sync-connector: runs one connector sync run (src/modules/connectors/sync.engine.ts). A worker that dies mid-run
// leaves the job claimed; once the claim is stale another worker takes it and the run goes on.
import { eq } from 'drizzle-orm'
import { syncRuns } from '../../db/schema'
import { finishRun, runSync } from '../modules/connectors/sync.engine'
import { JOB_ATTEMPTS, type JobDefinition, type PayloadOf } from '../queue/job-kinds'

export const syncConnectorJob: JobDefinition<PayloadOf<'sync-connector'>> = {
  maxAttempts: JOB_ATTEMPTS['sync-connector'],
  run: (deps, { run_id }, job) => runSync(deps, run_id, job),
  async onFailed(deps, { run_id }, error) {
    const [run] = await deps.db.select({ connector_id: syncRuns.connector_id }).from(syncRuns).where(eq(syncRuns.id, run_id))
    if (run) await finishRun(deps, run_id, run.connector_id, 'failed', `sync failed: ${error}`)
  },
}
