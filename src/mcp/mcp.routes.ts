// /mcp: the MCP server over Streamable HTTP for callers with a bearer key. Stateless (a new server and transport
// per POST), and every tool calls the REST API in-process with the caller's own Authorization header.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { Elysia, t } from 'elysia'
import type { Deps } from '../deps'
import { authenticate } from '../http/auth'
import { unauthorized } from '../http/errors'
import { errors } from '../http/schemas'
import { createMcpServer, type ApiCaller } from './mcp.server'

const JsonRpcMessage = t.Object(
  {
    jsonrpc: t.Literal('2.0'),
    id: t.Optional(t.Union([t.String(), t.Number()])),
    method: t.Optional(t.String({ description: 'initialize, tools/list, tools/call, …' })),
    params: t.Optional(t.Record(t.String(), t.Unknown())),
  },
  { additionalProperties: t.Unknown(), title: 'JsonRpcMessage', description: 'A JSON-RPC 2.0 message of the Model Context Protocol' },
)
const JsonRpcResponse = t.Object(
  {
    jsonrpc: t.Literal('2.0'),
    id: t.Union([t.String(), t.Number(), t.Null()]),
    result: t.Optional(t.Record(t.String(), t.Unknown())),
    error: t.Optional(t.Object({ code: t.Integer(), message: t.String() }, { additionalProperties: t.Unknown() })),
  },
  { additionalProperties: t.Unknown(), title: 'JsonRpcResponse' },
)

const STATELESS = 'this MCP endpoint is stateless: POST each JSON-RPC message to /mcp'

export function mcpRoutes(deps: Deps, handle: (request: Request) => Promise<Response>) {
  const notAllowed = ({ set }: { set: { status?: number | string; headers: Record<string, string | number> } }) => {
    set.status = 405
    set.headers.allow = 'POST'
    return { error: STATELESS }
  }
  return new Elysia()
    .post(
      '/mcp',
      async ({ request, body }) => {
        const api = inProcessCaller(deps, handle, request.headers.get('authorization')!)
        const server = createMcpServer(api, { version: deps.config.version, log: deps.log })
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
        await server.connect(transport)
        try {
          // Elysia has parsed (and size-checked) the body already; the transport takes it as is.
          return await transport.handleRequest(request, { parsedBody: body })
        } finally {
          await server.close()
        }
      },
      {
        // Before validation, as the auth macro does: a caller without a key learns 401, not the body's shape.
        // Bearer only: the tools replay the caller's Authorization header, which a session cookie cannot give.
        async transform({ request }) {
          if (!request.headers.get('authorization')) throw unauthorized('missing credentials: send "Authorization: Bearer <API key>"')
          await authenticate(deps, request, () => {})
        },
        body: JsonRpcMessage,
        response: { 200: JsonRpcResponse, ...errors(400, 401, 413) },
        detail: {
          tags: ['mcp'],
          summary: 'MCP over Streamable HTTP (stateless, JSON responses): the tools search, get_document, add_document, save_learnings, get_workspace_context, list_workspaces, ask',
          security: [{ bearer: [] }],
        },
      },
    )
    .get('/mcp', notAllowed, { detail: { hide: true } })
    .delete('/mcp', notAllowed, { detail: { hide: true } })
}

/** Each tool's REST call goes through the app itself, so it meets the same auth, validation and rate limits. */
function inProcessCaller(deps: Deps, handle: (request: Request) => Promise<Response>, authorization: string): ApiCaller {
  return (method, path, body, signal) => {
    const headers: Record<string, string> = { authorization }
    if (body !== undefined) headers['content-type'] = 'application/json'
    return handle(new Request(deps.config.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal }))
  }
}
