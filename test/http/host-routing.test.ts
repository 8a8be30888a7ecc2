// The Host header never chooses the route: behind a proxy that sends `Host: api` (nginx's `proxy_pass
// http://api;`) or a one-letter service name, every route answers as on the public name, and /mcp/api/keys is
// not /api/keys (a proxy that lets only /mcp through stays the gate). Over a real listening server (raw sockets,
// so the Host line is exactly what is sent) and through app.handle; plus the in-process calls of MCP tools when
// BASE_URL is https.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { connect } from 'node:net'
import { BASE, createTestApp } from '../harness'
import { call, httpClient, structured } from '../mcp/server'
import { startServer, type E2EServer } from '../e2e/server'
import { rawRequest } from './fuzz/raw-http'

setDefaultTimeout(60_000)

const HOSTS = ['api', 'x', '[::1]:3000', 'api.internal:8080', 'memory.example.com']

let server: E2EServer
let key: string
beforeAll(async () => {
  server = await startServer()
  const up = await fetch(`${server.url}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify({ email: `h-${crypto.randomUUID()}@example.com`, password: 'correct horse battery' }),
  })
  const cookie = up.headers.get('set-cookie')!.split(';')[0]!
  const created = await fetch(`${server.url}/api/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: server.url },
    body: JSON.stringify({ label: 'host routing', scopes: ['read', 'keys'] }),
  })
  key = ((await created.json()) as { key: string }).key
})
afterAll(() => server.stop())

/** GET `target` on the listening server with exactly this Host line. */
const get = (host: string, target: string) =>
  rawRequest(new URL(server.url), { method: 'GET', target, headers: { host, authorization: `Bearer ${key}` } }, 30_000)

/** One request in HTTP/1.0 without a Host line, as a load balancer's health check sends it. */
function getWithoutHost(target: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => socket.write(`GET ${target} HTTP/1.0\r\n\r\n`))
    const chunks: Buffer[] = []
    socket.on('data', (data: Buffer) => chunks.push(data))
    socket.on('error', reject)
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(text.indexOf('\r\n\r\n') + 4) })
    })
  })
}

describe('over a real listening server', () => {
  test('every Host, short, IPv6 or with a port, reaches the same routes: health, the key list, /mcp', async () => {
    for (const host of HOSTS) {
      const health = await get(host, '/')
      expect({ host, status: health.status }).toEqual({ host, status: 200 })
      expect(JSON.parse(health.body).status).toBe('ok')
      const keys = await get(host, '/api/keys')
      expect({ host, status: keys.status }).toEqual({ host, status: 200 })
      expect(JSON.parse(keys.body).data[0].label).toBe('host routing')
      // /mcp answers GET with its own 405 (it is POST only), not a 404.
      const mcp = await get(host, '/mcp')
      expect({ host, status: mcp.status, allow: mcp.headers.allow }).toEqual({ host, status: 405, allow: 'POST' })
    }
  })

  test('/mcp/api/keys is not /api/keys, whatever the Host', async () => {
    for (const host of HOSTS) {
      const res = await get(host, '/mcp/api/keys')
      expect({ host, status: res.status }).toEqual({ host, status: 404 })
      expect(res.body).not.toContain('host routing')
      expect(JSON.parse(res.body).code).toBe('not_found')
    }
  })

  test('a request without Host (HTTP/1.0) is served; a Host that is no host name is a 400 { error }, not a 500', async () => {
    const health = await getWithoutHost('/')
    expect(health.status).toBe(200)
    expect(JSON.parse(health.body).status).toBe('ok')
    expect((await getWithoutHost('/api/keys')).status).toBe(401)
    for (const host of ['a@b', 'a b', 'evil/api/keys?']) {
      const res = await get(host, '/mcp')
      expect({ host, status: res.status }).toEqual({ host, status: 400 })
      expect(JSON.parse(res.body).error).toContain('Host header')
    }
  })
})

describe('through app.handle', () => {
  test('the URL the app is handed routes by its path alone', async () => {
    const t = await createTestApp()
    try {
      const user = await t.signUp({ withKey: false })
      const manager = await t.json('POST', '/api/keys', { cookie: user.cookie, body: { scopes: ['read', 'keys'] } })
      const auth = { authorization: `Bearer ${manager.body.key}` }
      for (const origin of ['http://api', 'http://x', 'http://[::1]:3000', 'http://api.internal:8080']) {
        const keys = await t.app.handle(new Request(`${origin}/api/keys`, { headers: auth }))
        expect({ origin, status: keys.status }).toEqual({ origin, status: 200 })
        const sub = await t.app.handle(new Request(`${origin}/mcp/api/keys`, { headers: auth }))
        expect({ origin, status: sub.status }).toEqual({ origin, status: 404 })
      }
    } finally {
      await t.close()
    }
  })

  test('with an https BASE_URL, MCP tools still reach the API in-process', async () => {
    const t = await createTestApp({ env: { BASE_URL: 'https://memory.example.com', ALLOWED_ORIGINS: BASE } })
    const listening = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => t.app.fetch(request) })
    try {
      const user = await t.signUp()
      const client = await httpClient(`http://127.0.0.1:${listening.port}`, user.key)
      try {
        // A tool whose REST call had missed its route would be an isError result, which `structured` throws on.
        const listed = structured<{ workspaces: unknown[] }>(await call(client, 'list_workspaces'))
        expect(listed.workspaces).toBeArray()
      } finally {
        await client.close()
      }
    } finally {
      await listening.stop(true)
      await t.close()
    }
  })
})
