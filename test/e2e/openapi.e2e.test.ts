// End to end over real HTTP: /openapi/json is valid and complete OpenAPI 3.1, the explorer works with no
// internet, and the committed generated types (test/e2e/api.gen.ts) are those of the live document.
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { GENERATED_FILE, renderTypes } from './codegen'
import { fetchDocument, operations, PUBLIC, type OpenApiDocument } from './document'
import { startServer, type E2EServer } from './server'

const NO_BODY_STATUSES = new Set(['204', '304', '302'])
/** MCP's Streamable HTTP accepts a notification or a response with 202 and no body (the transport's own answer). */
const NO_BODY_ANSWERS = new Set(['POST /mcp 202'])

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
        if (NO_BODY_STATUSES.has(status) || NO_BODY_ANSWERS.has(`${key} ${status}`)) {
          if (content.length)
            problems.push(`${key} ${status}: declares content ${JSON.stringify(response.content)} on a status that has no body`)
          continue
        }
        if (content.length === 0) problems.push(`${key} ${status}: no response content`)
        for (const [mediaType, media] of content) {
          if (!/^[\w.+-]+\/[\w.+*-]+$/.test(mediaType)) problems.push(`${key} ${status}: "${mediaType}" is not a media type`)
          else if (typeof media !== 'object' || media === null || !('schema' in media))
            problems.push(`${key} ${status} ${mediaType}: no schema`)
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

  test('paths are written as the routes are (docs/decisions.md#routes): no trailing slash', () => {
    expect(Object.keys(doc.paths).filter((p) => p !== '/' && p.endsWith('/'))).toEqual([])
  })

  test('protected operations declare security and 401; only the known public routes go without', () => {
    const schemes = Object.keys(doc.components?.securitySchemes ?? {})
    const problems: string[] = []
    for (const { key, op } of operations(doc)) {
      if (PUBLIC.has(key)) continue
      if (!op.security?.length) {
        problems.push(`${key}: no security (not a public route: docs/decisions.md#routes)`)
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
      const body = (await res.json().catch(() => null)) as { error?: unknown; code?: unknown } | null
      probed.push(key)
      // /v1 answers OpenAI's { error: { message, code } }, the rest { error, code }.
      const code = typeof body?.error === 'string' ? body.code : (body?.error as { code?: unknown } | undefined)?.code
      if (res.status !== 401 || code !== 'unauthenticated') problems.push(`${key}: ${res.status} ${JSON.stringify(body)}`)
    }
    expect(probed.length).toBeGreaterThan(0)
    expect(problems).toEqual([])
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
