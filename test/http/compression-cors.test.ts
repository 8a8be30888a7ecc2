// Over real HTTP (the service's own serveApp): gzip and br by Accept-Encoding with q-values, Vary, never an
// event stream, never a tiny body; and CORS with fetch: preflights from a configured origin allow every
// header the API reads and expose the ones clients need, an unknown origin's preflight is a plain 403.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { chooseEncoding } from '../../src/http/compress'
import { startServer, type E2EServer } from '../e2e/server'

setDefaultTimeout(60_000)

const WEB_APP = 'http://localhost:5173'
let server: E2EServer
let key: string
beforeAll(async () => {
  server = await startServer({ env: { ALLOWED_ORIGINS: WEB_APP, DEFAULT_PLAN: 'pro' } })
  const up = await fetch(`${server.url}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify({ email: `z-${crypto.randomUUID()}@example.com`, password: 'correct horse battery' }),
  })
  const cookie = up.headers.get('set-cookie')!.split(';')[0]!
  const created = await fetch(`${server.url}/api/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: server.url },
    body: '{}',
  })
  key = ((await created.json()) as { key: string }).key
  // Enough documents for a list well over the compression threshold.
  for (let i = 0; i < 8; i++)
    await call('POST', '/api/documents', { body: { title: `Doc ${i}`, body: `compressible text ${i} `.repeat(40) } })
})
afterAll(() => server.stop())

/** fetch without Bun's automatic decompression, so the bytes on the wire are what the test sees. */
const call = (method: string, path: string, { headers = {}, body }: { headers?: Record<string, string>; body?: unknown } = {}) =>
  fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
    decompress: false,
  } as RequestInit)

const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer())

describe('compression', () => {
  test('JSON is gzip-compressed for Accept-Encoding: gzip, with Vary, and decodes to the same document', async () => {
    const plain = await call('GET', '/api/documents?limit=100', { headers: { 'accept-encoding': 'identity' } })
    expect(plain.headers.get('content-encoding')).toBeNull()
    const identity = await plain.text()
    const res = await call('GET', '/api/documents?limit=100', { headers: { 'accept-encoding': 'gzip' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-encoding')).toBe('gzip')
    expect(res.headers.get('vary')?.toLowerCase()).toContain('accept-encoding')
    const wire = await bytes(res)
    expect(wire.byteLength).toBeLessThan(identity.length / 2)
    expect(JSON.parse(gunzipSync(wire).toString())).toEqual(JSON.parse(identity))
  })

  test('br is chosen when preferred by q-values, gzip when br is weighted lower or refused', async () => {
    const br = await call('GET', '/api/documents?limit=100', { headers: { 'accept-encoding': 'gzip;q=0.5, br' } })
    expect(br.headers.get('content-encoding')).toBe('br')
    expect(JSON.parse(brotliDecompressSync(await bytes(br)).toString()).data.length).toBe(8)
    expect(
      (await call('GET', '/api/documents?limit=100', { headers: { 'accept-encoding': 'br;q=0.2, gzip;q=0.9' } })).headers.get(
        'content-encoding',
      ),
    ).toBe('gzip')
    expect(
      (await call('GET', '/api/documents?limit=100', { headers: { 'accept-encoding': 'br;q=0, *' } })).headers.get('content-encoding'),
    ).toBe('gzip')
    expect(
      (await call('GET', '/api/documents?limit=100', { headers: { 'accept-encoding': 'gzip;q=0, br;q=0' } })).headers.get(
        'content-encoding',
      ),
    ).toBeNull()
  })

  test('the OpenAPI document and the explorer assets are compressed', async () => {
    const doc = await fetch(`${server.url}/openapi/json`, { headers: { 'accept-encoding': 'br, gzip' }, decompress: false } as RequestInit)
    expect(doc.headers.get('content-encoding')).toBe('br')
    expect(JSON.parse(brotliDecompressSync(await bytes(doc)).toString()).openapi).toBe('3.1.0')
    const js = await fetch(`${server.url}/openapi/assets/swagger-ui-bundle.js`, {
      headers: { 'accept-encoding': 'gzip' },
      decompress: false,
    } as RequestInit)
    expect(js.headers.get('content-encoding')).toBe('gzip')
    const wire = await bytes(js)
    expect(gunzipSync(wire).byteLength).toBeGreaterThan(wire.byteLength * 2)
  })

  test('a tiny body is sent as is (still with Vary)', async () => {
    const res = await call('GET', '/api/settings', { headers: { 'accept-encoding': 'gzip, br' } })
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(res.headers.get('vary')?.toLowerCase()).toContain('accept-encoding')
    expect(((await res.json()) as { search_mode: string }).search_mode).toBeDefined()
  })

  test('an event stream is never compressed', async () => {
    const res = await call('POST', '/api/ask', { headers: { 'accept-encoding': 'gzip, br' }, body: { question: 'compressible text?' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('text/event-stream')
    expect(res.headers.get('content-encoding')).toBeNull()
    expect(await res.text()).toContain('data:')
  })

  test('a strong ETag gets the coding as a suffix, and If-None-Match with it still answers 304', async () => {
    const doc = ((await (await call('GET', '/api/documents?limit=1')).json()) as { data: { id: string }[] }).data[0]!
    // Make the document big enough to be compressed.
    await call('PATCH', `/api/documents/${doc.id}`, { body: { body: 'long body '.repeat(300) } })
    const res = await call('GET', `/api/documents/${doc.id}`, { headers: { 'accept-encoding': 'gzip' } })
    expect(res.headers.get('content-encoding')).toBe('gzip')
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/-gzip"$/)
    const again = await call('GET', `/api/documents/${doc.id}`, { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } })
    expect(again.status).toBe(304)
    // And If-Match with the suffixed tag is the same version.
    expect((await call('PATCH', `/api/documents/${doc.id}`, { headers: { 'if-match': etag }, body: { title: 'Still mine' } })).status).toBe(
      200,
    )
  })

  test('Accept-Encoding parsing', () => {
    expect(chooseEncoding(null)).toBeNull()
    expect(chooseEncoding('gzip, deflate, br')).toBe('br')
    expect(chooseEncoding('deflate')).toBeNull()
    expect(chooseEncoding('x-gzip')).toBe('gzip')
    expect(chooseEncoding('*;q=0.1, br;q=0')).toBe('gzip')
    expect(chooseEncoding('identity')).toBeNull()
  })
})

describe('CORS', () => {
  const preflight = (origin: string, requestHeaders: string) =>
    fetch(`${server.url}/api/documents`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders },
    })

  test('a preflight from a configured origin allows every header the API reads', async () => {
    const wanted = ['authorization', 'content-type', 'idempotency-key', 'if-match', 'if-none-match', 'x-request-id']
    const res = await preflight(WEB_APP, wanted.join(','))
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe(WEB_APP)
    const allowed = res.headers.get('access-control-allow-headers')!.split(', ')
    for (const h of wanted) expect(allowed).toContain(h)
    // Even when the preflight asks for none of them, they are the answer.
    const bare = await fetch(`${server.url}/api/documents`, {
      method: 'OPTIONS',
      headers: { origin: WEB_APP, 'access-control-request-method': 'PATCH' },
    })
    for (const h of wanted) expect(bare.headers.get('access-control-allow-headers')!.split(', ')).toContain(h)
  })

  test('responses to a configured origin expose the headers clients need', async () => {
    const res = await call('POST', '/api/workspaces', {
      headers: { origin: WEB_APP, 'idempotency-key': crypto.randomUUID() },
      body: { name: 'From the browser' },
    })
    expect(res.status).toBe(201)
    const exposed = res.headers.get('access-control-expose-headers')!.split(', ')
    for (const h of [
      'etag',
      'location',
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'x-request-id',
      'idempotent-replayed',
    ])
      expect(exposed).toContain(h)
    expect(res.headers.get('location')).toStartWith('/api/workspaces/')
  })

  test('a preflight from an unknown origin is a plain 403 { error } without CORS headers, not a 404', async () => {
    const res = await preflight('https://evil.example', 'authorization')
    expect(res.status).toBe(403)
    expect(((await res.json()) as { error: string }).error).toContain('https://evil.example is not allowed')
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    expect(res.headers.get('access-control-allow-headers')).toBeNull()
  })
})
