// One sync run of a connector: list the whole selection (metadata only), remove what is gone upstream, then
// fetch and upsert only what is new or changed since the version stored — so a second sync of an unchanged
// source transfers no content. Counts are written as the run goes; a run taken over after a crash starts the
// listing again and, since finished items are now unchanged, neither loses nor duplicates anything.
import { and, eq, sql } from 'drizzle-orm'
import { connections, connectors, syncRuns, users } from '../../../db/schema'
import type { Deps } from '../../deps'
import { AppError, describeError } from '../../http/errors'
import { accountPlan, fileLimits } from '../../plans'
import { touchJob, type JobRow } from '../../queue/queue'
import { recordActivity } from '../activity/activity.service'
import type { Actor } from '../auth/session-user'
import { MAX_BODY_BYTES } from '../documents/documents.model'
import type { ConnectorConfig, RemoteItem, SyncContext } from '../../connectors/provider'
import { ProviderError, SkipItem } from '../../connectors/provider-api'
import { connectionSession } from '../../connectors/provider-session'
import { providerOf } from '../../connectors/providers'
import { forgottenItems, knownItems, LimitReached, removeItems, writeItems, type ConnectorRow, type FetchedItem } from './sync.documents'

export type SyncRunRow = typeof syncRuns.$inferSelect
type Counter = 'added' | 'updated' | 'removed' | 'skipped'

/** Item contents requested at once. */
const FETCHES = 4

/** This worker's claim was taken over (it was presumed dead): stop, write nothing more. */
class ClaimLost extends Error {}

export async function runSync(deps: Deps, runId: string, job: JobRow): Promise<void> {
  const [run] = await deps.db.select().from(syncRuns).where(eq(syncRuns.id, runId))
  if (!run || run.status === 'succeeded' || run.status === 'failed') return
  const [connector] = await deps.db.select().from(connectors).where(eq(connectors.id, run.connector_id))
  if (!connector) return
  const startedAt = run.started_at ?? deps.clock.now()
  await deps.db.update(syncRuns).set({ status: 'running', started_at: startedAt }).where(eq(syncRuns.id, runId))
  try {
    await syncConnector(deps, runId, connector, job)
    await finishRun(deps, runId, connector.id, 'succeeded', null)
  } catch (error) {
    if (error instanceof ClaimLost) return
    const expected = error instanceof LimitReached || error instanceof AppError || error instanceof ProviderError
    if (!expected) deps.log.error('sync failed', { run_id: runId, error: describeError(error) })
    else if (error.cause !== undefined)
      deps.log.warn('sync failed', { run_id: runId, error: error.message, cause: describeError(error.cause) })
    await finishRun(deps, runId, connector.id, 'failed', failureMessage(error))
  }
}

/**
 * What the run shows: a limit says the sync stopped; the provider's and our refusals speak for themselves.
 * Anything else (a database or programming error) names internals — SQL, hosts, ports: the log has it by run id.
 */
function failureMessage(error: unknown): string {
  if (error instanceof LimitReached) return `stopped: ${error.message}`
  if (error instanceof AppError || error instanceof ProviderError) return error.message
  return 'sync failed: internal error (logged under this run id)'
}

/** What a connector writes is recorded as made by it, by name. */
const connectorActor = (connector: ConnectorRow) => ({
  actor: { kind: 'connector', surface: 'connector', id: connector.id, label: connector.label, prefix: null } satisfies Actor,
})

export async function finishRun(
  deps: Deps,
  runId: string,
  connectorId: string,
  status: 'succeeded' | 'failed',
  error: string | null,
): Promise<void> {
  const now = deps.clock.now()
  await deps.db.transaction(async (tx) => {
    const [run] = await tx
      .update(syncRuns)
      .set({ status, error, finished_at: now })
      .where(and(eq(syncRuns.id, runId), sql`${syncRuns.status} in ('queued', 'running')`))
      .returning()
    if (status === 'succeeded')
      await tx.update(connectors).set({ last_sync_at: now, updated_at: now }).where(eq(connectors.id, connectorId))
    const [connector] = await tx.select().from(connectors).where(eq(connectors.id, connectorId))
    if (!run || !connector) return
    const { added, updated, removed, skipped } = run
    await recordActivity(
      tx,
      deps,
      { id: connector.user_id, ...connectorActor(connector) },
      {
        action: 'connector.sync',
        object_type: 'connector',
        object_id: connector.id,
        title: connector.label,
        workspace_id: connector.workspace_id,
        summary: { run_id: runId, status, added, updated, removed, skipped },
      },
    )
  })
}

async function syncConnector(deps: Deps, runId: string, connector: ConnectorRow, job: JobRow): Promise<void> {
  const provider = providerOf(connector.type)
  const connection = connector.connection_id
    ? (await deps.db.select().from(connections).where(eq(connections.id, connector.connection_id)))[0]
    : undefined
  if (connector.status !== 'active' || !connection) throw new AppError(409, 'the connector is not connected: authorize it again')
  const [user] = await deps.db
    .select({ id: users.id, email: users.email, name: users.name, plan: accountPlan(deps.config) })
    .from(users)
    .where(eq(users.id, connector.user_id))
  if (!user) return
  Object.assign(user, connectorActor(connector))
  const ctx: SyncContext = {
    ...connectionSession(deps, provider, connection),
    config: connector.config as ConnectorConfig,
    maxBodyBytes: MAX_BODY_BYTES,
    files: fileLimits(deps, user.plan),
  }
  const heartbeat = async () => {
    if (!(await touchJob(deps.db, job, deps.clock.now()))) throw new ClaimLost()
  }
  const count = (counter: Counter, n = 1) =>
    n > 0
      ? deps.db
          .update(syncRuns)
          .set({ [counter]: sql`${syncRuns[counter]} + ${n}` })
          .where(eq(syncRuns.id, runId))
      : undefined

  // 1. The complete listing; an error here ends the run before anything is removed.
  const listed = new Map<string, RemoteItem>()
  for await (const item of provider.list(ctx)) {
    listed.set(item.externalId, item)
    if (listed.size % 200 === 0) await heartbeat()
  }
  // 2. Gone upstream (or deselected): removed first, which also frees room under the plan's limits.
  const known = await knownItems(deps, connector)
  const gone = [...known.keys()].filter((id) => !listed.has(id))
  await heartbeat()
  await count('removed', await removeItems(deps, connector, gone))
  // 3. New and changed items, a batch per transaction. An item found unimportable at the last sync (no text,
  // too large) is not fetched again until its version moves.
  const forgotten = await forgottenItems(deps, connector)
  const skippedBefore = (connector.cursor?.skipped ?? {}) as Record<string, string>
  const skipped: Record<string, string> = {}
  const skip = async (item: RemoteItem) => {
    skipped[item.externalId] = item.version
    await count('skipped')
  }
  const changed: RemoteItem[] = []
  for (const item of listed.values()) {
    if (forgotten.has(item.externalId)) continue
    if (item.skip || skippedBefore[item.externalId] === item.version) await skip(item)
    else if (known.get(item.externalId)?.version !== item.version) changed.push(item)
  }
  // Contents are fetched a few at a time (a provider's latency, not ours, bounds a sync), and each round is
  // written as one batch (bulk.service.ts), in listing order: what is fetched is stored before the next round, so
  // a worker that dies mid-sync leaves its progress behind.
  let fetched: FetchedItem[] = []
  const write = async () => {
    try {
      const { added, updated } = await writeItems(deps, user, connector, fetched)
      await count('added', added)
      await count('updated', updated)
    } catch (error) {
      if (error instanceof LimitReached) {
        await count('added', error.written.added)
        await count('updated', error.written.updated)
      }
      throw error
    }
    fetched = []
  }
  for (let i = 0; i < changed.length; i += FETCHES) {
    const batch = changed.slice(i, i + FETCHES)
    const bodies = await Promise.allSettled(batch.map((item) => provider.content(ctx, item)))
    await heartbeat()
    for (const [j, item] of batch.entries()) {
      const got = bodies[j]!
      if (got.status === 'rejected') {
        if (!(got.reason instanceof SkipItem)) throw got.reason
        await skip(item)
        continue
      }
      const body = got.value.trim() || item.title
      if (Buffer.byteLength(body) > ctx.maxBodyBytes) {
        await skip(item)
        continue
      }
      fetched.push({ item, text: body })
    }
    await write()
  }
  const cursor = { items: listed.size, listed_at: deps.clock.now().toISOString(), skipped }
  await deps.db.update(connectors).set({ cursor }).where(eq(connectors.id, connector.id))
}
