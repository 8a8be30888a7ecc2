// End to end over real HTTP: /openapi/json is valid OpenAPI 3.1 and complete, the explorer works offline,
// the committed generated types are current, and a client built from them drives the main user flow.
import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import createClient from 'openapi-fetch'
import type { paths } from './api.gen'
import { GENERATED_FILE, renderTypes } from './codegen'
import { startServer, type E2EServer } from './server'

interface Operation {
  operationId?: string
  summary?: string
  tags?: string[]
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string; required?: boolean; schema?: { format?: string } }[]
  requestBody?: { content?: Record<string, { schema?: unknown }> }
  responses?: Record<string, { content?: Record<string, { schema?: unknown } | unknown> }>
}

interface Document {
  openapi: string
  paths: Record<string, Record<string, Operation>>
  components?: { securitySchemes?: Record<string, unknown> }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
const NO_BODY_STATUSES = new Set(['204', '304'])
/** DESIGN.md §4: the only routes a caller reaches without a key or session. */
const PUBLIC = new Set([
  'GET /',
  'POST /api/auth/sign-up',
  'POST /api/auth/sign-in',
  'POST /api/auth/sign-out',
  'GET /api/auth/oauth/{provider}',
  'GET /api/auth/oauth/{provider}/callback',
  'POST /api/auth/oauth/{provider}/callback',
  'GET /api/connectors/oauth/callback',
  'POST /webhooks/stripe',
])
const PASSWORD = 'correct horse battery'

let server: E2EServer
let doc: Document

beforeAll(async () => {
  server = await startServer()
  const res = await fetch(`${server.url}/openapi/json`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('application/json')
  doc = (await res.json()) as Document
})
afterAll(async () => {
  await server.stop()
})

/** Every (path, method, operation) of the document; paths compared without a trailing slash. */
function operations(): { key: string; path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => {
      const normalized = path.replace(/\/+$/, '') || '/'
      return { key: `${method.toUpperCase()} ${normalized}`, path, method, op: item[method]! }
    }),
  )
}

describe('OpenAPI document', () => {
  test('is served over HTTP as valid OpenAPI 3.1', async () => {
    expect(doc.openapi).toStartWith('3.1')
    const result = await new Validator().validate(structuredClone(doc) as Record<string, unknown>)
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
    for (const { key, op } of operations()) {
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
    for (const { key, path, op } of operations()) {
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

  test('protected operations declare security and 401; only the known public routes go without', () => {
    const schemes = Object.keys(doc.components?.securitySchemes ?? {})
    const problems: string[] = []
    for (const { key, op } of operations()) {
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
    for (const { key, path, op, method } of operations()) {
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
    expect(((await spec.json()) as Document).openapi).toBe(doc.openapi)
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

/** Status and body together, so a failed expectation shows what the server said. */
function outcome(r: { response: Response; data?: unknown; error?: unknown }) {
  return { status: r.response.status, body: r.data ?? r.error ?? null }
}

/** A new account through the public client: its email and `session=…` cookie. */
async function signUp(api: ReturnType<typeof createClient<paths>>) {
  const email = `e2e-${crypto.randomUUID()}@example.com`
  const res = await api.POST('/api/auth/sign-up', { body: { email, password: PASSWORD } })
  expect(outcome(res)).toMatchObject({ status: 201, body: { user: { email } } })
  const cookie = res.response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('session='))
  expect(cookie).toBeDefined()
  return { email, user: res.data!.user, cookie: cookie! }
}

/** Signs up, creates an API key with the session cookie, and returns a client that sends the key. */
async function signUpWithKey() {
  const api = createClient<paths>({ baseUrl: server.url })
  const { user, cookie } = await signUp(api)
  const created = await api.POST('/api/keys/', { body: { label: 'e2e' }, headers: { cookie, origin: server.url } })
  expect(outcome(created)).toMatchObject({ status: 201 })
  const key = created.data!.key
  return { user, cookie, key, client: createClient<paths>({ baseUrl: server.url, headers: { authorization: `Bearer ${key}` } }) }
}

describe('user flow through the generated client', () => {
  test('sign-up sets a session cookie; with an allowed Origin the cookie creates an API key that authenticates', async () => {
    const api = createClient<paths>({ baseUrl: server.url })
    const { user, cookie } = await signUp(api)

    const session = await api.GET('/api/auth/session', { headers: { cookie } })
    expect(outcome(session)).toMatchObject({ status: 200, body: { user: { id: user.id }, via: 'session' } })

    // Cookie-authenticated writes need an allowed Origin (CSRF): none, or a foreign one, is 403 { error }.
    const noOrigin = await api.POST('/api/keys/', { body: { label: 'e2e' }, headers: { cookie } })
    expect(noOrigin.response.status).toBe(403)
    expect(noOrigin.error).toEqual({ error: expect.any(String) })
    const foreign = await api.POST('/api/keys/', { body: { label: 'e2e' }, headers: { cookie, origin: 'http://evil.example' } })
    expect(foreign.response.status).toBe(403)

    const created = await api.POST('/api/keys/', { body: { label: 'e2e' }, headers: { cookie, origin: server.url } })
    expect(outcome(created)).toMatchObject({ status: 201, body: { label: 'e2e' } })
    const key = created.data!.key
    expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/)
    expect(created.data!.prefix).toBe(key.slice(0, 16))

    const client = createClient<paths>({ baseUrl: server.url, headers: { authorization: `Bearer ${key}` } })
    const viaKey = await client.GET('/api/auth/session')
    expect(outcome(viaKey)).toMatchObject({ status: 200, body: { user: { id: user.id }, via: 'key' } })
    const keys = await client.GET('/api/keys/')
    expect(outcome(keys)).toMatchObject({ status: 200 })
    expect(keys.data!.data.map((k) => k.id)).toEqual([created.data!.id])
  })

  test('with a key: create a workspace, ingest, list, archive, restore and forget a document', async () => {
    const { client } = await signUpWithKey()

    const ws = await client.POST('/api/workspaces', { body: { name: 'E2E notes' } })
    expect(outcome(ws)).toMatchObject({ status: 201, body: { name: 'E2E notes' } })
    const workspaceId = ws.data!.id

    const ingested = await client.POST('/api/documents', {
      body: { workspace_id: workspaceId, title: 'Deploy checklist', body: 'Run the migrations before switching traffic to the new release.' },
    })
    expect(outcome(ingested)).toMatchObject({ status: 201, body: { workspace_id: workspaceId, title: 'Deploy checklist', status: 'active' } })
    const id = ingested.data!.id

    const listIds = async (status?: 'active' | 'archived') => {
      const list = await client.GET('/api/documents', { params: { query: { workspace_id: workspaceId, ...(status ? { status } : {}) } } })
      expect(outcome(list)).toMatchObject({ status: 200 })
      const { data, next_cursor } = list.data!
      expect(next_cursor === null || typeof next_cursor === 'string').toBe(true)
      return data.map((d) => d.id)
    }
    expect(await listIds()).toEqual([id])

    const archived = await client.POST('/api/documents/{id}/archive', { params: { path: { id } } })
    expect(archived.response.ok).toBe(true)
    expect(await listIds()).not.toContain(id)
    expect(await listIds('archived')).toContain(id)

    const restored = await client.POST('/api/documents/{id}/restore', { params: { path: { id } } })
    expect(restored.response.ok).toBe(true)
    expect(await listIds()).toEqual([id])

    const forgotten = await client.POST('/api/documents/{id}/forget', { params: { path: { id } } })
    expect(forgotten.response.ok).toBe(true)
    const gone = await client.GET('/api/documents/{id}', { params: { path: { id } } })
    expect(outcome(gone)).toMatchObject({ status: 404, body: { error: expect.any(String) } })
    expect(await listIds()).not.toContain(id)
    expect(await listIds('archived')).not.toContain(id)
  })
})
