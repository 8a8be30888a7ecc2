// /api/keys refusals: the free cap (402 naming the limit), bad labels, bad and unknown ids.
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'

// test/setup.ts sets 30 s, but that default is lost for files that run after a src/*.test.ts file; the first
// app of a process migrates the template database, which can take longer than Bun's own 5 s.
setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

async function expectError(res: Response, status: number): Promise<string> {
  expect(res.status).toBe(status)
  const body = (await res.json()) as { error: unknown }
  expect(body.error).toBeString()
  return body.error as string
}

describe('plan cap', () => {
  test('free plan: one key; the second create is 402 naming the limit, the plan and the upgrade', async () => {
    const u = await t.signUp({ withKey: false })
    expect((await t.request('POST', '/api/keys', { cookie: u.cookie, body: { label: 'first' } })).status).toBe(201)
    const message = await expectError(await t.request('POST', '/api/keys', { cookie: u.cookie, body: { label: 'second' } }), 402)
    expect(message).toContain('API key')
    expect(message).toContain('free')
    expect(message).toContain('1')
    expect(message).toContain('pro')
  })

  test('a refused create stores nothing and returns no key', async () => {
    const u = await t.signUp()
    const res = await t.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'second' } })
    expect(res.status).toBe(402)
    expect(res.body.key).toBeUndefined()
    expect(JSON.stringify(res.body)).not.toMatch(/svc_[0-9A-Za-z]{40}/)
    expect((await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data).toHaveLength(1)
  })

  test('concurrent creates cannot pass the cap', async () => {
    const u = await t.signUp({ withKey: false })
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => t.request('POST', '/api/keys', { cookie: u.cookie, body: { label: `race ${i}` } })),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402, 402, 402])
    expect((await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data).toHaveLength(1)
  })

  test('PLAN_FREE_API_KEYS raises the free cap', async () => {
    const three = await createTestApp({ env: { PLAN_FREE_API_KEYS: '3' } })
    try {
      const u = await three.signUp() // 1
      expect((await three.request('POST', '/api/keys', { cookie: u.cookie, body: {} })).status).toBe(201)
      expect((await three.request('POST', '/api/keys', { cookie: u.cookie, body: {} })).status).toBe(201)
      expect(await expectError(await three.request('POST', '/api/keys', { cookie: u.cookie, body: {} }), 402)).toContain('3')
    } finally {
      await three.close()
    }
  })
})

describe('invalid input (400)', () => {
  test('a label over 100 characters', async () => {
    const u = await t.signUp({ withKey: false })
    expect(await expectError(await t.request('POST', '/api/keys', { cookie: u.cookie, body: { label: 'l'.repeat(101) } }), 400)).toContain(
      'label',
    )
    expect((await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data).toEqual([])
  })

  test('a label that is not a string', async () => {
    const u = await t.signUp({ withKey: false })
    for (const label of [123, true, ['a'], { a: 1 }]) {
      expect(await expectError(await t.request('POST', '/api/keys', { cookie: u.cookie, body: { label } }), 400)).toContain('label')
    }
  })

  test('malformed JSON', async () => {
    const u = await t.signUp({ withKey: false })
    await expectError(
      await t.request('POST', '/api/keys', { cookie: u.cookie, body: '{"label":', headers: { 'content-type': 'application/json' } }),
      400,
    )
  })

  test('a key id that is not a UUID', async () => {
    const u = await t.signUp()
    for (const id of ['not-a-uuid', '123', "1' or '1'='1"]) {
      expect(await expectError(await t.request('DELETE', `/api/keys/${encodeURIComponent(id)}`, { cookie: u.cookie }), 400)).toContain('id')
    }
    expect((await t.request('GET', '/api/keys', { cookie: u.cookie })).status).toBe(200)
  })
})

describe('unknown keys (404)', () => {
  test('revoking an id that does not exist', async () => {
    const u = await t.signUp()
    expect(await expectError(await t.request('DELETE', `/api/keys/${crypto.randomUUID()}`, { cookie: u.cookie }), 404)).toContain(
      'not found',
    )
  })

  test('revoking the same key twice: 204 then 404', async () => {
    const u = await t.signUp({ withKey: false })
    const { body } = await t.json('POST', '/api/keys', { cookie: u.cookie, body: {} })
    expect((await t.request('DELETE', `/api/keys/${body.id}`, { cookie: u.cookie })).status).toBe(204)
    await expectError(await t.request('DELETE', `/api/keys/${body.id}`, { cookie: u.cookie }), 404)
  })
})

describe('routes that do not exist', () => {
  test('keys cannot be read one by one or edited', async () => {
    const u = await t.signUp()
    const [k] = (await t.json('GET', '/api/keys', { cookie: u.cookie })).body.data
    // The path exists (to revoke): other methods are 405 with Allow: DELETE.
    const read = await t.request('GET', `/api/keys/${k.id}`, { cookie: u.cookie })
    expect(read.status).toBe(405)
    expect(read.headers.get('allow')).toBe('DELETE, OPTIONS')
    expect((await t.request('PATCH', `/api/keys/${k.id}`, { cookie: u.cookie, body: { label: 'x' } })).status).toBe(405)
  })
})
