// Every error answer carries a code of the closed set (src/http/error-codes.ts): each route family's characteristic
// errors, by status and code, on /api in `{ error, code }`, on /v1 in OpenAI's `{ error: { message, type, param, code } }`
// and on /mcp's refusals in JSON-RPC's `{ jsonrpc, id, error: { code, message, data: { code } } }`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { codeForStatus, ERROR_CODE_LIST, ERROR_CODES } from '../../src/http/error-codes'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let billing: TestApp
let u: TestUser

beforeAll(async () => {
  ;[t, billing] = await Promise.all([
    createTestApp({ env: { PLAN_FREE_SEARCH_PER_MIN: '1', PLAN_FREE_ASK_PER_MIN: '1' } }),
    // Stripe is configured but cannot be reached: its calls fail upstream.
    createTestApp({
      env: { STRIPE_SECRET_KEY: 'sk_test_unreachable', STRIPE_PRICE_PRO: 'price_pro', STRIPE_API_URL: 'http://127.0.0.1:9' },
    }),
  ])
  u = await t.signUp()
})

afterAll(async () => {
  await Promise.all([t.close(), billing.close()])
})

const workspaceOf = async (user: TestUser) => (await t.json('GET', '/api/workspaces', { key: user.key })).body.data[0].id as string
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => t.request('POST', path, { key: u.key, body, headers })

type Case = [family: string, what: string, status: number, code: string, run: () => Promise<Response>]

const CASES: Case[] = [
  ['http', 'an unknown route', 404, 'not_found', () => t.request('GET', '/api/nothing-here', { key: u.key })],
  ['http', 'a known path with another method', 405, 'method_not_allowed', () => t.request('PUT', '/api/workspaces', { key: u.key })],
  [
    'http',
    'a body that is not JSON',
    400,
    'invalid_request',
    () => post('/api/workspaces', '{"name":', { 'content-type': 'application/json' }),
  ],
  [
    'http',
    'a body as application/xml',
    415,
    'unsupported_media_type',
    () => post('/api/workspaces', '<name/>', { 'content-type': 'application/xml' }),
  ],
  [
    'http',
    'headers over 256 KiB',
    431,
    'headers_too_large',
    () => t.request('GET', '/api/workspaces', { key: u.key, headers: { 'x-padding': 'a'.repeat(300_000) } }),
  ],
  [
    'http',
    'a cookie write from a foreign origin',
    403,
    'forbidden',
    () => t.request('POST', '/api/workspaces', { cookie: u.cookie, body: { name: 'x' }, headers: { origin: 'https://elsewhere.example' } }),
  ],
  [
    'http',
    'an Idempotency-Key reused for another body',
    422,
    'idempotency_key_reused',
    async () => {
      const headers = { 'idempotency-key': crypto.randomUUID() }
      expect((await post('/api/workspaces', { name: 'first' }, headers)).status).toBe(201)
      return post('/api/workspaces', { name: 'second' }, headers)
    },
  ],
  ['auth', 'no credentials', 401, 'unauthenticated', () => t.request('GET', '/api/documents')],
  ['auth', 'a key that does not exist', 401, 'unauthenticated', () => t.request('GET', '/api/documents', { key: `svc_${'x'.repeat(40)}` })],
  [
    'auth',
    'sign-up with a taken email',
    409,
    'conflict',
    () => t.request('POST', '/api/auth/sign-up', { body: { email: u.email, password: 'correct horse battery' } }),
  ],
  ['auth', 'a sign-in provider that is not configured', 503, 'service_unavailable', () => t.request('GET', '/api/auth/oauth/github')],
  [
    'documents',
    'a document that does not exist',
    404,
    'not_found',
    () => t.request('GET', `/api/documents/${crypto.randomUUID()}`, { key: u.key }),
  ],
  ['documents', 'a body without its fields', 400, 'invalid_request', () => post('/api/documents', { title: 'no body' })],
  [
    'documents',
    'a document body over 1 MiB',
    413,
    'payload_too_large',
    () => post('/api/documents', { title: 'big', body: 'a'.repeat(1_100_000) }),
  ],
  [
    'documents',
    'a PATCH with a stale If-Match',
    412,
    'precondition_failed',
    async () => {
      const created = await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Note', body: 'Some text.' } })
      expect(created.status).toBe(201)
      return t.request('PATCH', `/api/documents/${created.body.id}`, {
        key: u.key,
        body: { title: 'Renamed' },
        headers: { 'if-match': '"stale"' },
      })
    },
  ],
  ['bulk', 'an empty batch', 400, 'invalid_request', () => post('/api/documents/bulk', { documents: [] })],
  ['search', 'a limit out of range', 400, 'invalid_request', () => t.request('GET', '/api/search?q=x&limit=0', { key: u.key })],
  [
    'search',
    'past the plan rate',
    429,
    'rate_limited',
    async () => {
      const user = await t.signUp()
      expect((await t.request('GET', '/api/search?q=x', { key: user.key })).status).toBe(200)
      return t.request('GET', '/api/search?q=x', { key: user.key })
    },
  ],
  [
    'workspaces',
    'deleting the last workspace',
    409,
    'conflict',
    async () => {
      const user = await t.signUp()
      return t.request('DELETE', `/api/workspaces/${await workspaceOf(user)}`, { key: user.key })
    },
  ],
  ['workspaces', 'a name of spaces only', 400, 'invalid_request', () => post('/api/workspaces', { name: '   ' })],
  [
    'keys',
    'a second key on the free plan',
    402,
    'plan_limit',
    () => t.request('POST', '/api/keys', { cookie: u.cookie, body: { label: 'second' } }),
  ],
  [
    'memories',
    'a batch of no learnings',
    400,
    'invalid_request',
    async () => post('/api/memories/batch-draft', { workspace_id: await workspaceOf(u), learnings: [] }),
  ],
  [
    'connectors',
    'syncing a connector that does not exist',
    404,
    'not_found',
    () => post(`/api/connectors/${crypto.randomUUID()}/sync`, undefined),
  ],
  ['connectors', 'a provider that is not configured', 503, 'service_unavailable', () => post('/api/connectors', { type: 'notion' })],
  [
    'avatar',
    'an avatar that is not an image',
    415,
    'unsupported_media_type',
    () => {
      const form = new FormData()
      form.append('file', new Blob(['just text'], { type: 'image/png' }), 'avatar.png')
      return t.request('POST', '/api/avatar', { key: u.key, body: form })
    },
  ],
  [
    'billing',
    'billing that is not configured',
    503,
    'service_unavailable',
    () => t.request('POST', '/api/billing/checkout', { cookie: u.cookie, body: {} }),
  ],
  [
    'billing',
    'Stripe cannot be reached',
    502,
    'provider_error',
    async () => {
      const user = await billing.signUp({ withKey: false })
      return billing.request('POST', '/api/billing/checkout', { cookie: user.cookie, body: {} })
    },
  ],
  ['mcp', 'GET /mcp (the endpoint is stateless)', 405, 'method_not_allowed', () => t.request('GET', '/mcp', { key: u.key })],
]

describe('/api, /mcp: { error, code }', () => {
  test.each(CASES)('%s: %s → %i %s', async (_family, _what, status, code, run) => {
    const res = await run()
    const body = await res.json()
    expect({ status: res.status, body }).toEqual({ status, body: { error: expect.any(String), code } })
    expect(res.headers.get('content-type')).toStartWith('application/json')
  })
})

const V1_CASES: Case[] = [
  ['v1', 'no key', 401, 'unauthenticated', () => t.request('GET', '/v1/models')],
  ['v1', 'an unknown model', 404, 'not_found', () => t.request('GET', '/v1/models/llama3.1', { key: u.key })],
  ['v1', 'messages missing', 400, 'invalid_request', () => post('/v1/chat/completions', { model: 'service-rag' })],
  [
    'v1',
    'embeddings without a model loaded',
    503,
    'model_unavailable',
    () => post('/v1/embeddings', { model: 'service-embed', input: 'x' }),
  ],
  ['v1', 'an unknown /v1 route', 404, 'not_found', () => t.request('GET', '/v1/nothing', { key: u.key })],
  ['v1', 'a known /v1 path with another method', 405, 'method_not_allowed', () => t.request('DELETE', '/v1/models', { key: u.key })],
  [
    'v1',
    'past the plan rate',
    429,
    'rate_limited',
    async () => {
      const user = await t.signUp()
      const ask = { model: 'service-rag', messages: [{ role: 'user', content: 'Anything?' }] }
      expect((await t.request('POST', '/v1/chat/completions', { key: user.key, body: ask })).status).toBe(200)
      return t.request('POST', '/v1/chat/completions', { key: user.key, body: ask })
    },
  ],
]

describe("/mcp's refusals: JSON-RPC's { jsonrpc, id, error: { code, message, data: { code } } }", () => {
  test('/mcp without credentials → 401 unauthenticated, the code in error.data.code', async () => {
    const res = await t.request('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'ping' } })
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 401,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: expect.any(String), data: { code: 'unauthenticated' } } },
    })
  })
})

const OPENAI_TYPE: Record<number, string> = { 429: 'requests', 503: 'server_error' }

describe("/v1: OpenAI's { error: { message, type, param, code } }", () => {
  test.each(V1_CASES)('%s: %s → %i %s', async (_family, _what, status, code, run) => {
    const res = await run()
    const body = await res.json()
    const type = OPENAI_TYPE[status] ?? 'invalid_request_error'
    expect({ status: res.status, body }).toEqual({ status, body: { error: { message: expect.any(String), type, param: null, code } } })
  })
})

describe('the closed set is documented', () => {
  // What the error mapper answers where no thrower named a code (a crashed database is a 503 too, not a missing model).
  test('a status with two meanings defaults to its general one: 409 conflict, 503 service_unavailable', () => {
    expect([codeForStatus(409), codeForStatus(503)]).toEqual(['conflict', 'service_unavailable'])
  })

  test('the OpenAPI document declares every code as the enum of Error.code and OpenAIError.error.code, required', async () => {
    const doc = (await t.json('GET', '/openapi/json')).body
    const error = doc.components.schemas.Error
    expect(error.required).toEqual(['error', 'code'])
    expect(error.properties.code.enum).toEqual(ERROR_CODE_LIST)
    const openai = doc.components.schemas.OpenAIError.properties.error
    expect(openai.required).toContain('code')
    expect(openai.properties.code.enum).toEqual(ERROR_CODE_LIST)
  })

  test('the README lists every code with its status and what a client should do, and no other', () => {
    const readme = readFileSync(`${import.meta.dir}/../../README.md`, 'utf8')
    const section = readme.slice(readme.indexOf('## Error codes'))
    // Cells as Biome pads them (bun run format aligns the table).
    const rows = [...section.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\| (.+?) +\|$/gm)].map(([, code, status, action]) => [
      code,
      Number(status),
      action,
    ])
    expect(rows).toEqual(ERROR_CODE_LIST.map((code) => [code, ERROR_CODES[code].status, ERROR_CODES[code].action]))
  })

  // idempotency_in_progress needs a request still running: test/http/idempotency.test.ts makes one;
  // insufficient_storage a full disk: test/db/disk-full.test.ts fills one. internal is a fault.
  test('every other code is answered by a case above', () => {
    const seen = new Set([...CASES, ...V1_CASES].map(([, , , code]) => code))
    expect(ERROR_CODE_LIST.filter((code) => !seen.has(code))).toEqual(['idempotency_in_progress', 'internal', 'insufficient_storage'])
  })
})
