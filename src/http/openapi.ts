// OpenAPI 3.1 at /openapi/json (built by @elysiajs/openapi's toOpenAPISchema from every route's schemas,
// then tidied into a document generators accept) and the Swagger UI explorer at /openapi, whose assets are
// served from node_modules so it works with no internet.
import { toOpenAPISchema } from '@elysiajs/openapi'
import type { AnyElysia } from 'elysia'
import type { Config } from '../config'

const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
}

const TAGS = [
  { name: 'health', description: 'Liveness and what the service runs on' },
  { name: 'auth', description: 'Accounts, browser sessions, and sign-in with GitHub or Google' },
  { name: 'keys', description: 'Bearer API keys' },
  { name: 'workspaces', description: 'Workspaces and their context packs' },
  { name: 'documents', description: 'Documents and memories: ingest, lifecycle, links' },
  { name: 'memories', description: 'Agent-written learnings (drafts) and the memory list' },
  { name: 'search', description: 'Hybrid keyword + semantic search' },
  { name: 'ask', description: 'Grounded answers (SSE), conversations and their sources' },
  { name: 'agent', description: 'The tool-using agent (SSE) and the document graph' },
  { name: 'account', description: 'Usage, settings, profile, avatar, statistics, account deletion' },
  { name: 'billing', description: 'Stripe subscription: checkout, portal, verify, sync, and the signed webhook' },
  { name: 'openai-compatible', description: 'OpenAI-compatible /v1: models, chat completions, responses, embeddings' },
  { name: 'mcp', description: 'Model Context Protocol over Streamable HTTP (an API key, or an OAuth access token)' },
  { name: 'oauth', description: 'The OAuth authorization server of /mcp for MCP clients that connect by URL: metadata, dynamic registration, PKCE, tokens, revocation. Errors here are OAuth\'s `{ error, error_description }`' },
]

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Knowledge Memory Service API</title><link rel="stylesheet" href="/openapi/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/openapi/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({"url": "/openapi/json", "dom_id": "#swagger-ui", "persistAuthorization": true})</script>
</body></html>`

/** Adds the explorer, its assets and the document to `app` — call it last, once every module is mounted. */
export function mountOpenApi<A extends AnyElysia>(app: A, config: Config): A {
  let document: unknown
  return app
    .get('/openapi', () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), { detail: { hide: true } })
    .get(
      '/openapi/assets/:file',
      ({ params, set }) => {
        const type = ASSETS[params.file]
        if (!type) {
          set.status = 404
          return { error: `no asset ${params.file}` }
        }
        return new Response(Bun.file(Bun.resolveSync(`swagger-ui-dist/${params.file}`, import.meta.dir)), {
          headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' },
        })
      },
      { detail: { hide: true } },
    )
    .get('/openapi/json', () => (document ??= buildDocument(app, config)), { detail: { hide: true } }) as A
}

export function buildDocument(app: AnyElysia, config: Config) {
  // Our body-limit parser is a function, which toOpenAPISchema skips when it lists request content types;
  // every body this API takes is JSON unless a route names another parser.
  // getGlobalRoutes/getGlobalDefinitions are what toOpenAPISchema itself reads (protected in the types).
  const internals = app as unknown as { getGlobalRoutes(): AnyElysia['routes']; getGlobalDefinitions(): unknown }
  const view = {
    getGlobalDefinitions: () => internals.getGlobalDefinitions(),
    getGlobalRoutes: () =>
      internals.getGlobalRoutes().map((route) => {
        const named = ((route.hooks?.parse ?? []) as { fn: unknown }[]).filter((p) => typeof p.fn === 'string')
        // A body with a file in it (t.File) is an upload: multipart/form-data, as the body parser reads it.
        const implied = route.hooks?.body ? [{ fn: JSON.stringify(route.hooks.body).includes('"format":"binary"') ? 'formdata' : 'json' }] : undefined
        return { ...route, hooks: { ...route.hooks, parse: named.length ? named : implied } }
      }),
  } as unknown as AnyElysia
  const { paths, components } = toOpenAPISchema(view)
  return tidy({
    openapi: '3.1.0',
    info: { title: 'Knowledge Memory Service', version: config.version, description: 'Documents and memories in workspaces, hybrid search, grounded answers, agents, connectors.' },
    servers: [{ url: config.baseUrl }],
    tags: TAGS,
    paths,
    components: {
      ...components,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_` + 40 characters (POST /api/keys)' },
        session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The dashboard session cookie (POST /api/auth/sign-in)' },
        mcpOAuth: {
          type: 'oauth2',
          description: 'For /mcp only: MCP clients register themselves and get a token after the user consents (PKCE S256)',
          flows: {
            authorizationCode: {
              authorizationUrl: `${config.baseUrl}/oauth/authorize`,
              tokenUrl: `${config.baseUrl}/oauth/token`,
              refreshUrl: `${config.baseUrl}/oauth/token`,
              scopes: { mcp: 'Use the MCP tools as the user who approved' },
            },
          },
        },
      },
    },
  })
}

/**
 * Elysia's schemas carry details that are not OpenAPI: its `error` messages, `nullable` beside a
 * `null` type, the string branch it accepts for numbers in query strings, number enums typed as strings,
 * and a `void` content for 204.
 */
function tidy(node: unknown, key?: string): any {
  if (Array.isArray(node)) return node.map((n) => tidy(n))
  if (node === null || typeof node !== 'object') return node
  const obj = { ...(node as Record<string, unknown>) }
  if (Array.isArray(obj.anyOf)) {
    const branches = obj.anyOf as Record<string, unknown>[]
    const numeric = branches.find((b) => b.type === 'integer' || b.type === 'number')
    const coerced = branches.find((b) => b.type === 'string' && (b.format === 'integer' || b.format === 'numeric'))
    if (numeric && coerced && branches.length === 2) {
      delete obj.anyOf
      Object.assign(obj, numeric)
    }
  }
  // A union of number literals comes out as `type: string` with numbers in its enum.
  if (Array.isArray(obj.enum) && obj.type === 'string' && obj.enum.length && obj.enum.every((v) => typeof v === 'number')) {
    obj.type = obj.enum.every((v) => Number.isInteger(v)) ? 'integer' : 'number'
  }
  // t.File's default is the word "File", not a value.
  if (obj.format === 'binary' && obj.default === 'File') delete obj.default
  if (typeof obj.error === 'string' || typeof obj.error === 'function') delete obj.error
  if (obj.nullable === true && Array.isArray(obj.type) && obj.type.includes('null')) delete obj.nullable
  if (key === 'responses') {
    for (const [status, response] of Object.entries(obj)) {
      if (status === '204' && response && typeof response === 'object') obj[status] = { description: 'No content' }
      // Redirects carry a Location header, not a body.
      if (status === '302' && response && typeof response === 'object') {
        obj[status] = { description: 'Redirect', headers: { Location: { description: 'Where to go next', schema: { type: 'string' } } } }
      }
    }
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, tidy(v, k)]))
}
