// Keys with a purpose: a leaked key is not the whole account. It cannot mint keys, outlive its revocation through
// keys it minted, change the sign-in email or delete the account; a read-only key only reads — over REST and MCP
// alike; a key that may manage keys manages only its own line; and the OpenAPI document says what each route needs.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { call, errorText, httpClient, startMcpServer, type McpTestServer } from '../mcp/server'
import type { TestUser } from '../harness'

setDefaultTimeout(60_000)

let s: McpTestServer
beforeAll(async () => {
  s = await startMcpServer({ DEFAULT_PLAN: 'pro' })
})
afterAll(() => s.stop())

const t = () => s.t
const mint = async (u: TestUser, scopes: string[], by: { key?: string; cookie?: string } = { cookie: u.cookie }) =>
  t().json('POST', '/api/keys', { ...by, body: { label: scopes.join('+'), scopes } })
const works = async (key: string) => (await t().request('GET', '/api/workspaces', { key })).status === 200

describe('with only a leaked key (read and write, the default)', () => {
  test('it cannot mint a key, revoke one, change the email, delete the account or approve a draft; nothing changes', async () => {
    const u = await t().signUp()
    const [mine] = (await t().json('GET', '/api/keys', { cookie: u.cookie })).body.data
    expect(mine.scopes).toEqual(['read', 'write'])
    const attempts = [
      ['POST', '/api/keys', { label: 'attacker' }],
      ['DELETE', `/api/keys/${mine.id}`, undefined],
      ['PATCH', '/api/profile', { email: 'attacker@example.net' }],
      ['DELETE', '/api/account', { confirm: 'DELETE' }],
    ] as const
    for (const [method, path, body] of attempts) {
      const res = await t().json(method, path, { key: u.key, body })
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 })
    }
    const draft = await t().json('POST', '/api/documents', { key: u.key, body: { kind: 'fact', title: 'A draft', body: 'Proposed.' } })
    expect(draft.body.status).toBe('pending_approval')
    expect((await t().json('POST', `/api/documents/${draft.body.id}/approve`, { key: u.key })).status).toBe(403)
    const profile = (await t().json('GET', '/api/profile', { cookie: u.cookie })).body
    expect(profile.email).toBe(u.email)
    expect((await t().json('GET', '/api/keys', { cookie: u.cookie })).body.data).toHaveLength(1)
    expect(await works(u.key)).toBe(true)
  })
})

describe('a key that may manage keys', () => {
  test('mints keys with no more scopes than its own; what it minted dies with it', async () => {
    const u = await t().signUp()
    const manager = (await mint(u, ['read', 'keys'])).body
    const beyond = await mint(u, ['read', 'write'], { key: manager.key })
    expect(beyond.status).toBe(403)
    expect(beyond.body.error).toContain('write')
    const child = await mint(u, ['read'], { key: manager.key })
    expect(child.status).toBe(201)
    expect(child.body).toMatchObject({ scopes: ['read'], parent_id: manager.id })
    const grandchild = (await mint(u, ['read', 'keys'], { key: (await mint(u, ['read', 'keys'], { key: manager.key })).body.key })).body
    expect(grandchild.parent_id).not.toBe(manager.id)

    // The person revokes the manager: every key down its line stops at once.
    expect((await t().request('DELETE', `/api/keys/${manager.id}`, { cookie: u.cookie })).status).toBe(204)
    for (const key of [manager.key, child.body.key, grandchild.key]) expect(await works(key)).toBe(false)
    expect(await works(u.key)).toBe(true)
  })

  test("sees and revokes only itself and what it minted: the person's other keys are not found to it", async () => {
    const u = await t().signUp()
    const manager = (await mint(u, ['read', 'write', 'keys'])).body
    const child = (await mint(u, ['read'], { key: manager.key })).body
    const listed = (await t().json('GET', '/api/keys', { key: manager.key })).body.data.map((k: { id: string }) => k.id)
    expect(listed.sort()).toEqual([manager.id, child.id].sort())
    const [original] = (await t().json('GET', '/api/keys', { cookie: u.cookie })).body.data.filter(
      (k: { id: string }) => k.id !== manager.id && k.id !== child.id,
    )
    expect((await t().request('DELETE', `/api/keys/${original.id}`, { key: manager.key })).status).toBe(404)
    expect(await works(u.key)).toBe(true)
    expect((await t().request('DELETE', `/api/keys/${child.id}`, { key: manager.key })).status).toBe(204)
    expect(await works(child.key)).toBe(false)
  })

  test('scopes are checked: unknown ones, an empty list and repeats are 400', async () => {
    const u = await t().signUp()
    for (const scopes of [['admin'], [], ['read', 'read']]) {
      const res = await t().json('POST', '/api/keys', { cookie: u.cookie, body: { scopes } })
      expect({ scopes, status: res.status }).toEqual({ scopes, status: 400 })
    }
  })
})

describe('a read-only key (a dashboard widget)', () => {
  test('reads, searches and asks; every write is 403 and stores nothing', async () => {
    const u = await t().signUp()
    await t().json('POST', '/api/documents', { key: u.key, body: { title: 'Lighthouses', body: 'Lighthouses guide ships at night.' } })
    const reader = (await mint(u, ['read'])).body.key
    expect((await t().request('GET', '/api/documents', { key: reader })).status).toBe(200)
    expect((await t().request('GET', '/api/search?q=lighthouses', { key: reader })).status).toBe(200)
    expect(
      (await t().request('POST', '/api/ask', { key: reader, body: { question: 'What guides ships?', stream: false } })).status,
    ).not.toBe(403)
    for (const [method, path, body] of [
      ['POST', '/api/documents', { title: 'x', body: 'y' }],
      ['POST', '/api/workspaces', { name: 'w' }],
      ['PATCH', '/api/settings', { search_mode: 'keyword' }],
    ] as const) {
      const res = await t().json(method, path, { key: reader, body })
      expect({ path, status: res.status }).toEqual({ path, status: 403 })
      expect(res.body.error).toContain('"write" scope')
    }
    expect((await t().json('GET', '/api/documents', { key: u.key })).body.data).toHaveLength(1)
  })

  test('over MCP too: search answers, add_document is refused with the scope named', async () => {
    const u = await t().signUp()
    const reader = (await mint(u, ['read'])).body.key
    const client = await httpClient(s.url, reader)
    try {
      expect((await call(client, 'search', { query: 'anything' })).isError).toBeFalsy()
      expect(errorText(await call(client, 'add_document', { title: 'x', body: 'y' }))).toContain('"write" scope')
    } finally {
      await client.close()
    }
    expect((await t().json('GET', '/api/documents', { key: u.key })).body.data).toHaveLength(0)
  })
})

describe('the OpenAPI document', () => {
  test("names each operation's key scope, and the scopes a key may be created with", async () => {
    const doc = await (await t().request('GET', '/openapi/json')).json()
    const scopeOf = (path: string, method: string) => doc.paths[path][method]['x-key-scope']
    expect(scopeOf('/api/documents', 'get')).toBe('read')
    expect(scopeOf('/api/ask', 'post')).toBe('read')
    expect(scopeOf('/api/documents', 'post')).toBe('write')
    expect(scopeOf('/api/keys', 'post')).toBe('keys')
    expect(scopeOf('/api/account', 'delete')).toBe('person')
    expect(scopeOf('/api/auth/password', 'post')).toBe('person')
    expect(doc.paths['/api/auth/sign-in'].post['x-key-scope']).toBeUndefined()
    const body = JSON.stringify(doc.paths['/api/keys'].post.requestBody)
    for (const scope of ['read', 'write', 'keys']) expect(body).toContain(`"${scope}"`)
  })
})
