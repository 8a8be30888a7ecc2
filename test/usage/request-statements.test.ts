// What an authenticated request costs the database before its own work: the credential, the month's usage count and
// the caller's settings in one statement, the search rate in one more, and statistics events written behind.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { flushEvents } from '../../src/modules/usage/events.buffer'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let u: TestUser
let docId: string

/** The statements the app sends while `fn` runs (both drivers: PGlite's query, postgres.js's unsafe). */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const client = (t.deps.db as unknown as { $client: Record<string, (...args: unknown[]) => unknown> }).$client
  const method = t.deps.dbKind === 'pglite' ? 'query' : 'unsafe'
  const original = client[method]!
  const seen: string[] = []
  client[method] = function (this: unknown, query: unknown, ...rest: unknown[]) {
    seen.push(String(query).replace(/\s+/g, ' '))
    return original.call(this, query, ...rest)
  }
  try {
    await fn()
  } finally {
    client[method] = original
  }
  return seen
}

const AUTH_TABLES = ['api_keys', 'sessions', 'usage_counters', 'settings', 'rate_limit_counters', 'events']
const touching = (statements: string[]) =>
  statements.filter((s) => AUTH_TABLES.some((table) => s.includes(`"${table}"`) || s.includes(` ${table} `)))

beforeAll(async () => {
  t = await createTestApp()
  u = await t.signUp()
  docId = (
    await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Lighthouses', body: 'the keeper lights the lamp at dusk' } })
  ).body.id
  // The key's last-used stamp is written on its first use; these tests look at the requests after it.
  await t.request('GET', '/api/documents', { key: u.key })
})
afterAll(() => t.close())

describe('statements of an authenticated request', () => {
  test('reading a document by key: one statement for the key, the usage count and the settings, one for the document', async () => {
    const statements = await statementsOf(async () =>
      expect((await t.request('GET', `/api/documents/${docId}`, { key: u.key })).status).toBe(200),
    )
    expect(statements).toHaveLength(2)
    const [auth] = touching(statements)
    expect(auth).toContain('"api_keys"')
    expect(auth).toContain('"usage_counters"')
    expect(auth).toContain('"settings"')
  })

  test('the same by session cookie', async () => {
    const statements = await statementsOf(async () =>
      expect((await t.request('GET', `/api/documents/${docId}`, { cookie: u.cookie })).status).toBe(200),
    )
    expect(statements).toHaveLength(2)
    expect(touching(statements)[0]).toContain('"sessions"')
  })

  test('a search: the credential with usage and settings, then the search rate; its event is not written by the request', async () => {
    const statements = await statementsOf(async () =>
      expect((await t.request('GET', '/api/search?q=keeper', { key: u.key })).status).toBe(200),
    )
    const own = touching(statements)
    expect(own).toHaveLength(2)
    expect(own[1]).toContain('"rate_limit_counters"')
    expect(statements.some((s) => s.includes('"events"'))).toBe(false)
  })

  test('the usage count stays exact: every request counted once, the refused ones not at all', async () => {
    const before = (await t.json('GET', '/api/usage', { key: u.key })).body.api_calls.used as number
    await Promise.all(Array.from({ length: 8 }, () => t.request('GET', `/api/documents/${docId}`, { key: u.key })))
    expect((await t.request('GET', '/api/documents', { key: 'svc_' + 'x'.repeat(40) })).status).toBe(401)
    // A cookie write from a foreign origin is refused (403) before anything is counted.
    expect(
      (await t.request('POST', '/api/documents', { cookie: u.cookie, headers: { origin: 'https://evil.example' }, body: { body: 'x' } }))
        .status,
    ).toBe(403)
    expect((await t.json('GET', '/api/usage', { key: u.key })).body.api_calls.used).toBe(before + 8 + 1)
  })
})

describe('statistics events written behind the request', () => {
  test('a search shows in the statistics of the process that served it at once', async () => {
    const before = (await t.json('GET', '/api/stats', { key: u.key })).body.searches as number
    await t.request('GET', '/api/search?q=lamp', { key: u.key })
    await t.request('GET', '/api/search?q=dusk', { key: u.key })
    expect((await t.json('GET', '/api/stats', { key: u.key })).body.searches).toBe(before + 2)
  })

  test("an account deleted before its events are written loses them, and nobody else's are lost with them", async () => {
    const gone = await t.signUp()
    const stays = await t.signUp()
    await t.request('GET', '/api/search?q=lamp', { key: gone.key })
    await t.request('GET', '/api/search?q=lamp', { key: stays.key })
    expect((await t.request('DELETE', '/api/account', { cookie: gone.cookie, body: { confirm: 'DELETE' } })).status).toBe(204)
    await flushEvents(t.deps)
    const rows = await queryRows<{ user_id: string }>(
      t.deps.db,
      sql`select user_id from events where type = 'search' and user_id in (${gone.id}, ${stays.id})`,
    )
    expect(rows.map((r) => r.user_id)).toEqual([stays.id])
  })
})
