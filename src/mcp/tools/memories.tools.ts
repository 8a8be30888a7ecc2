// MCP tool save_learnings: POST /api/memories/batch-draft — learnings become drafts a person approves
// before they count as memories, so an agent can propose but never silently rewrite what is known.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Logger } from '../../log'
import { MEMORY_KINDS } from '../../modules/documents/documents.model'
import { callJson, toolHandler, type ApiCaller } from '../mcp.tool'
import { ADDITIVE, documentRef, DocumentRef, Id, Tags, type ApiDocument } from './tool.schemas'

const Learning = z.object({
  kind: z.enum(MEMORY_KINDS).describe('fact, preference, decision, routine or lesson'),
  title: z.string().min(1).max(500).describe('One line that states it'),
  body: z.string().min(1).describe('The learning itself, with its context'),
  tags: Tags.optional(),
  metadata: z
    .object({
      topic: z.string().max(100).optional().describe('Groups facts in the workspace context'),
      confidence: z.number().min(0).max(1).optional(),
      evidence: z.string().max(4000).optional().describe('Why you believe it: a quote, a source'),
      supersedes: z.uuid().optional().describe('The id of a memory this one replaces; archived when this one is approved'),
    })
    .optional(),
})

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
        workspace_id: Id('The workspace they belong to (from list_workspaces)'),
        learnings: z.array(Learning).min(1).max(25),
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
