// GET /api/graph: nodes and edges of a workspace, with link statuses and scores, and memories joined to their evidence;
// POST /api/graph/suggestions/accept: every pending suggestion of a workspace above a score made a link at once.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { errors, TimeQuery, Uuid } from '../../http/schemas'
import { readTimeRange } from '../../lib/time-range'
import { acceptSuggestions, getGraph } from './graph.service'

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
    evidence: t.Array(
      t.Object({
        source: Uuid('The memory'),
        target: Uuid('A node, or one of `sources`'),
        kind: t.Union([t.Literal('evidence'), t.Literal('supersedes')], {
          description:
            'evidence: what the memory was drafted from (metadata.evidence, thread_id, conversation_id) | supersedes: the memory it replaced',
        }),
      }),
      { description: 'What memories came from, read from their metadata; not links' },
    ),
    sources: t.Array(
      t.Object({
        id: Uuid(),
        title: t.String(),
        kind: t.Union([t.Literal('thread'), t.Literal('chat')], {
          description:
            'thread: a conversation of messages (/api/threads/{id}) | chat: an ask or agent conversation (/api/conversations/{id})',
        }),
      }),
      { description: 'The conversations evidence edges end at (their messages are not nodes)' },
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
          "A workspace's graph: active documents (that happened in [after, before) when given) as nodes, pending and completed links between them as edges with scores, and memories joined to what they were drafted from",
      },
    })
    .post('/graph/suggestions/accept', ({ user, body }) => acceptSuggestions(deps, user, body.workspace_id, body.min_score), {
      auth: true,
      body: t.Object({
        workspace_id: Uuid(),
        min_score: t.Number({ minimum: 0, maximum: 1, error: 'min_score must be a number from 0 to 1' }),
      }),
      response: {
        200: t.Object(
          {
            accepted: t.Integer({ description: 'Suggestions made links by this call (0 when run again)' }),
            min_score: t.Number(),
          },
          { title: 'AcceptedSuggestions' },
        ),
        ...errors(400, 401, 403, 404),
      },
      detail: {
        tags: ['documents'],
        summary:
          "Accept every pending suggestion between a workspace's active documents whose score is at least min_score: each becomes a completed link",
      },
    })
}
