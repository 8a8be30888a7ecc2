// createApp(deps): cross-cutting plugins, error mapping, and every module mounted. Never listens.
import { Elysia, t } from 'elysia'
import type { Deps } from './deps'
import { accessLog } from './http/access-log'
import { bodyLimit, MAX_BODY_BYTES } from './http/body-limit'
import { cors } from './http/cors'
import { errorHandler } from './http/errors'
import { checkDatabase } from './lib/database-check'
import { mountOpenApi } from './http/openapi'
import { mcpRoutes } from './mcp/mcp.routes'
import { accountRoutes } from './modules/account/account.routes'
import { agentRoutes } from './modules/agent/agent.routes'
import { askRoutes } from './modules/ask/ask.routes'
import { authRoutes } from './modules/auth/auth.routes'
import { billingRoutes } from './modules/billing/billing.routes'
import { connectorsRoutes } from './modules/connectors/connectors.routes'
import { conversationsRoutes } from './modules/conversations/conversations.routes'
import { documentsRoutes } from './modules/documents/documents.routes'
import { graphRoutes } from './modules/graph/graph.routes'
import { keysRoutes } from './modules/keys/keys.routes'
import { memoriesRoutes } from './modules/memories/memories.routes'
import { searchRoutes } from './modules/search/search.routes'
import { usageRoutes } from './modules/usage/usage.routes'
import { v1Routes } from './modules/v1/v1.routes'
import { workspacesRoutes } from './modules/workspaces/workspaces.routes'

const Health = t.Object(
  {
    status: t.Literal('ok'),
    version: t.String(),
    database: t.Union([t.Literal('pglite'), t.Literal('postgres')]),
    embeddings: t.Object({
      provider: t.String(),
      model: t.String(),
      available: t.Boolean({ description: 'false: search runs by keyword only' }),
      reason: t.Optional(t.String()),
    }),
  },
  { title: 'Health' },
)

const HealthUnavailable = t.Object(
  {
    error: t.String({ description: 'Why the service cannot serve, e.g. "database did not answer within 2 s"' }),
    status: t.Literal('unavailable'),
    version: t.String(),
    database: t.Union([t.Literal('pglite'), t.Literal('postgres')]),
  },
  { title: 'HealthUnavailable' },
)

export function createApp(deps: Deps) {
  let handle: (request: Request) => Promise<Response> = () => Promise.reject(new Error('app not built yet'))
  const app = new Elysia()
    .use(accessLog(deps.log))
    .use(errorHandler(deps.log, MAX_BODY_BYTES))
    .use(cors(deps.config))
    .use(bodyLimit(MAX_BODY_BYTES))
    .get(
      '/',
      async ({ set }) => {
        const down = await checkDatabase(deps.db)
        if (down) {
          set.status = 503
          return { error: down, status: 'unavailable' as const, version: deps.config.version, database: deps.dbKind }
        }
        return { status: 'ok' as const, version: deps.config.version, database: deps.dbKind, embeddings: deps.embeddingStatus }
      },
      {
        response: { 200: Health, 503: HealthUnavailable },
        detail: { tags: ['health'], summary: 'Health: status, version and database kind; 503 with the reason when the database does not answer (select 1, 2 s)' },
      },
    )
    .use(authRoutes(deps))
    .use(keysRoutes(deps))
    .use(workspacesRoutes(deps))
    .use(documentsRoutes(deps))
    .use(memoriesRoutes(deps))
    .use(searchRoutes(deps))
    .use(askRoutes(deps))
    .use(agentRoutes(deps))
    .use(conversationsRoutes(deps))
    .use(graphRoutes(deps))
    .use(usageRoutes(deps))
    .use(accountRoutes(deps))
    .use(billingRoutes(deps))
    .use(connectorsRoutes(deps))
    .use(v1Routes(deps))
    // MCP tools call the REST API in-process, through the same auth, validation and rate limits.
    .use(mcpRoutes(deps, (request): Promise<Response> => handle(request)))
  const mounted = mountOpenApi(app, deps.config)
  handle = (request) => mounted.handle(request)
  return mounted
}

export type App = ReturnType<typeof createApp>
