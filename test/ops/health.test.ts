// GET / asks the database (select 1, 2 s): 200 while it answers, 503 with the reason when it is closed or
// does not answer; and one access-log line per request, under the client's x-request-id when it is safe.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import type { PGlite } from '@electric-sql/pglite'
import { createDb } from '../../db/client'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { createLogger } from '../../src/log'
import { BASE, createTestApp, migratedTemplate, type TestApp } from '../harness'

// The preload's 30 s is lost for files that run after a src/*.test.ts file.
setDefaultTimeout(30_000)

const ENV = { EMBEDDING_PROVIDER: 'none' }

describe('GET /', () => {
  test('200 while the database answers', async () => {
    const t = await createTestApp({ env: ENV })
    try {
      const res = await t.json('GET', '/')
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ status: 'ok', database: 'pglite' })
    } finally {
      await t.close()
    }
  })

  test('503 naming the cause when the database is closed', async () => {
    const t = await createTestApp({ env: ENV })
    await t.close()
    const res = await t.json('GET', '/')
    expect(res.status).toBe(503)
    expect(res.body).toEqual({
      error: expect.stringMatching(/^database error: .*closed/i),
      code: 'service_unavailable',
      status: 'unavailable',
      version: t.config.version,
      database: 'pglite',
    })
  })

  test('503 "did not answer within 2 s" while the database is held by a transaction that never ends', async () => {
    const t = await createTestApp({ env: ENV })
    const pglite = (t.deps as unknown as { db: { $client: PGlite } }).db.$client
    let release = () => {}
    // The embedded database runs one statement at a time: every other query waits behind this transaction.
    const held = pglite.transaction(() => new Promise<void>((resolve) => (release = resolve)))
    try {
      const res = await t.json('GET', '/')
      expect(res.status).toBe(503)
      expect(res.body.error).toBe('database did not answer within 2 s')
      expect(res.body.status).toBe('unavailable')
    } finally {
      release()
      await held
    }
    expect((await t.json('GET', '/')).status).toBe(200)
    await t.close()
  })

  test('the OpenAPI document declares the 503', async () => {
    const t = await createTestApp({ env: ENV })
    try {
      const doc = (await t.json('GET', '/openapi/json')).body
      expect(Object.keys(doc.paths['/'].get.responses)).toContain('503')
    } finally {
      await t.close()
    }
  })
})

describe('access log and request ids', () => {
  let t: TestApp
  const lines: Record<string, any>[] = []
  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: 'memory://', BASE_URL: BASE, LOG_LEVEL: 'info', ...ENV })
    const database = await createDb(config, { pglite: (await (await migratedTemplate()).clone()) as PGlite })
    const log = createLogger('info', (line) => lines.push(JSON.parse(line)))
    t = await createTestApp({ deps: await createDeps(config, { database, log }) })
  })
  afterAll(() => t.close())

  const requestLines = () => lines.filter((l) => l.message === 'request')

  test('one info line per request: method, route pattern (not the path), status, duration, request id', async () => {
    const u = await t.signUp()
    const id = crypto.randomUUID()
    const res = await t.request('GET', `/api/documents/${id}`, { key: u.key })
    expect(res.status).toBe(404)
    await Bun.sleep(10) // lines are written once the response is handed over
    const logged = requestLines().filter((l) => l.request_id === res.headers.get('x-request-id'))
    expect(logged).toHaveLength(1)
    expect(logged[0]).toEqual({
      time: expect.any(String),
      level: 'info',
      message: 'request',
      request_id: res.headers.get('x-request-id'),
      method: 'GET',
      route: '/api/documents/:id',
      status: 404,
      duration_ms: expect.any(Number),
    })
    expect(JSON.stringify(logged)).not.toContain(id)
  })

  test('refusals and unknown routes are logged with their status; an unknown route has no pattern', async () => {
    await Bun.sleep(10)
    lines.length = 0
    await t.request('POST', '/api/auth/sign-in', { body: { email: 'x' } })
    await t.request('GET', '/no/such/route')
    await Bun.sleep(10)
    expect(requestLines().map((l) => [l.method, l.route, l.status])).toEqual([
      ['POST', '/api/auth/sign-in', 400],
      ['GET', null, 404],
    ])
  })

  test("a client's safe x-request-id is kept, echoed and logged; an unsafe or overlong one is replaced", async () => {
    const safe = 'trace-01:abc.DEF_9'
    const kept = await t.request('GET', '/', { headers: { 'x-request-id': safe } })
    expect(kept.headers.get('x-request-id')).toBe(safe)
    for (const unsafe of ['has space', 'a"b', '<script>', 'x'.repeat(129), 'é']) {
      const res = await t.request('GET', '/', { headers: { 'x-request-id': unsafe } })
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    }
    await Bun.sleep(10) // lines are written once the response is handed over
    expect(requestLines().filter((l) => l.request_id === safe)).toHaveLength(1)
    const longest = 'y'.repeat(128)
    expect((await t.request('GET', '/', { headers: { 'x-request-id': longest } })).headers.get('x-request-id')).toBe(longest)
  })
})
