// createApp(deps): cross-cutting plugins, error mapping, and every module mounted. Never listens.
import { Elysia, t } from 'elysia'
import type { Deps } from './deps'
import { accessLog } from './http/access-log'
import { bodyLimit, MAX_BODY_BYTES } from './http/body-limit'
import { cors } from './http/cors'
import { errorHandler } from './http/errors'
import { conditionalGet } from './http/etag'
import './http/formats'
import { idempotency } from './http/idempotency'
import { inputGuard } from './http/input-guard'
import { methodNotAllowed } from './http/methods'
import { checkDatabase } from './lib/database-check'
import { mountOpenApi } from './http/openapi'
import { ErrorCodeSchema } from './http/schemas'
import { mcpRoutes } from './mcp/mcp.routes'
import { accountRoutes } from './modules/account/account.routes'
import { profileRoutes } from './modules/account/profile.routes'
import { settingsRoutes } from './modules/account/settings.routes'
import { statsRoutes } from './modules/account/stats.routes'
import { agentRoutes } from './modules/agent/agent.routes'
import { askRoutes } from './modules/ask/ask.routes'
import { authRoutes } from './modules/auth/auth.routes'
import { credentialsRoutes } from './modules/auth/credentials.routes'
import { billingRoutes } from './modules/billing/billing.routes'
import { connectorsRoutes } from './modules/connectors/connectors.routes'
import { conversationsRoutes } from './modules/conversations/conversations.routes'
import { sourcesRoutes } from './modules/conversations/sources.routes'
import { threadsRoutes } from './modules/threads/threads.routes'
import { filesRoutes } from './modules/documents/files.routes'
import { documentsRoutes } from './modules/documents/documents.routes'
import { historyRoutes } from './modules/documents/history.routes'
import { graphRoutes } from './modules/graph/graph.routes'
import { keysRoutes } from './modules/keys/keys.routes'
import { activityRoutes } from './modules/activity/activity.routes'
import { memoriesRoutes } from './modules/memories/memories.routes'
import { authorizeRoutes } from './modules/oauth-server/authorize.routes'
import { oauthRoutes } from './modules/oauth-server/oauth.routes'
import { searchRoutes } from './modules/search/search.routes'
import { usageRoutes } from './modules/usage/usage.routes'
import { v1Routes } from './modules/v1/v1.routes'
import { embeddingHealth } from './embedding/embedding-backlog'
import { workspacesRoutes } from './modules/workspaces/workspaces.routes'
import { webRoutes } from './web/web.routes'

const Health = t.Object(
  {
    status: t.Literal('ok'),
    version: t.String(),
    database: t.Union([t.Literal('pglite'), t.Literal('postgres')]),
    embeddings: t.Object({
      provider: t.String({ description: 'The provider actually loaded: local | openai | hash, or none when no model is' }),
      model: t.Nullable(t.String({ description: 'The model actually loaded; null when none is' })),
      dtype: t.Nullable(
        t.String({
          description: 'The weights a local model runs on: q8 (int8), fp32 or fp16; null for other providers and when none is loaded',
        }),
      ),
      configured: t.Object({ provider: t.String(), model: t.String() }, { description: 'EMBEDDING_PROVIDER and EMBEDDING_MODEL' }),
      available: t.Boolean({ description: 'false: search runs by keyword only (an unavailable model is retried in the background)' }),
      reason: t.Optional(t.String({ description: 'Why no model is loaded' })),
      backlog: t.Nullable(
        t.Integer({
          description: 'Documents not embedded by the loaded model yet (re-embedded in the background); null when no model is loaded',
        }),
      ),
      failed: t.Nullable(t.Integer({ description: 'Documents whose embedding failed (tried again hourly); null when no model is loaded' })),
    }),
    storage: t.Nullable(
      t.Object({
        data_dir_bytes: t.Integer({ description: 'Every file under DATA_DIR (measured at most every 5 s)' }),
        wal_bytes: t.Integer({ description: "The embedded database's write-ahead log, segments kept for reuse included" }),
        wal_limit_bytes: t.Integer({ description: 'WAL_MAX_MB: checkpoints keep the log within it' }),
        last_checkpoint_at: t.Nullable(t.String({ format: 'date-time', description: 'The last checkpoint since the service started' })),
      }),
      { description: 'The embedded database in DATA_DIR; null on PostgreSQL (whose server manages its own files) and in memory' },
    ),
  },
  { title: 'Health' },
)

const HealthUnavailable = t.Object(
  {
    error: t.String({ description: 'Why the service cannot serve, e.g. "database did not answer within 2 s"' }),
    code: ErrorCodeSchema,
    status: t.Literal('unavailable'),
    version: t.String(),
    database: t.Union([t.Literal('pglite'), t.Literal('postgres')]),
  },
  { title: 'HealthUnavailable' },
)

function storageHealth(deps: Deps) {
  const sizes = deps.databaseStorage?.sizes()
  if (!sizes) return null
  return {
    data_dir_bytes: sizes.dataDirBytes,
    wal_bytes: sizes.walBytes,
    wal_limit_bytes: sizes.walLimitBytes,
    last_checkpoint_at: sizes.lastCheckpointAt?.toISOString() ?? null,
  }
}

export function createApp(deps: Deps) {
  let handle: (request: Request) => Promise<Response> = () => Promise.reject(new Error('app not built yet'))
  // normalize 'typebox': unknown fields are dropped after a type check, never by coercion (Elysia's default
  // cleaner turned `"metadata": "abc"` into `{"0":"a","1":"b","2":"c"}` and `[]` bodies into `{}`).
  // standardHostname false: Elysia finds the path as the first "/" from the 8th character of request.url, not the
  // 12th, which skipped into the path whenever the Host had under four characters (`Host: api` answered 404
  // everywhere; `Host: x` + /mcp/api/keys served /api/keys, past a proxy that lets only /mcp through). Right
  // for every http:// URL, which is what reaches the app: Bun.serve's (serve.ts) and the in-process callers'.
  // aot true: the other handler (ELYSIA_AOT=false) has the 12th character written in.
  const app = new Elysia({ normalize: 'typebox', aot: true, handler: { standardHostname: false } })
    .use(accessLog(deps.log))
    .use(errorHandler(deps.log, MAX_BODY_BYTES))
    .use(cors(deps.config))
    .use(inputGuard())
    .use(bodyLimit(MAX_BODY_BYTES))
    .use(idempotency(deps))
    .use(conditionalGet())
    .get(
      '/',
      async ({ set }) => {
        const down = await checkDatabase(deps.db)
        if (down) {
          set.status = 503
          return {
            error: down,
            code: 'service_unavailable' as const,
            status: 'unavailable' as const,
            version: deps.config.version,
            database: deps.dbKind,
          }
        }
        return {
          status: 'ok' as const,
          version: deps.config.version,
          database: deps.dbKind,
          embeddings: await embeddingHealth(deps),
          storage: storageHealth(deps),
        }
      },
      {
        response: { 200: Health, 503: HealthUnavailable },
        detail: {
          tags: ['health'],
          summary:
            "Health: status, version, database kind, embeddings and the embedded database's sizes; 503 with the reason when the database does not answer (select 1, 2 s)",
        },
      },
    )
    .use(authRoutes(deps))
    .use(credentialsRoutes(deps))
    .use(keysRoutes(deps))
    .use(activityRoutes(deps))
    .use(workspacesRoutes(deps))
    .use(documentsRoutes(deps))
    .use(historyRoutes(deps))
    .use(filesRoutes(deps))
    .use(threadsRoutes(deps))
    .use(memoriesRoutes(deps))
    .use(searchRoutes(deps))
    .use(askRoutes(deps))
    .use(agentRoutes(deps))
    .use(sourcesRoutes(deps))
    .use(conversationsRoutes(deps))
    .use(graphRoutes(deps))
    .use(usageRoutes(deps))
    // The person's own account, one route file per URL: /api/settings, /api/profile (and /api/avatar), /api/stats,
    // /api/account. Grouped, because TypeScript gives up on a chain of this many plugins (TS2589).
    .use(new Elysia().use(settingsRoutes(deps)).use(profileRoutes(deps)).use(statsRoutes(deps)).use(accountRoutes(deps)))
    .use(billingRoutes(deps))
    .use(connectorsRoutes(deps))
    .use(v1Routes(deps))
    // The dashboard (/app): the same origin as the API, so its session cookie and Origin rule hold as they are.
    .use(webRoutes())
    // MCP clients that connect by URL find their way here from /mcp's 401 (discovery, registration, consent, tokens).
    .use(oauthRoutes(deps))
    .use(authorizeRoutes(deps))
    // MCP tools call the REST API in-process, through the same auth, validation and rate limits.
    .use(mcpRoutes(deps, (request): Promise<Response> => handle(request)))
  const mounted = mountOpenApi(app, deps.config)
  mounted.wrap(methodNotAllowed(() => mounted.routes) as Parameters<typeof mounted.wrap>[0])
  handle = (request) => mounted.handle(request)
  return mounted
}

export type App = ReturnType<typeof createApp>
