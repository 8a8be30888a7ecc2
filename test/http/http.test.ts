// Cross-cutting HTTP behaviour: health, request ids, unknown routes, body limits, malformed JSON, CORS.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { readFileSync } from 'node:fs'
import { BASE, createTestApp, type TestApp, type TestUser } from '../harness'
import { onPostgres } from '../pg/databases'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

const WEB_APP = 'http://localhost:5173'
const EXTENSION = 'chrome-extension://abcdefghijklmnopabcdefghijklmnop'
const FOREIGN = 'https://evil.example'
const LIMIT = 2 * 1024 * 1024

let t: TestApp
let u: TestUser
beforeAll(async () => {
  t = await createTestApp({ env: { ALLOWED_ORIGINS: `${WEB_APP},${EXTENSION}` } })
  u = await t.signUp()
})
afterAll(() => t.close())

const raw = (path: string, init: RequestInit & { duplex?: 'half' } = {}) => t.app.handle(new Request(BASE + path, init as RequestInit))

/** A JSON body of `bytes` bytes: a document whose body is padding. */
const jsonOfSize = (bytes: number) => {
  const shell = JSON.stringify({ body: '' })
  return JSON.stringify({ body: 'x'.repeat(bytes - shell.length) })
}

/** A body with no Content-Length: a stream the server must read to learn its size. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let offset = 0
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(offset, offset + 64 * 1024))
      offset += 64 * 1024
    },
  })
}

async function expectErrorBody(res: Response, status: number) {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toContain('application/json')
  const body = (await res.json()) as { error: unknown }
  expect(body.error).toBeString()
  expect((body.error as string).length).toBeGreaterThan(0)
  return body as { error: string }
}

describe('health', () => {
  test('GET / answers without credentials: status, version, database kind and whether embeddings are available', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
    const res = await t.json('GET', '/')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'ok', version: t.config.version, database: onPostgres ? 'postgres' : 'pglite' })
    // The default local model cannot be downloaded into an in-memory DATA_DIR: the service says so instead of switching models.
    expect(res.body.embeddings).toMatchObject({
      provider: 'none',
      configured: { provider: 'local', model: 'Xenova/bge-small-en-v1.5' },
      available: false,
    })
    expect(res.body.embeddings.reason).toContain('DATA_DIR is in memory')
    expect([pkg.version, process.env.npm_package_version]).toContain(res.body.version)
  })
})

describe('request ids', () => {
  test('every response carries a fresh x-request-id, whatever its status', async () => {
    const responses = await Promise.all([
      raw('/'),
      raw('/no/such/route'),
      raw('/api/documents'),
      raw('/api/documents', { headers: { authorization: `Bearer ${u.key}` } }),
      raw('/api/documents', {
        method: 'POST',
        headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json' },
        body: '{nope',
      }),
      raw('/api/documents', {
        method: 'POST',
        headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json', 'content-length': String(LIMIT + 1) },
        body: jsonOfSize(LIMIT + 1),
      }),
      raw('/api/documents', { method: 'OPTIONS', headers: { origin: WEB_APP, 'access-control-request-method': 'POST' } }),
      raw('/api/keys', { method: 'POST', headers: { cookie: u.cookie, origin: BASE, 'content-type': 'application/json' }, body: '{}' }),
    ])
    expect(responses.map((r) => r.status)).toEqual([200, 404, 401, 200, 400, 413, 204, 402])
    const ids = responses.map((r) => r.headers.get('x-request-id'))
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })
})

describe('unknown routes', () => {
  test('an unknown path is 404 { error }', async () => {
    await expectErrorBody(await raw('/no/such/route'), 404)
    await expectErrorBody(await raw('/api/nothing-here', { headers: { authorization: `Bearer ${u.key}` } }), 404)
  })

  test('an unknown method on a known path is 405 { error } with Allow', async () => {
    const res = await raw('/api/usage', { method: 'PUT', headers: { authorization: `Bearer ${u.key}` } })
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS')
    await expectErrorBody(res, 405)
  })
})

describe('body limit (2 MiB)', () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    raw('/api/documents', {
      method: 'POST',
      headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json', ...headers },
      body,
      duplex: 'half',
    })

  test('a body over 2 MiB announced by Content-Length is 413 { error }', async () => {
    const text = jsonOfSize(LIMIT + 1)
    const res = await post(text, { 'content-length': String(Buffer.byteLength(text)) })
    const body = await expectErrorBody(res, 413)
    expect(body.error).toMatch(/larger|too large|2097152|2 MiB/i)
  })

  test('a body over 2 MiB without Content-Length (streamed) is 413 { error }', async () => {
    const req = new Request(BASE + '/api/documents', {
      method: 'POST',
      headers: { authorization: `Bearer ${u.key}`, 'content-type': 'application/json' },
      body: streamOf(jsonOfSize(LIMIT + 1024)),
      duplex: 'half',
    } as RequestInit)
    expect(req.headers.get('content-length')).toBeNull()
    await expectErrorBody(await t.app.handle(req), 413)
  })

  test('an over-large body is refused before authentication is even looked at', async () => {
    const text = jsonOfSize(LIMIT + 1)
    const res = await raw('/api/documents', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(text.length) },
      body: text,
    })
    await expectErrorBody(res, 413)
  })

  test('a body just under 2 MiB is not refused for its size (the 1 MiB document rule answers instead)', async () => {
    const text = jsonOfSize(LIMIT - 16)
    const res = await post(text, { 'content-length': String(Buffer.byteLength(text)) })
    const body = await expectErrorBody(res, 413)
    expect(body.error).toContain('body')
    expect(body.error).toMatch(/1 MiB|1048576/)
  })
})

describe('malformed JSON', () => {
  test('is 400 { error }', async () => {
    const res = await t.request('POST', '/api/documents', {
      key: u.key,
      body: '{"body": "unterminated',
      headers: { 'content-type': 'application/json' },
    })
    const body = await expectErrorBody(res, 400)
    expect(body.error).toMatch(/json/i)
  })

  test('is 400 on public routes too', async () => {
    await expectErrorBody(
      await t.request('POST', '/api/auth/sign-in', { body: 'not json at all', headers: { 'content-type': 'application/json' } }),
      400,
    )
  })
})

describe('CORS', () => {
  test('an allowed origin gets allow-origin and allow-credentials on requests', async () => {
    const res = await raw('/api/usage', { headers: { origin: WEB_APP, authorization: `Bearer ${u.key}` } })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(WEB_APP)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    expect(res.headers.get('vary') ?? '').toContain('Origin')
    expect(res.headers.get('access-control-expose-headers') ?? '').toContain('x-request-id')
  })

  test('an allowed origin also gets CORS headers on error responses, so the page can read them', async () => {
    const res = await raw('/api/usage', { headers: { origin: WEB_APP } })
    expect(res.status).toBe(401)
    expect(res.headers.get('access-control-allow-origin')).toBe(WEB_APP)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
  })

  test('a preflight from an allowed origin is answered 204 with methods and headers', async () => {
    const res = await raw('/api/documents/bulk', {
      method: 'OPTIONS',
      headers: {
        origin: WEB_APP,
        'access-control-request-method': 'DELETE',
        'access-control-request-headers': 'authorization, content-type',
      },
    })
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(WEB_APP)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
    const methods = res.headers.get('access-control-allow-methods') ?? ''
    for (const m of ['GET', 'POST', 'PATCH', 'DELETE']) expect(methods).toContain(m)
    const headers = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase()
    expect(headers).toContain('authorization')
    expect(headers).toContain('content-type')
  })

  test("the service's own origin is allowed", async () => {
    const res = await raw('/', { headers: { origin: BASE } })
    expect(res.headers.get('access-control-allow-origin')).toBe(BASE)
  })

  test('a foreign origin gets no CORS headers, on requests or preflights', async () => {
    const res = await raw('/api/usage', { headers: { origin: FOREIGN, authorization: `Bearer ${u.key}` } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
    const pre = await raw('/api/documents', { method: 'OPTIONS', headers: { origin: FOREIGN, 'access-control-request-method': 'POST' } })
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull()
    expect(pre.headers.get('access-control-allow-methods')).toBeNull()
  })

  test('an origin that merely starts like an allowed one is foreign', async () => {
    const res = await raw('/', { headers: { origin: `${WEB_APP}.evil.example` } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
  })

  test('a configured browser-extension origin gets CORS like any allowed origin', async () => {
    const res = await raw('/api/usage', { headers: { origin: EXTENSION, cookie: u.cookie } })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(EXTENSION)
    expect(res.headers.get('access-control-allow-credentials')).toBe('true')
  })

  test('the opaque origin "null" (sandboxed frames, file://) is never granted CORS or cookie writes', async () => {
    const pre = await raw('/api/workspaces', { method: 'OPTIONS', headers: { origin: 'null', 'access-control-request-method': 'POST' } })
    expect(pre.headers.get('access-control-allow-origin')).toBeNull()
    const write = await t.request('POST', '/api/workspaces', {
      cookie: u.cookie,
      headers: { origin: 'null' },
      body: { name: 'from a sandboxed frame' },
    })
    expect(write.status).toBe(403)
  })
})
