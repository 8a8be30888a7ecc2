// MCP tools over workspaces: list_workspaces (GET /api/workspaces) and get_workspace_context
// (GET /api/workspaces/:id/context, the pack an agent reads before it starts work).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Logger } from '../../log'
import { callJson, toolHandler, withQuery, type ApiCaller } from '../mcp.tool'
import { ContextQuery, WorkspaceListQuery } from '../../modules/workspaces/workspaces.schemas'
import { PAGE, routeInput } from './route-input'
import { Id, READ_ONLY } from './tool.schemas'

interface ApiWorkspace {
  id: string
  name: string
  description: string | null
  document_count: number
}

// Loose objects: the pack is handed back as the API gives it, so fields the API adds pass through.
const ContextItem = z.looseObject({ id: z.string(), kind: z.string(), title: z.string(), excerpt: z.string(), tags: z.array(z.string()) })

export function registerWorkspaceTools(server: McpServer, api: ApiCaller | null, log?: Logger) {
  server.registerTool(
    'list_workspaces',
    {
      title: 'List workspaces',
      description: 'Your workspaces with their ids and how many active documents each holds.',
      inputSchema: routeInput(WorkspaceListQuery, ['limit', 'cursor'], { describe: PAGE }),
      outputSchema: {
        workspaces: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().nullable(), document_count: z.number() })),
        next_cursor: z.string().nullable(),
      },
      annotations: READ_ONLY,
    },
    toolHandler('list_workspaces', api, log, async (api, page, signal) => {
      const found = await callJson<{ data: ApiWorkspace[]; next_cursor: string | null }>(
        api,
        'GET',
        withQuery('/api/workspaces', page),
        undefined,
        signal,
      )
      return {
        workspaces: found.data.map(({ id, name, description, document_count }) => ({ id, name, description, document_count })),
        next_cursor: found.next_cursor,
      }
    }),
  )

  server.registerTool(
    'get_workspace_context',
    {
      title: 'Get workspace context',
      description:
        'The context pack of a workspace: pinned items, routines, facts by topic, recent items and counts. ' +
        'Read it at the start of a task; max_tokens trims it to a budget.',
      inputSchema: {
        workspace_id: Id('The workspace (from list_workspaces)'),
        ...routeInput(ContextQuery, ['max_tokens'], { describe: { max_tokens: 'Trim the pack to about this many tokens' } }),
      },
      outputSchema: z.looseObject({
        workspace: z.looseObject({ id: z.string(), name: z.string(), description: z.string().nullable() }),
        pinned: z.array(ContextItem),
        routines: z.array(ContextItem),
        topic_facts: z.array(z.looseObject({ topic: z.string(), facts: z.array(ContextItem) })),
        recent: z.array(ContextItem),
        stats: z.record(z.string(), z.unknown()),
        truncated: z.boolean().describe('true when max_tokens left items out'),
      }),
      annotations: READ_ONLY,
    },
    toolHandler('get_workspace_context', api, log, async (api, { workspace_id, max_tokens }, signal) => {
      const path = withQuery(`/api/workspaces/${encodeURIComponent(workspace_id)}/context`, { max_tokens })
      return callJson<Record<string, unknown>>(api, 'GET', path, undefined, signal)
    }),
  )
}
