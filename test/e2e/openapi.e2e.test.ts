// End to end over real HTTP: /openapi/json is valid and complete OpenAPI 3.1, the explorer works with no
// internet, and the committed generated types (test/e2e/api.gen.ts) are those of the live document.
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GENERATED_FILE, renderTypes } from './codegen'
import { fetchDocument, operations, type OpenApiDocument } from './document'
import { startServer, type E2EServer } from './server'

const NO_BODY_STATUSES = new Set(['204', '304', '302'])
/** DESIGN.md §4: the only routes a caller reaches without a key or session. */
const PUBLIC = new Set([
  'GET /',
  'POST /api/auth/sign-up',
  'POST /api/auth/sign-in',
  'POST /api/auth/sign-out',
  'GET /api/auth/providers',
  'GET /api/auth/oauth/{provider}',
  'GET /api/auth/oauth/{provider}/callback',
  'POST /api/auth/oauth/{provider}/callback',
  'GET /api/connectors/oauth/callback',
  'POST /webhooks/stripe',
  // OAuth for MCP clients (RFC 9728, 8414, 7591, 6749, 7009): how a client without credentials gets some.
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/mcp',
  'GET /.well-known/oauth-authorization-server',
  'POST /oauth/register',
  'POST /oauth/token',
  'POST /oauth/revoke',
])

let server: E2EServer
let doc: OpenApiDocument

beforeAll(async () => {
  server = await startServer()
  doc = await fetchDocument(server.url)
})
afterAll(async () => {
  await server.stop()
})

describe('OpenAPI document', () => {
  test('is served over HTTP as valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toStartWith('3.1')
    const result = await new Validator().validate(structuredClone(doc))
    const errors = result.valid
      ? []
      : typeof result.errors === 'string'
        ? [result.errors]
        : (result.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    if (errors.length) console.error(`/openapi/json is not valid OpenAPI 3.1:\n${errors.join('\n')}`)
    expect(errors).toEqual([])
    expect(result.valid).toBe(true)
  })

  test('every operation has a summary, a tag, and a schema for each response it lists', () => {
    const problems: string[] = []
    for (const { key, op } of operations(doc)) {
      if (typeof op.summary !== 'string' || !op.summary.trim()) problems.push(`${key}: no summary`)
      if (!Array.isArray(op.tags) || op.tags.length === 0) problems.push(`${key}: no tag`)
      const responses = Object.entries(op.responses ?? {})
      if (responses.length === 0) problems.push(`${key}: no responses`)
      for (const [status, response] of responses) {
        const content = Object.entries(response.content ?? {})
        if (NO_BODY_STATUSES.has(status)) {
          if (content.length) problems.push(`${key} ${status}: declares content ${JSON.stringify(response.content)} on a status that has no body`)
          continue
        }
        if (content.length === 0) problems.push(`${key} ${status}: no response content`)
        for (const [mediaType, media] of content) {
          if (!/^[\w.+-]+\/[\w.+*-]+$/.test(mediaType)) problems.push(`${key} ${status}: "${mediaType}" is not a media type`)
          else if (typeof media !== 'object' || media === null || !('schema' in media)) problems.push(`${key} ${status} ${mediaType}: no schema`)
        }
      }
    }
    expect(problems).toEqual([])
  })

  test('every request body and path parameter is declared, so a generated client can send them', () => {
    const problems: string[] = []
    for (const { key, path, op } of operations(doc)) {
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        if (!op.parameters?.some((p) => p.in === 'path' && p.name === name)) problems.push(`${key}: path parameter {${name}} not declared`)
      }
      if (!op.requestBody) continue
      const content = Object.entries(op.requestBody.content ?? {})
      if (content.length === 0) problems.push(`${key}: request body declares no media type (so no schema)`)
      for (const [mediaType, media] of content) {
        if (!media?.schema) problems.push(`${key}: request body ${mediaType} has no schema`)
      }
    }
    expect(problems).toEqual([])
  })

  test('paths are written as DESIGN.md §4 writes them: no trailing slash', () => {
    expect(Object.keys(doc.paths).filter((p) => p !== '/' && p.endsWith('/'))).toEqual([])
  })

  test('protected operations declare security and 401; only the known public routes go without', () => {
    const schemes = Object.keys(doc.components?.securitySchemes ?? {})
    const problems: string[] = []
    for (const { key, op } of operations(doc)) {
      if (PUBLIC.has(key)) continue
      if (!op.security?.length) {
        problems.push(`${key}: no security (not a public route of DESIGN.md §4)`)
        continue
      }
      for (const requirement of op.security) {
        for (const name of Object.keys(requirement)) if (!schemes.includes(name)) problems.push(`${key}: unknown security scheme ${name}`)
      }
      if (!op.responses?.['401']) problems.push(`${key}: protected but does not list 401`)
    }
    expect(problems).toEqual([])
  })

  test('protected GET operations answer 401 { error } without credentials', async () => {
    const probed: string[] = []
    const problems: string[] = []
    for (const { key, path, op, method } of operations(doc)) {
      if (method !== 'get' || !op.security?.length) continue
      // Validation runs before auth, so only probe what needs no input but ids.
      const params = op.parameters ?? []
      if (params.some((p) => p.required && p.in !== 'path')) continue
      if (params.some((p) => p.in === 'path' && p.schema?.format !== 'uuid')) continue
      const concrete = path.replace(/\{[^}]+\}/g, () => crypto.randomUUID())
      const res = await fetch(server.url + concrete)
      const body = (await res.json().catch(() => null)) as { error?: unknown } | null
      probed.push(key)
      if (res.status !== 401 || typeof body?.error !== 'string') problems.push(`${key}: ${res.status} ${JSON.stringify(body)}`)
    }
    expect(probed.length).toBeGreaterThan(0)
    expect(problems).toEqual([])
  })
})

describe('OpenAPI document for generators', () => {
  test('operationIds read like methods (listDocuments, approveDocument), and are unique', () => {
    const ids = operations(doc).map(({ key, op }) => ({ key, id: op.operationId ?? '' }))
    const unlike = ids.filter(({ id }) => !/^[a-z][a-zA-Z]*$/.test(id) || /^(get|post|put|patch|delete)(Api|V1|Webhooks|Oauth)/.test(id))
    expect(unlike).toEqual([])
    const seen = new Map<string, string>()
    const duplicates = ids.filter(({ key, id }) => seen.get(id) !== undefined || !seen.set(id, key))
    expect(duplicates).toEqual([])
    expect(ids.find((i) => i.key === 'POST /api/documents/{id}/approve')?.id).toBe('approveDocument')
    expect(ids.find((i) => i.key === 'GET /api/documents')?.id).toBe('listDocuments')
  })

  test('every operation and every parameter has a description; every tag used is declared with one', () => {
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]))
    const problems: string[] = []
    for (const { key, op } of operations(doc)) {
      if (!op.description?.trim()) problems.push(`${key}: no description`)
      for (const tag of op.tags ?? []) if (!declared.get(tag)) problems.push(`${key}: tag ${tag} not declared with a description`)
      for (const p of op.parameters ?? []) {
        const param = p.$ref ? doc.components?.parameters?.[p.$ref.split('/').pop()!] : p
        if (!param?.description?.trim()) problems.push(`${key}: parameter ${param?.in}:${param?.name ?? p.$ref} has no description`)
      }
    }
    expect(problems).toEqual([])
  })

  test('public operations say security: [], and the server is relative so "Try it out" works at any origin', () => {
    const open = operations(doc).filter(({ key }) => PUBLIC.has(key))
    expect(open.length).toBeGreaterThan(0)
    expect(open.filter(({ op }) => !Array.isArray(op.security) || op.security.length !== 0).map(({ key }) => key)).toEqual([])
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })])
  })

  test('OpenAPI 3.1 types only: no `nullable`; rating is an integer enum', () => {
    const text = JSON.stringify(doc)
    expect(text).not.toContain('"nullable"')
    const schemas = doc.components?.schemas as Record<string, { properties?: Record<string, unknown> }>
    expect(schemas.Document?.properties?.rating).toMatchObject({ type: 'integer', enum: [-1, 0, 1] })
  })

  test('shared schemas are components referred to by $ref: the error body is written once', () => {
    const schemas = doc.components?.schemas ?? {}
    for (const name of ['Error', 'Document', 'DocumentSummary', 'Workspace', 'Conversation', 'AnswerEvent']) expect(Object.keys(schemas)).toContain(name)
    const text = JSON.stringify(doc.paths)
    expect(text).not.toContain('"title":"Error"')
    const get = doc.paths['/api/documents/{id}']!.get!
    expect(get.responses?.['404']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' })
    expect(get.responses?.['200']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Document' })
  })

  test('event streams are text/event-stream with their event schema; the avatar upload is multipart/form-data', () => {
    const stream = (path: string) => doc.paths[path]!.post!.responses?.['200']?.content ?? {}
    expect(stream('/api/ask')).toEqual({ 'text/event-stream': expect.objectContaining({ schema: { $ref: '#/components/schemas/AnswerEvent' } }) })
    expect(stream('/api/agent/chat')).toEqual({ 'text/event-stream': expect.objectContaining({ schema: { $ref: '#/components/schemas/AnswerEvent' } }) })
    expect(Object.keys(stream('/v1/chat/completions')).sort()).toEqual(['application/json', 'text/event-stream'])
    expect(Object.keys(stream('/v1/responses')).sort()).toEqual(['application/json', 'text/event-stream'])
    expect(Object.keys(doc.paths['/api/avatar']!.post!.requestBody?.content ?? {})).toEqual(['multipart/form-data'])
  })

  test('the main operations show request and response examples (checked against their schemas by Spectral)', () => {
    // A copy: toMatchObject with asymmetric matchers writes them into what it was given.
    const copy = structuredClone(doc)
    const post = (path: string) => copy.paths[path]!.post!
    expect(post('/api/auth/sign-up').requestBody?.content?.['application/json']?.example).toMatchObject({ email: expect.any(String) })
    expect(post('/api/auth/sign-up').responses?.['201']?.content?.['application/json']?.example).toMatchObject({ user: expect.any(Object) })
    expect(post('/api/documents').requestBody?.content?.['application/json']?.example).toMatchObject({ body: expect.any(String) })
    expect(post('/api/documents').responses?.['201']?.content?.['application/json']?.example).toMatchObject({ id: expect.any(String) })
    expect(copy.paths['/api/search']!.get!.responses?.['200']?.content?.['application/json']?.example).toMatchObject({ results: expect.any(Array) })
    expect(post('/api/ask').responses?.['200']?.content?.['text/event-stream']?.example).toMatchObject({ type: 'delta' })
    expect(post('/v1/chat/completions').requestBody?.content?.['application/json']?.example).toMatchObject({ model: 'service-rag' })
  })

  test('the HTTP conventions are documented: request headers, and the headers and statuses they bring', () => {
    const refs = (op: { parameters?: { $ref?: string }[] }) => (op.parameters ?? []).map((p) => p.$ref?.split('/').pop())
    const ingest = doc.paths['/api/documents']!.post!
    expect(refs(ingest)).toContain('IdempotencyKey')
    expect(Object.keys(ingest.responses ?? {})).toEqual(expect.arrayContaining(['409', '422']))
    expect(Object.keys(ingest.responses?.['201']?.headers ?? {})).toEqual(expect.arrayContaining(['Location', 'x-request-id', 'Idempotent-Replayed']))
    const read = doc.paths['/api/documents/{id}']!
    expect(refs(read.get!)).toContain('IfNoneMatch')
    expect(read.get!.responses?.['304']).toBeDefined()
    expect(Object.keys(read.get!.responses?.['200']?.headers ?? {})).toContain('ETag')
    expect(refs(read.patch!)).toContain('IfMatch')
    expect(read.patch!.responses?.['412']).toBeDefined()
    const search = doc.paths['/api/search']!.get!
    expect(Object.keys(search.responses?.['200']?.headers ?? {})).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']))
    expect(Object.keys(search.responses?.['429']?.headers ?? {})).toContain('Retry-After')
    // Streams refuse Idempotency-Key, so they do not offer it.
    expect(refs(doc.paths['/api/ask']!.post!)).not.toContain('IdempotencyKey')
  })
})

describe('API explorer', () => {
  test('GET /openapi is HTML whose scripts and styles are served locally', async () => {
    const res = await fetch(`${server.url}/openapi`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/html')
    const html = await res.text()
    const assets = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThanOrEqual(2)
    expect(html).not.toMatch(/<(?:script|link)\b[^>]*?\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i)
    for (const asset of assets) expect(asset).toStartWith('/openapi/assets/')

    const types: string[] = []
    for (const asset of assets) {
      const file = await fetch(server.url + asset)
      expect({ asset, status: file.status }).toEqual({ asset, status: 200 })
      const type = file.headers.get('content-type') ?? ''
      types.push(type)
      expect(type).toMatch(asset.endsWith('.css') ? /^text\/css/ : /javascript/)
      expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(1000)
    }
    expect(types.some((t) => t.includes('javascript'))).toBe(true)
    expect(types.some((t) => t.startsWith('text/css'))).toBe(true)

    // The page loads the document from a URL relative to itself; it must resolve to the real one.
    const specUrl = /"url"\s*:\s*"([^"]+)"/.exec(html)?.[1]
    expect(specUrl).toBeDefined()
    const spec = await fetch(new URL(specUrl!, `${server.url}/openapi`))
    expect(spec.status).toBe(200)
    expect(((await spec.json()) as OpenApiDocument).openapi).toBe(doc.openapi)
  })

  test('an unknown asset is a 404, not a file from elsewhere', async () => {
    for (const name of ['nope.js', '..%2Fpackage.json', 'index.html']) {
      expect((await fetch(`${server.url}/openapi/assets/${name}`)).status).toBe(404)
    }
  })
})

describe('generated client types', () => {
  test('test/e2e/api.gen.ts matches the live document', async () => {
    const fresh = await renderTypes(doc)
    const file = Bun.file(GENERATED_FILE)
    const committed = (await file.exists()) ? await file.text() : ''
    if (fresh !== committed) {
      const a = committed.split('\n')
      const b = fresh.split('\n')
      const line = b.findIndex((l, i) => l !== a[i])
      const at = line === -1 ? a.length : line
      throw new Error(
        `test/e2e/api.gen.ts is out of date with /openapi/json: run bun run openapi:generate\n` +
          `first difference at line ${at + 1}:\n  committed: ${a[at] ?? '(end of file)'}\n  live:      ${b[at] ?? '(end of file)'}`,
      )
    }
  })
})
