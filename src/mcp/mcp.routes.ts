// /mcp: the MCP server over Streamable HTTP for callers with a bearer key or an OAuth access token (MCP clients
// that connect by URL). Stateless (a new server and transport per POST), and every tool calls the REST API
// in-process as the caller, through the same auth macro, validation and rate limits.
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { Elysia, t } from 'elysia'
import type { Deps } from '../deps'
import { actAs, type Principal } from '../http/auth'
import { AppError } from '../http/errors'
import { ErrorBody, errors, McpErrorBody, Text } from '../http/schemas'
import { authenticateMcp } from './mcp.auth'
import { encodeBody } from './mcp.tool'
import { createMcpServer, MCP_TOOLS, type ApiCaller } from './mcp.server'

// What the transport reads: a request (a method; without an id, a notification) or a response to one of the
// server's own requests (an id and a result or an error), with no other member at the top (the SDK's schemas
// are strict there). Anything else is its JSON-RPC parse error, a 400.
// The SDK reads a numeric id as a safe integer only.
const RpcId = t.Union([t.String(), t.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })])
const JsonRpcMessage = t.Union(
  [
    t.Object(
      {
        jsonrpc: t.Literal('2.0'),
        id: t.Optional(RpcId),
        method: Text({ minLength: 1, description: 'initialize, tools/list, tools/call, …' }),
        params: t.Optional(t.Record(t.String(), t.Unknown())),
      },
      { additionalProperties: false, title: 'JsonRpcRequest' },
    ),
    t.Object(
      { jsonrpc: t.Literal('2.0'), id: RpcId, result: t.Record(t.String(), t.Unknown()) },
      { additionalProperties: false, title: 'JsonRpcResult' },
    ),
    t.Object(
      {
        jsonrpc: t.Literal('2.0'),
        id: RpcId,
        error: t.Object({ code: t.Integer(), message: t.String() }, { additionalProperties: t.Unknown() }),
      },
      { additionalProperties: false, title: 'JsonRpcErrorMessage' },
    ),
  ],
  {
    title: 'JsonRpcMessage',
    description: 'A JSON-RPC 2.0 message of the Model Context Protocol',
    error: 'body must be a JSON-RPC 2.0 request (method) or response (id with result or error)',
  },
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
/** The transport's own refusals (406, and a 400 for a message it cannot read) come in JSON-RPC's envelope. */
const JsonRpcError = t.Object(
  {
    jsonrpc: t.Literal('2.0'),
    id: t.Union([t.String(), t.Number(), t.Null()], { description: 'The id of the message refused; null when it could not be read' }),
    error: t.Object({ code: t.Integer(), message: t.String() }, { additionalProperties: t.Unknown() }),
  },
  { additionalProperties: t.Unknown(), title: 'JsonRpcError' },
)

const STATELESS = 'this MCP endpoint is stateless: POST each JSON-RPC message to /mcp'

/** The caller of each /mcp request, from `transform` (before validation) to the handler. */
const callers = new WeakMap<Request, Principal>()

export function mcpRoutes(deps: Deps, handle: (request: Request) => Promise<Response>) {
  const notAllowed = () => {
    throw new AppError(405, STATELESS, { allow: 'POST' })
  }
  return new Elysia()
    .post(
      '/mcp',
      async ({ request, body }) => {
        const api = inProcessCaller(handle, callers.get(request)!)
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
        async transform({ request }) {
          callers.set(request, await authenticateMcp(deps, request))
        },
        body: JsonRpcMessage,
        response: {
          200: JsonRpcResponse,
          202: t.Void({ description: 'A notification or a response was accepted (no body)' }),
          ...errors(413),
          401: McpErrorBody,
          400: t.Union([ErrorBody, JsonRpcError]),
          406: t.Union([JsonRpcError], {
            description: 'Accept must list both application/json and text/event-stream (MCP Streamable HTTP)',
          }),
        },
        detail: {
          tags: ['mcp'],
          summary: `MCP over Streamable HTTP (stateless, JSON responses): the tools ${MCP_TOOLS.join(', ')}`,
          description:
            'Authorization: an API key, or an OAuth access token that an MCP client gets by itself: a 401 carries `WWW-Authenticate: Bearer resource_metadata="<BASE_URL>/.well-known/oauth-protected-resource/mcp"`, ' +
            'which leads to dynamic registration, the consent page and the token endpoint (see the oauth tag). ' +
            "A 401's body is a JSON-RPC error (the sentence in `error.message`, the code in `error.data.code`), which MCP clients show.",
          security: [{ bearer: [] }, { mcpOAuth: ['mcp'] }],
        },
      },
    )
    .get('/mcp', notAllowed, { detail: { hide: true } })
    .delete('/mcp', notAllowed, { detail: { hide: true } })
}

/** Where in-process calls are addressed: an http:// URL, the only kind the app routes (app.ts, standardHostname);
 * BASE_URL may be https. */
const IN_PROCESS_ORIGIN = 'http://localhost'

/** Each tool's REST call goes through the app itself, as the caller, so it meets the same auth, validation and
 * rate limits. The principal travels with the request object (an OAuth token is not good on /api itself). */
function inProcessCaller(handle: (request: Request) => Promise<Response>, principal: Principal): ApiCaller {
  return (method, path, body, signal) => {
    const request = new Request(IN_PROCESS_ORIGIN + path, { method, ...encodeBody(body), signal })
    return handle(actAs(request, principal))
  }
}
