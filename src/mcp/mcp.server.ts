// createMcpServer(api): the MCP server shared by stdio (`bun run mcp`) and /mcp. Every tool is a thin adapter
// over one REST call (docs/decisions.md#mcp-adapter), so MCP callers meet the same auth, validation and limits as REST.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Logger } from '../log'
import { NO_TOKEN_MESSAGE, type ApiCaller } from './mcp.tool'
import { registerAskTool } from './tools/ask.tool'
import { registerDocumentTools } from './tools/documents.tools'
import { registerFileTools } from './tools/files.tools'
import { registerMemoryTools } from './tools/memories.tools'
import { registerThreadTools } from './tools/threads.tools'
import { registerWorkspaceTools } from './tools/workspaces.tools'

export type { ApiCaller } from './mcp.tool'
export { NO_TOKEN_MESSAGE } from './mcp.tool'

export const MCP_TOOLS = [
  'search',
  'get_document',
  'add_document',
  'add_documents',
  'upload_file',
  'add_messages',
  'read_thread',
  'list_threads',
  'save_learnings',
  'get_workspace_context',
  'list_workspaces',
  'ask',
] as const

export interface McpServerOptions {
  version: string
  /** Where unexpected tool failures (an unreachable service) are logged; stderr only under stdio. */
  log?: Logger
}

const INSTRUCTIONS =
  'A knowledge memory: documents and memories in workspaces. Start with list_workspaces and get_workspace_context, ' +
  'find things with search and read them with get_document, answer questions with ask. Store new material with ' +
  'add_document, and a conversation message by message with add_messages (read_thread reads it back in order); ' +
  'propose what you learned with save_learnings. Memories (facts, preferences, decisions, routines, lessons) ' +
  'written here, by either tool, are drafts until a person approves them: none becomes active directly.'

/** `api` null: no API token was given; the server still starts and every tool says how to give one. */
export function createMcpServer(api: ApiCaller | null, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: 'knowledge-memory-service', version: options.version },
    { instructions: api ? INSTRUCTIONS : `${NO_TOKEN_MESSAGE}. ${INSTRUCTIONS}` },
  )
  registerDocumentTools(server, api, options.log)
  registerFileTools(server, api, options.log)
  registerThreadTools(server, api, options.log)
  registerMemoryTools(server, api, options.log)
  registerWorkspaceTools(server, api, options.log)
  registerAskTool(server, api, options.log)
  // The SDK advertises tools.listChanged as soon as a tool is registered; the tool set never changes (and a
  // stateless /mcp could not notify anyone), so clients are not told to wait for notifications that never come.
  server.server.registerCapabilities({ tools: { listChanged: false } })
  return server
}
