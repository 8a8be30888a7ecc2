// MCP tool save_learnings: POST /api/memories/batch-draft — learnings become drafts a person approves
// before they count as memories, so an agent can propose but never silently rewrite what is known.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Logger } from '../../log'
import { BatchDraftBody, Learning } from '../../modules/memories/memories.schemas'
import { callJson, toolHandler, type ApiCaller } from '../mcp.tool'
import { routeInput, routeList } from './route-input'
import { ADDITIVE, documentRef, DocumentRef, type ApiDocument } from './tool.schemas'

/** A learning as POST /api/memories/batch-draft takes it. */
const LearningInput = z.object(
  routeInput(Learning, ['kind', 'title', 'body', 'tags', 'metadata'], {
    describe: {
      kind: 'fact, preference, decision, routine or lesson',
      title: 'One line that states it',
      body: 'The learning itself, with its context',
    },
  }),
)

export function registerMemoryTools(server: McpServer, api: ApiCaller | null, log?: Logger) {
  server.registerTool(
    'save_learnings',
    {
      title: 'Propose learnings',
      description:
        'Save 1 to 25 things learned (facts, preferences, decisions, routines, lessons) as drafts pending approval: ' +
        'they appear as memories only once a person signed in approves them; nothing written with an API key becomes an ' +
        'active memory directly. To correct a memory, give its id as metadata.supersedes: approval replaces it. All are saved or none.',
      inputSchema: {
        ...routeInput(BatchDraftBody, ['workspace_id'], {
          describe: { workspace_id: 'The workspace they belong to (from list_workspaces)' },
        }),
        learnings: routeList(BatchDraftBody, 'learnings', LearningInput),
      },
      outputSchema: {
        status: z.literal('pending_approval'),
        drafts: z.array(z.object(DocumentRef)),
      },
      annotations: ADDITIVE(false),
    },
    toolHandler('save_learnings', api, log, async (api, input, signal) => {
      const saved = await callJson<{ data: ApiDocument[] }>(api, 'POST', '/api/memories/batch-draft', input, signal)
      return { status: 'pending_approval', drafts: saved.data.map(documentRef) }
    }),
  )
}
