// GET /api/graph: nodes and edges of a workspace, with link statuses and scores.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors, TimeQuery, Uuid } from '../../http/schemas'
import { readTimeRange } from '../../lib/time-range'
import { getGraph } from './graph.service'

const Graph = t.Object(
  {
    nodes: t.Array(t.Object({ id: Uuid(), title: t.String(), kind: t.String(), tags: t.Array(t.String()), pinned: t.Boolean() })),
    edges: t.Array(
      t.Object({
        id: Uuid(),
        source: Uuid(),
        target: Uuid(),
        score: t.Number(),
        status: t.String({ description: 'pending (a suggestion) | completed' }),
        origin: t.String({ description: 'suggested | manual' }),
      }),
    ),
    truncated: t.Boolean({ description: 'true when the workspace has more active documents than `limit`' }),
  },
  { title: 'Graph' },
)

export function graphRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' })
    .use(authPlugin(deps))
    .get('/graph', ({ user, query }) => getGraph(deps, user, query.workspace_id, query.limit, readTimeRange(query)), {
      auth: true,
      query: t.Object({
        workspace_id: Uuid(),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 2000, default: 500, error: 'limit must be an integer from 1 to 2000' })),
        ...TimeQuery,
      }),
      response: { 200: Graph, ...errors(400, 401, 404) },
      detail: {
        tags: ['documents'],
        summary:
          "A workspace's graph: active documents (that happened in [after, before) when given) as nodes, pending and completed links between them as edges with scores",
      },
    })
}
