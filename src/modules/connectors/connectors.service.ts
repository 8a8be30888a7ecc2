// Connectors: create one (plan-gated) and get the provider's consent URL, authorize it again, list, read,
// change its selection, delete it, list a wiki's spaces, and queue a sync run.
import { and, desc, eq, inArray, sql } from 'drizzle-orm'
import { connections, connectors, documents, syncRuns } from '../../../db/schema'
import type { Deps } from '../../deps'
import { AppError, badRequest, conflict, notFound } from '../../http/errors'
import { enqueueJob } from '../../queue/job-kinds'
import { lockUser } from '../../lib/locks'
import { landingUrl } from '../../oauth-client/landing'
import { appOf, authorizationUrl } from '../../oauth-client/oauth.client'
import { issueState } from '../../oauth-client/oauth.state'
import { assertWithinLimit } from '../../plans'
import { CONNECTOR_TYPES, type ConnectorConfig, type ConnectorType } from '../../connectors/provider'
import { ProviderError } from '../../connectors/provider-api'
import { connectionSession } from '../../connectors/provider-session'
import { providerOf } from '../../connectors/providers'
import type { ConnectorRow } from './sync.documents'
import type { SyncRunRow } from './sync.engine'
import { recordActivity } from '../activity/activity.service'
import type { SessionUser } from '../auth/sessions.service'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'

const LABELS: Record<ConnectorType, string> = { confluence: 'Confluence', google_drive: 'Google Drive', notion: 'Notion' }

/**
 * Each connector type, and whether this server can connect it: a type is configured when its OAuth app's client
 * id and secret are set (`setting` names those variables, so the dashboard can say what enables it instead of
 * failing with 503 after a click).
 */
export function listProviders(deps: Deps) {
  return {
    data: CONNECTOR_TYPES.map((type) => {
      const oauth = providerOf(type).oauth
      const P = oauth.toUpperCase()
      return { type, name: LABELS[type], configured: deps.config.oauth[oauth] !== null, setting: [`${P}_CLIENT_ID`, `${P}_CLIENT_SECRET`] }
    }),
  }
}

export const connectorCallbackUrl = (deps: Deps) => `${deps.config.baseUrl}/api/connectors/oauth/callback`

export const toRunDto = (r: SyncRunRow) => ({
  id: r.id,
  connector_id: r.connector_id,
  status: r.status,
  added: r.added,
  updated: r.updated,
  removed: r.removed,
  skipped: r.skipped,
  error: r.error,
  created_at: r.created_at.toISOString(),
  started_at: r.started_at?.toISOString() ?? null,
  finished_at: r.finished_at?.toISOString() ?? null,
})

export const toConnectorDto = (c: ConnectorRow, lastRun: SyncRunRow | null) => ({
  id: c.id,
  type: c.type,
  label: c.label ?? LABELS[c.type as ConnectorType] ?? c.type,
  status: c.status,
  workspace_id: c.workspace_id,
  connection_id: c.connection_id,
  config: c.config as ConnectorConfig,
  last_sync_at: c.last_sync_at?.toISOString() ?? null,
  last_run: lastRun ? toRunDto(lastRun) : null,
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
})

async function latestRuns(deps: Deps, ids: string[]): Promise<Map<string, SyncRunRow>> {
  if (ids.length === 0) return new Map()
  const rows = await deps.db
    .selectDistinctOn([syncRuns.connector_id])
    .from(syncRuns)
    .where(inArray(syncRuns.connector_id, ids))
    .orderBy(syncRuns.connector_id, desc(syncRuns.id))
  return new Map(rows.map((r) => [r.connector_id, r]))
}

export async function findConnector(deps: Deps, userId: string, id: string): Promise<ConnectorRow> {
  const [row] = await deps.db
    .select()
    .from(connectors)
    .where(and(eq(connectors.id, id), eq(connectors.user_id, userId)))
  if (!row) throw notFound(`connector ${id} not found`)
  return row
}

export async function connectorDto(deps: Deps, row: ConnectorRow) {
  return toConnectorDto(row, (await latestRuns(deps, [row.id])).get(row.id) ?? null)
}

export async function listConnectors(deps: Deps, user: SessionUser) {
  const rows = await deps.db.select().from(connectors).where(eq(connectors.user_id, user.id)).orderBy(connectors.id)
  const runs = await latestRuns(
    deps,
    rows.map((r) => r.id),
  )
  return { data: rows.map((r) => toConnectorDto(r, runs.get(r.id) ?? null)) }
}

export async function getConnector(deps: Deps, user: SessionUser, id: string) {
  const row = await findConnector(deps, user.id, id)
  const runs = await deps.db.select().from(syncRuns).where(eq(syncRuns.connector_id, id)).orderBy(desc(syncRuns.id)).limit(10)
  return { ...toConnectorDto(row, runs[0] ?? null), runs: runs.map(toRunDto) }
}

/** Each type takes only its own selection key (spaces, folders or pages). */
function checkConfig(type: ConnectorType, config: Record<string, string[]> | undefined): ConnectorConfig | undefined {
  if (!config) return undefined
  const key = providerOf(type).selectionKey
  const other = Object.keys(config).find((k) => k !== key)
  if (other) throw badRequest(`config.${other} does not apply to a ${type} connector: it takes ${key}`)
  return { [key]: [...new Set(config[key] ?? [])] }
}

async function startAuthorization(deps: Deps, user: SessionUser, connector: ConnectorRow, redirectTo: string | undefined): Promise<string> {
  const provider = providerOf(connector.type)
  const landing = redirectTo ? landingUrl(deps, redirectTo) : null
  const { state, codeVerifier } = await issueState(deps, provider.oauth, user.id, {
    purpose: 'connector',
    connector_id: connector.id,
    redirect_to: landing,
  })
  return authorizationUrl(deps, provider.oauth, connectorCallbackUrl(deps), state, codeVerifier, {
    scopes: provider.scopes,
    extraParams: provider.authorizeParams,
  })
}

const aboutConnector = (row: ConnectorRow) => ({
  object_type: 'connector' as const,
  object_id: row.id,
  title: row.label,
  workspace_id: row.workspace_id,
})

export async function createConnector(
  deps: Deps,
  user: SessionUser,
  input: { type: ConnectorType; label?: string; workspace_id?: string; config?: Record<string, string[]>; redirect_to?: string },
) {
  appOf(deps, providerOf(input.type).oauth) // 503 before anything is stored
  if (input.redirect_to) landingUrl(deps, input.redirect_to)
  const config = checkConfig(input.type, input.config) ?? {}
  const now = deps.clock.now()
  const connector = await deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'connectors')
    const [{ n }] = (await tx.select({ n: sql<number>`count(*)::int` }).from(connectors).where(eq(connectors.user_id, user.id))) as [
      { n: number },
    ]
    assertWithinLimit(deps, user.plan, 'connectors', n)
    const workspaceId = await resolveWorkspaceId(tx, user.id, input.workspace_id)
    const [row] = await tx
      .insert(connectors)
      .values({
        id: deps.ids.next(),
        user_id: user.id,
        type: input.type,
        label: input.label?.trim() || LABELS[input.type],
        status: 'pending_auth',
        workspace_id: workspaceId,
        config,
        created_at: now,
        updated_at: now,
      })
      .returning()
    await recordActivity(tx, deps, user, { action: 'connector.create', ...aboutConnector(row!), summary: { type: input.type } })
    return row!
  })
  return {
    connector: toConnectorDto(connector, null),
    authorization_url: await startAuthorization(deps, user, connector, input.redirect_to),
  }
}

/** A new consent for an existing connector (after a disconnect, or when the provider stopped accepting its token). */
export async function authorizeConnector(deps: Deps, user: SessionUser, id: string, redirectTo: string | undefined) {
  const connector = await findConnector(deps, user.id, id)
  appOf(deps, providerOf(connector.type).oauth)
  return { connector: await connectorDto(deps, connector), authorization_url: await startAuthorization(deps, user, connector, redirectTo) }
}

export async function updateConnector(
  deps: Deps,
  user: SessionUser,
  id: string,
  input: { label?: string; workspace_id?: string; config?: Record<string, string[]> },
) {
  const current = await findConnector(deps, user.id, id)
  const config = checkConfig(current.type as ConnectorType, input.config)
  const workspaceId = input.workspace_id ? await resolveWorkspaceId(deps.db, user.id, input.workspace_id) : undefined
  const [row] = await deps.db
    .update(connectors)
    .set({
      ...(input.label !== undefined ? { label: input.label.trim() } : {}),
      ...(workspaceId ? { workspace_id: workspaceId } : {}),
      ...(config ? { config } : {}),
      updated_at: deps.clock.now(),
    })
    .where(eq(connectors.id, id))
    .returning()
  await recordActivity(deps.db, deps, user, {
    action: 'connector.update',
    ...aboutConnector(row!),
    summary: { fields: Object.keys(input) },
  })
  return connectorDto(deps, row!)
}

/** Removes the connector and its runs; its documents stay unless asked (they are the user's now). */
export async function deleteConnector(deps: Deps, user: SessionUser, id: string, deleteDocuments: boolean): Promise<void> {
  const connector = await findConnector(deps, user.id, id)
  await deps.db.transaction(async (tx) => {
    const gone = deleteDocuments
      ? await tx
          .delete(documents)
          .where(and(eq(documents.user_id, user.id), eq(documents.source_ref, id), eq(documents.source, 'connector')))
          .returning({ id: documents.id })
      : []
    await tx.delete(connectors).where(eq(connectors.id, id))
    await recordActivity(tx, deps, user, {
      action: 'connector.delete',
      ...aboutConnector(connector),
      summary: { documents_deleted: gone.length },
    })
  })
}

export async function listWikiSpaces(deps: Deps, user: SessionUser, id: string, wiki: string) {
  const connector = await findConnector(deps, user.id, id)
  const provider = providerOf(connector.type)
  if (!provider.spaces) throw badRequest(`a ${connector.type} connector has no spaces: only wiki connectors (confluence) do`)
  if (wiki !== connector.type) throw notFound(`connector ${id} is a ${connector.type} connector: use /${connector.type}/spaces`)
  const [connection] = connector.connection_id
    ? await deps.db.select().from(connections).where(eq(connections.id, connector.connection_id))
    : []
  if (connector.status !== 'active' || !connection) throw conflict('the connector is not connected yet: complete its authorization first')
  const spaces = await provider.spaces(connectionSession(deps, provider, connection)).catch(providerFailure)
  const selected = new Set((connector.config as ConnectorConfig).spaces ?? [])
  return { data: spaces.map((s) => ({ ...s, selected: selected.has(s.key) })) }
}

/** A provider that fails a request made for the client is the provider's failure (502 provider_error), not our 500. */
export function providerFailure(error: unknown): never {
  throw error instanceof ProviderError ? new AppError(502, error.message) : error
}

/** Queues a run, or answers the one already queued or running (never two at once for a connector). */
export async function triggerSync(deps: Deps, user: SessionUser, id: string) {
  const connector = await findConnector(deps, user.id, id)
  if (connector.status !== 'active')
    throw conflict('the connector is not connected: authorize it first (POST /api/connectors/:id/authorize)')
  return toRunDto(await queueRun(deps, connector))
}

export async function queueRun(deps: Deps, connector: ConnectorRow): Promise<SyncRunRow> {
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, connector.id, 'sync')
    const [active] = await tx
      .select()
      .from(syncRuns)
      .where(and(eq(syncRuns.connector_id, connector.id), inArray(syncRuns.status, ['queued', 'running'])))
      .limit(1)
    if (active) return active
    const [run] = await tx
      .insert(syncRuns)
      .values({
        id: deps.ids.next(),
        user_id: connector.user_id,
        connector_id: connector.id,
        status: 'queued',
        created_at: deps.clock.now(),
      })
      .returning()
    await enqueueJob(tx, deps, 'sync-connector', { run_id: run!.id }, connector.user_id)
    return run!
  })
}
