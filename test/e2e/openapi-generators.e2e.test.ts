// End to end over real HTTP: what a client generator needs of /openapi/json beyond validity — method-like
// operationIds, descriptions, declared tags, shared schemas by $ref, event streams typed as such, examples,
// the headers and statuses of README "HTTP conventions", and no construct a generator cannot type (a null-only
// schema, a discriminator without a mapping).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generatorProblems } from '../../src/http/openapi/generators'
import { fetchDocument, operations, PUBLIC, type OpenApiDocument } from './document'
import { startServer, type E2EServer } from './server'

let server: E2EServer
let doc: OpenApiDocument

beforeAll(async () => {
  server = await startServer()
  doc = await fetchDocument(server.url)
})
afterAll(async () => {
  await server.stop()
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
    for (const name of ['Error', 'Document', 'DocumentSummary', 'Workspace', 'Conversation', 'AnswerEvent'])
      expect(Object.keys(schemas)).toContain(name)
    const text = JSON.stringify(doc.paths)
    expect(text).not.toContain('"title":"Error"')
    const get = doc.paths['/api/documents/{id}']!.get!
    expect(get.responses?.['404']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' })
    expect(get.responses?.['200']?.content?.['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Document' })
  })

  test('event streams are text/event-stream with their event schema, beside the JSON answer; the avatar upload is multipart/form-data', () => {
    const ok = (path: string) => doc.paths[path]!.post!.responses?.['200']?.content ?? {}
    // JSON first: generators (openapi-generator, hey-api) type the method by it, and a client that cannot
    // read SSE asks for it with Accept: application/json or stream: false.
    expect(ok('/api/ask')).toEqual({
      'application/json': expect.objectContaining({ schema: { $ref: '#/components/schemas/Answer' } }),
      'text/event-stream': expect.objectContaining({ schema: { $ref: '#/components/schemas/AnswerEvent' } }),
    })
    expect(Object.keys(ok('/api/ask'))[0]).toBe('application/json')
    expect(ok('/api/agent/chat')).toEqual({
      'application/json': expect.objectContaining({ schema: { $ref: '#/components/schemas/AgentAnswer' } }),
      'text/event-stream': expect.objectContaining({ schema: { $ref: '#/components/schemas/AnswerEvent' } }),
    })
    expect(Object.keys(ok('/v1/chat/completions')).sort()).toEqual(['application/json', 'text/event-stream'])
    expect(Object.keys(ok('/v1/responses')).sort()).toEqual(['application/json', 'text/event-stream'])
    expect(Object.keys(doc.paths['/api/avatar']!.post!.requestBody?.content ?? {})).toEqual(['multipart/form-data'])
  })

  test('no schema anywhere is null only, and every discriminator maps each value to a schema that is there', () => {
    expect(generatorProblems(doc)).toEqual([])
    const schemas = (doc.components?.schemas ?? {}) as Record<string, any>
    const discriminated = Object.entries(schemas).filter(([, schema]) => schema.discriminator)
    expect(discriminated.map(([name]) => name)).toContain('AnswerEvent')
    for (const [name, { discriminator, oneOf }] of discriminated) {
      const mapping = Object.entries<string>(discriminator.mapping ?? {})
      // Each branch is mapped, by the value its own schema holds.
      expect({ name, mapped: mapping.map(([, ref]) => ref).sort() }).toEqual({
        name,
        mapped: oneOf.map((b: { $ref: string }) => b.$ref).sort(),
      })
      for (const [value, ref] of mapping) {
        const target = schemas[ref.replace('#/components/schemas/', '')]
        expect({ name, value, constant: target?.properties?.[discriminator.propertyName]?.const }).toEqual({ name, value, constant: value })
      }
    }
  })

  test('the main operations show request and response examples (checked against their schemas by Spectral)', () => {
    // A copy: toMatchObject with asymmetric matchers writes them into what it was given.
    const copy = structuredClone(doc)
    const post = (path: string) => copy.paths[path]!.post!
    expect(post('/api/auth/sign-up').requestBody?.content?.['application/json']?.example).toMatchObject({ email: expect.any(String) })
    expect(post('/api/auth/sign-up').responses?.['201']?.content?.['application/json']?.example).toMatchObject({ user: expect.any(Object) })
    expect(post('/api/documents').requestBody?.content?.['application/json']?.example).toMatchObject({ body: expect.any(String) })
    expect(post('/api/documents').responses?.['201']?.content?.['application/json']?.example).toMatchObject({ id: expect.any(String) })
    expect(copy.paths['/api/search']!.get!.responses?.['200']?.content?.['application/json']?.example).toMatchObject({
      results: expect.any(Array),
    })
    expect(post('/api/ask').responses?.['200']?.content?.['text/event-stream']?.example).toMatchObject({ type: 'delta' })
    expect(post('/api/ask').responses?.['200']?.content?.['application/json']?.example).toMatchObject({ answer: expect.any(String) })
    expect(post('/v1/chat/completions').requestBody?.content?.['application/json']?.example).toMatchObject({ model: 'service-rag' })
  })

  test('the HTTP conventions are documented: request headers, and the headers and statuses they bring', () => {
    const refs = (op: { parameters?: { $ref?: string }[] }) => (op.parameters ?? []).map((p) => p.$ref?.split('/').pop())
    const ingest = doc.paths['/api/documents']!.post!
    expect(refs(ingest)).toContain('IdempotencyKey')
    expect(Object.keys(ingest.responses ?? {})).toEqual(expect.arrayContaining(['409', '422']))
    expect(Object.keys(ingest.responses?.['201']?.headers ?? {})).toEqual(
      expect.arrayContaining(['Location', 'x-request-id', 'Idempotent-Replayed']),
    )
    const read = doc.paths['/api/documents/{id}']!
    expect(refs(read.get!)).toContain('IfNoneMatch')
    expect(read.get!.responses?.['304']).toBeDefined()
    expect(Object.keys(read.get!.responses?.['200']?.headers ?? {})).toContain('ETag')
    expect(refs(read.patch!)).toContain('IfMatch')
    expect(read.patch!.responses?.['412']).toBeDefined()
    const search = doc.paths['/api/search']!.get!
    expect(Object.keys(search.responses?.['200']?.headers ?? {})).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
    )
    expect(Object.keys(search.responses?.['429']?.headers ?? {})).toContain('Retry-After')
    // Streams refuse Idempotency-Key, so they do not offer it.
    expect(refs(doc.paths['/api/ask']!.post!)).not.toContain('IdempotencyKey')
  })
})
