// Connectors keep in step on their own: an active connector whose last run began more than the interval ago
// (CONNECTOR_SYNC_INTERVAL_MINUTES) gets a new run. A failed run counts too, so a failing provider is retried
// once an interval, not on every tick. Any number of processes may tick: queueRun answers the run already
// queued or running instead of adding a second.
import { and, eq, sql } from 'drizzle-orm'
import { connectors } from '../../../db/schema'
import type { Deps } from '../../deps'
import { queueRun } from './connectors.service'

const PER_TICK = 100

/** Queues the runs that are due; answers how many. */
export async function queueDueSyncs(deps: Deps): Promise<number> {
  const minutes = deps.config.connectorSyncIntervalMinutes
  if (minutes <= 0) return 0
  const since = new Date(deps.clock.now().getTime() - minutes * 60_000).toISOString()
  const due = await deps.db
    .select()
    .from(connectors)
    .where(
      and(
        eq(connectors.status, 'active'),
        // Written out qualified: drizzle leaves column names bare inside a subquery.
        sql`not exists (select 1 from sync_runs r where r.connector_id = connectors.id
              and (r.status in ('queued', 'running') or r.created_at > ${since}::timestamptz))`,
      ),
    )
    .orderBy(connectors.last_sync_at)
    .limit(PER_TICK)
  for (const connector of due) await queueRun(deps, connector)
  return due.length
}
