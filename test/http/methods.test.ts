// A known path with the wrong method answers 405 with `Allow` (swept over the whole route table); OPTIONS on a
// known path answers 204 with `Allow`; every 201 carries `Location` (swept over every route that declares 201).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'

setDefaultTimeout(60_000)

let t: TestApp
let user: TestUser
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro', CONFLUENCE_CLIENT_ID: 'client', CONFLUENCE_CLIENT_SECRET: 'secret' } })
  user = await t.signUp()
})
afterAll(() => t.close())

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
const ID = '01900000-0000-7000-8000-000000000000'
/** A concrete path for a route pattern: every parameter an id-shaped value. */
const concrete = (pattern: string) => pattern.replace(/:[^/]+/g, ID).replace(/\*$/, 'x')

describe('405 Method Not Allowed', () => {
  test('every path of the route table: each method it lacks is a 405 { error } whose Allow lists methods that are routed', async () => {
    const paths = [...new Set(t.app.routes.map((r) => r.path))]
    expect(paths.length).toBeGreaterThan(50)
    let refused = 0
    for (const pattern of paths) {
      const path = concrete(pattern)
      for (const method of METHODS) {
        const res = await t.request(method, path)
        const body = await res.text()
        if (res.status !== 405) {
          // Routed: whatever it answers, it is not the router's "no route".
          expect(body, `${method} ${path}`).not.toContain('no route for')
          continue
        }
        refused++
        // (/mcp answers its own 405 with its own words.)
        expect(JSON.parse(body), `${method} ${path}`).toEqual(
          path.startsWith('/v1/')
            ? { error: expect.objectContaining({ code: 'method_not_allowed' }) }
            : { error: expect.any(String), code: 'method_not_allowed' },
        )
        const allow = res.headers.get('allow')!.split(', ')
        expect(allow).not.toContain(method)
        // What Allow offers is routed (never a 405 itself) — except on /mcp, whose GET and DELETE routes exist
        // only to answer their own 405 (the endpoint is stateless).
        if (pattern !== '/mcp')
          for (const other of allow.filter((m) => METHODS.includes(m)))
            expect((await t.request(other, path)).status, `${other} ${path}`).not.toBe(405)
      }
    }
    expect(refused).toBeGreaterThan(100)
  })

  test('the 405 names the allowed methods of that path', async () => {
    const res = await t.json('PUT', '/api/documents')
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS')
    expect((await t.json('POST', '/')).headers.get('allow')).toBe('GET, HEAD, OPTIONS')
  })

  test('an unknown path is still a 404, and so is a missing object on a routed method', async () => {
    expect((await t.json('GET', '/api/nothing-here')).status).toBe(404)
    const missing = await t.json('GET', `/api/documents/${ID}`, { key: user.key })
    expect(missing.status).toBe(404)
    expect(missing.headers.get('allow')).toBeNull()
  })

  test('OPTIONS on a known path (not a CORS preflight) is 204 with Allow', async () => {
    const res = await t.request('OPTIONS', `/api/workspaces/${ID}`)
    expect(res.status).toBe(204)
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE, OPTIONS')
  })
})

describe('Location on 201', () => {
  /** Each route that can answer 201, and how to make it create something. */
  const cases: Record<string, () => Promise<Response>> = {
    'POST /api/auth/sign-up': () =>
      t.request('POST', '/api/auth/sign-up', {
        body: { email: `loc-${crypto.randomUUID()}@example.com`, password: 'correct horse battery' },
      }),
    'POST /api/keys': () => t.request('POST', '/api/keys', { cookie: user.cookie, body: { label: 'second' } }),
    'POST /api/workspaces': () => t.request('POST', '/api/workspaces', { key: user.key, body: { name: 'Located' } }),
    'POST /api/documents': () => t.request('POST', '/api/documents', { key: user.key, body: { body: `located ${crypto.randomUUID()}` } }),
    'POST /api/documents/:id/link': async () => {
      const a = await t.json('POST', '/api/documents', { key: user.key, body: { body: `a ${crypto.randomUUID()}` } })
      const b = await t.json('POST', '/api/documents', { key: user.key, body: { body: `b ${crypto.randomUUID()}` } })
      return t.request('POST', `/api/documents/${a.body.id}/link`, { key: user.key, body: { target_id: b.body.id } })
    },
    'POST /api/memories/batch-draft': async () => {
      const ws = (await t.json('GET', '/api/workspaces', { key: user.key })).body.data[0].id
      return t.request('POST', '/api/memories/batch-draft', {
        key: user.key,
        body: { workspace_id: ws, learnings: [{ kind: 'fact', title: 'Located', body: 'a learning' }] },
      })
    },
    'POST /api/connectors': () => t.request('POST', '/api/connectors', { key: user.key, body: { type: 'confluence' } }),
    'POST /api/threads': () => t.request('POST', '/api/threads', { key: user.key, body: { title: 'Located' } }),
  }

  test('the cases cover every route that declares a 201', () => {
    // Except OAuth's dynamic client registration (RFC 7591): its 201 carries the client's metadata in the body,
    // and there is no client configuration endpoint (RFC 7592) a Location could name.
    const declaring = t.app.routes
      .filter((r) => (r.hooks?.response as Record<string, unknown> | undefined)?.[201] && r.path !== '/oauth/register')
      .map((r) => `${r.method} ${r.path}`)
    expect(declaring.sort()).toEqual(Object.keys(cases).sort())
  })

  test.each(Object.keys(cases))('%s: 201 with a Location that is a routed path of this API', async (name) => {
    const res = await cases[name]!()
    expect(res.status).toBe(201)
    const location = res.headers.get('location')!
    expect(location).toMatch(/^\/api\//)
    const body = (await res.json()) as Record<string, any>
    const id = body.id ?? body.user?.id ?? body.connector?.id
    if (name !== 'POST /api/auth/sign-up' && name !== 'POST /api/memories/batch-draft' && name !== 'POST /api/documents/:id/link')
      expect(location).toEndWith(`/${id}`)
    const follow = await t.request('GET', location, {
      key: user.key,
      cookie: name === 'POST /api/auth/sign-up' ? res.headers.get('set-cookie')!.split(';')[0] : undefined,
    })
    // Readable where the object has a GET; otherwise a routed path (its DELETE), never "no route".
    expect([200, 405]).toContain(follow.status)
    if (name === 'POST /api/documents' || name === 'POST /api/workspaces') expect(((await follow.json()) as { id: string }).id).toBe(id)
  })
})
