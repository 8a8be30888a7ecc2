// The parts of an OpenAPI 3.1 document the e2e checks read, fetched from the live server.
import { expect } from 'bun:test'

export interface Operation {
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: { format?: string }; $ref?: string }[]
  requestBody?: { content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> }
  responses?: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }>; headers?: Record<string, unknown> }>
}

export interface OpenApiDocument {
  [key: string]: unknown
  openapi: string
  paths: Record<string, Record<string, Operation>>
  tags?: { name: string; description?: string }[]
  servers?: { url: string }[]
  components?: {
    securitySchemes?: Record<string, unknown>
    schemas?: Record<string, unknown>
    parameters?: Record<string, { name: string; in: string; description?: string }>
  }
}

/** docs/decisions.md#routes: the only routes a caller reaches without a key or session. */
export const PUBLIC = new Set([
  'GET /',
  'POST /api/auth/sign-up',
  'POST /api/auth/sign-in',
  'POST /api/auth/sign-out',
  'GET /api/auth/providers',
  'GET /api/auth/oauth/{provider}',
  'GET /api/auth/oauth/{provider}/callback',
  'POST /api/auth/oauth/{provider}/callback',
  'GET /api/connectors/oauth/callback',
  // Mailed links: the token in them is the credential (the /api/auth/* steps before a session are public; the link is a GET).
  'POST /api/auth/password-reset',
  'POST /api/auth/password-reset/confirm',
  'GET /api/auth/verify-email',
  'POST /webhooks/stripe',
  // OAuth for MCP clients (RFC 9728, 8414, 7591, 6749, 7009): how a client without credentials gets some.
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/mcp',
  'GET /.well-known/oauth-authorization-server',
  'POST /oauth/register',
  'POST /oauth/token',
  'POST /oauth/revoke',
])

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

export async function fetchDocument(baseUrl: string): Promise<OpenApiDocument> {
  const res = await fetch(`${baseUrl}/openapi/json`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('application/json')
  return (await res.json()) as OpenApiDocument
}

/** Every operation; `key` is "METHOD /path" with no trailing slash, as routes are written (docs/decisions.md#routes). */
export function operations(doc: OpenApiDocument): { key: string; path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({
      key: `${method.toUpperCase()} ${path.replace(/\/+$/, '') || '/'}`,
      path,
      method,
      op: item[method]!,
    })),
  )
}

/** `seen` entries ("method /schema/path status") whose status the document does not list for that operation. */
export function undeclaredStatuses(doc: OpenApiDocument, seen: string[]): string[] {
  return seen.filter((entry) => {
    const [method, path, status] = entry.split(' ') as [string, string, string]
    return !doc.paths[path]?.[method]?.responses?.[status]
  })
}

/** The document with every local `$ref` replaced by what it points at, for checks that walk schemas inline. */
export function dereference<T>(doc: T): T {
  const root = doc as Record<string, unknown>
  const target = (ref: string) =>
    ref
      .slice(2)
      .split('/')
      .reduce<any>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root)
  const walk = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, seen))
    if (node === null || typeof node !== 'object') return node
    const { $ref, ...rest } = node as Record<string, unknown>
    if (typeof $ref === 'string' && $ref.startsWith('#/')) {
      if (seen.includes($ref)) throw new Error(`cyclic $ref ${$ref}`)
      return { ...(walk(target($ref), [...seen, $ref]) as object), ...(walk(rest, seen) as object) }
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, seen)]))
  }
  return walk(doc, []) as T
}
