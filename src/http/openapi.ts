// OpenAPI 3.1 at /openapi/json (built by @elysiajs/openapi's toOpenAPISchema from every route's schemas,
// then tidied into a document generators accept) and the Swagger UI explorer at /openapi, whose assets are
// served from node_modules so it works with no internet. The explorer is a page where people paste API keys:
// it runs only its own scripts (a Content-Security-Policy), is never framed, and forgets a key when the page
// goes (Swagger UI's persistAuthorization would keep it in localStorage, for any script of this origin to read).
import { createHash } from 'node:crypto'
import { toOpenAPISchema } from '@elysiajs/openapi'
import type { AnyElysia } from 'elysia'
import type { Config } from '../config'
import { notFound } from './errors'
import { hoistTitled } from './openapi/components'
import { addExamples } from './openapi/examples'
import { generatorProblems, mapDiscriminators } from './openapi/generators'
import { annotate, HEADERS, PARAMETER_COMPONENTS, STREAM_SCHEMAS } from './openapi/conventions'
import { tidy } from './openapi/tidy'

const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
}

const TAGS = [
  { name: 'health', description: 'Liveness and what the service runs on' },
  { name: 'auth', description: 'Accounts, browser sessions, and sign-in with GitHub or Google' },
  { name: 'keys', description: 'Bearer API keys' },
  { name: 'activity', description: 'What happened to your data, and who did it' },
  { name: 'workspaces', description: 'Workspaces and their context packs' },
  { name: 'documents', description: 'Documents and memories: ingest, lifecycle, links' },
  { name: 'threads', description: 'Conversations sent from outside: threads of messages, each message a document' },
  { name: 'memories', description: 'Agent-written learnings (drafts) and the memory list' },
  { name: 'search', description: 'Hybrid keyword + semantic search' },
  { name: 'ask', description: 'Grounded answers (SSE, or one JSON object), conversations and their sources' },
  { name: 'agent', description: 'The tool-using agent (SSE, or one JSON object) and the document graph' },
  { name: 'account', description: 'Usage, settings, profile, avatar, statistics, account deletion' },
  {
    name: 'connectors',
    description: 'Sources synced into a workspace (GitHub, Notion, Google Drive, wikis…): connections, authorization, sync',
  },
  { name: 'billing', description: 'Stripe subscription: checkout, portal, verify, sync, and the signed webhook' },
  { name: 'openai-compatible', description: 'OpenAI-compatible /v1: models, chat completions, responses, embeddings' },
  { name: 'mcp', description: 'Model Context Protocol over Streamable HTTP (an API key, or an OAuth access token)' },
  {
    name: 'oauth',
    description:
      "The OAuth authorization server of /mcp for MCP clients that connect by URL: metadata, dynamic registration, PKCE, tokens, revocation. Errors here are OAuth's `{ error, error_description }`",
  },
]

const DESCRIPTION = `Documents and memories in workspaces, hybrid search, grounded answers, agents, connectors.

A JSON body's members that its schema does not name are ignored. Errors are \`{ "error": "<message>", "code": "<code>" }\`, \`code\` one of the \`ErrorCode\` enum; \`/v1\` answers OpenAI's
\`{ error: { message, type, param, code } }\`, OAuth's endpoints OAuth's \`{ error, error_description }\`, \`/mcp\`'s transport JSON-RPC errors. Every answer carries
\`x-request-id\`. A path the API has, called with a method it does not route, is **405** with \`Allow\`.
Authenticated writes take an **Idempotency-Key** (a replay for 24 hours; **422** when reused with another
request, **409** while the first still runs). Single-object reads carry an **ETag**: \`If-None-Match\` answers
**304**, \`If-Match\` on PATCH and DELETE answers **412** when the object changed. Rate-limited operations send
\`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\`, and **429** with \`Retry-After\`.
\`/api/ask\` and \`/api/agent/chat\` answer \`text/event-stream\`, or one JSON object with \`Accept: application/json\` or
\`"stream": false\`; \`/v1\` answers JSON, or \`text/event-stream\` with \`"stream": true\`.`

/** The explorer's start. A key an earlier version kept (under Swagger UI's own storage name) is dropped. */
const START = `try { localStorage.removeItem('authorized') } catch {}
window.ui = SwaggerUIBundle({"url": "/openapi/json", "dom_id": "#swagger-ui", "persistAuthorization": false})`

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Knowledge Memory Service API</title><link rel="stylesheet" href="/openapi/assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/openapi/assets/swagger-ui-bundle.js"></script>
<script>${START}</script>
</body></html>`

/**
 * What the explorer needs and no more: its scripts and stylesheet from this origin, and the one inline script
 * above by its hash (Swagger UI sets styles through the DOM, which a policy does not govern, and draws its icons
 * from data: URLs); requests to this origin only (the document, "Try it out"); no framing, plugins, <base>, or
 * form posts elsewhere.
 */
const EXPLORER_POLICY = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(START).digest('base64')}'`,
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': EXPLORER_POLICY,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` with "Try it out"'s POSTs, which the cookie check refuses.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
}

/** Adds the explorer, its assets and the document to `app` — call it last, once every module is mounted. */
export function mountOpenApi<A extends AnyElysia>(app: A, config: Config): A {
  let document: unknown
  return app
    .get('/openapi', () => new Response(PAGE, { headers: PAGE_HEADERS }), { detail: { hide: true } })
    .get(
      '/openapi/assets/:file',
      ({ params }) => {
        const type = ASSETS[params.file]
        if (!type) throw notFound(`no asset ${params.file}`)
        return new Response(Bun.file(Bun.resolveSync(`swagger-ui-dist/${params.file}`, import.meta.dir)), {
          headers: { 'content-type': type, 'cache-control': 'public, max-age=86400', 'x-content-type-options': 'nosniff' },
        })
      },
      { detail: { hide: true } },
    )
    .get('/openapi/json', () => (document ??= buildDocument(app, config)), { detail: { hide: true } }) as A
}

/**
 * Request bodies: the validator drops members a schema does not name rather than refusing them (a newer client
 * may send a field this server does not know yet), so the document must not claim `additionalProperties: false`,
 * which Elysia writes on every object.
 */
function membersIgnored(node: unknown): void {
  if (node === null || typeof node !== 'object') return
  const obj = node as Record<string, unknown>
  if (obj.additionalProperties === false) delete obj.additionalProperties
  for (const child of Object.values(obj)) membersIgnored(child)
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
        const implied = route.hooks?.body
          ? [{ fn: JSON.stringify(route.hooks.body).includes('"format":"binary"') ? 'formdata' : 'json' }]
          : undefined
        return { ...route, hooks: { ...route.hooks, parse: named.length ? named : implied } }
      }),
  } as unknown as AnyElysia
  const { paths, components } = toOpenAPISchema(view)
  const document = tidy({
    openapi: '3.1.0',
    info: { title: 'Knowledge Memory Service', version: config.version, description: DESCRIPTION },
    // Relative: the server is wherever this document was fetched from, so the explorer's "Try it out" works
    // at any origin (a proxy, a tunnel, localhost), not only at BASE_URL.
    servers: [{ url: '/', description: 'The origin this document was served from' }],
    tags: TAGS,
    paths,
  })
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path.replace(/\/+$/, '') || '/'}`
      annotate(key, path, method, op)
      addExamples(key, op)
      // JSON-RPC's messages are told apart by their members, and the transport refuses others.
      if (path !== '/mcp') membersIgnored(op.requestBody)
    }
  }
  const schemas: Record<string, unknown> = { ...components?.schemas }
  hoistTitled(document.paths, schemas)
  hoistTitled(structuredClone(STREAM_SCHEMAS), schemas)
  mapDiscriminators(schemas)
  const built = {
    ...document,
    components: {
      ...components,
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      headers: HEADERS,
      parameters: PARAMETER_COMPONENTS,
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
  }
  // Deterministic from the route schemas, so any test that reads the document fails on a schema that breaks
  // a generator (a `t.Null()` property, a union without a mapping), before a client meets it.
  const problems = generatorProblems(built)
  if (problems.length) throw new Error(`/openapi/json would break client generators:\n${problems.join('\n')}`)
  return built
}
