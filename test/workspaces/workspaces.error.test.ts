// /api/workspaces refusals: plan caps (402), invalid names and queries (400), unknown ids (404), the last workspace (409).
import { afterAll, beforeAll, describe, expect, test, setDefaultTimeout } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'

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

const workspaceIds = async (u: TestUser) =>
  (await t.json('GET', '/api/workspaces', { key: u.key })).body.data.map((w: { id: string }) => w.id) as string[]

describe('plan cap', () => {
  test('free plan: the third workspace is 402 naming the limit and the plan; nothing is created', async () => {
    const u = await t.signUp()
    expect((await t.request('POST', '/api/workspaces', { key: u.key, body: { name: 'second' } })).status).toBe(201)
    const message = await expectError(await t.request('POST', '/api/workspaces', { key: u.key, body: { name: 'third' } }), 402)
    expect(message).toContain('workspace')
    expect(message).toContain('free')
    expect(message).toContain('2')
    expect(message).toContain('pro')
    expect(await workspaceIds(u)).toHaveLength(2)
  })

  test('deleting one makes room again', async () => {
    const u = await t.signUp()
    const second = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'second' } })).body
    expect((await t.request('DELETE', `/api/workspaces/${second.id}`, { key: u.key })).status).toBe(204)
    expect((await t.request('POST', '/api/workspaces', { key: u.key, body: { name: 'again' } })).status).toBe(201)
  })

  test('concurrent creates cannot pass the cap', async () => {
    const u = await t.signUp()
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => t.request('POST', '/api/workspaces', { key: u.key, body: { name: `race ${i}` } })),
    )
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402, 402])
    expect(await workspaceIds(u)).toHaveLength(2)
  })

  test('pro plan: 20 workspaces, the 21st is 402', async () => {
    const pro = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
    try {
      const u = await pro.signUp()
      for (let i = 2; i <= 20; i++)
        expect((await pro.request('POST', '/api/workspaces', { key: u.key, body: { name: `w${i}` } })).status).toBe(201)
      const res = await pro.json('POST', '/api/workspaces', { key: u.key, body: { name: 'w21' } })
      expect(res.status).toBe(402)
      expect(res.body.error).toContain('20')
    } finally {
      await pro.close()
    }
  })
})

describe('invalid input (400 naming the field)', () => {
  test('create: missing, empty, blank, too long or mistyped name', async () => {
    const u = await t.signUp()
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'n'.repeat(101) }, { name: 42 }, { name: null }]) {
      expect(await expectError(await t.request('POST', '/api/workspaces', { key: u.key, body }), 400)).toContain('name')
    }
    expect(await workspaceIds(u)).toHaveLength(1)
  })

  test('create: a description over 1000 characters', async () => {
    const u = await t.signUp()
    expect(
      await expectError(
        await t.request('POST', '/api/workspaces', { key: u.key, body: { name: 'ok', description: 'd'.repeat(1001) } }),
        400,
      ),
    ).toContain('description')
  })

  test('create: malformed JSON and no body', async () => {
    const u = await t.signUp()
    await expectError(
      await t.request('POST', '/api/workspaces', { key: u.key, body: '{"name":', headers: { 'content-type': 'application/json' } }),
      400,
    )
    await expectError(await t.request('POST', '/api/workspaces', { key: u.key }), 400)
  })

  test('rename: an empty patch, or a blank name, changes nothing', async () => {
    const u = await t.signUp()
    const [id] = await workspaceIds(u)
    await expectError(await t.request('PATCH', `/api/workspaces/${id}`, { key: u.key, body: {} }), 400)
    expect(await expectError(await t.request('PATCH', `/api/workspaces/${id}`, { key: u.key, body: { name: '  ' } }), 400)).toContain(
      'name',
    )
    expect((await t.json('GET', '/api/workspaces', { key: u.key })).body.data[0].name).toBe('Default')
  })

  test('ids that are not UUIDs', async () => {
    const u = await t.signUp()
    for (const [method, path, body] of [
      ['PATCH', '/api/workspaces/not-a-uuid', { name: 'x' }],
      ['DELETE', '/api/workspaces/not-a-uuid', undefined],
      ['GET', '/api/workspaces/not-a-uuid/context', undefined],
    ] as const) {
      expect(await expectError(await t.request(method, path, { key: u.key, body }), 400)).toContain('id')
    }
  })

  test('bad max_tokens is 400 naming it', async () => {
    const u = await t.signUp()
    const [id] = await workspaceIds(u)
    for (const value of ['abc', '49', '0', '-1', '200001', '1.5', '1e9']) {
      const message = await expectError(await t.request('GET', `/api/workspaces/${id}/context?max_tokens=${value}`, { key: u.key }), 400)
      expect(message).toContain('max_tokens')
    }
  })

  test('bad paging parameters', async () => {
    const u = await t.signUp()
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=not-a-cursor']) {
      await expectError(await t.request('GET', `/api/workspaces?${query}`, { key: u.key }), 400)
    }
  })
})

describe('unknown workspaces (404)', () => {
  test('rename, delete and context of an id that does not exist', async () => {
    const u = await t.signUp()
    const id = crypto.randomUUID()
    expect(await expectError(await t.request('PATCH', `/api/workspaces/${id}`, { key: u.key, body: { name: 'x' } }), 404)).toContain(
      'not found',
    )
    await expectError(await t.request('DELETE', `/api/workspaces/${id}`, { key: u.key }), 404)
    await expectError(await t.request('GET', `/api/workspaces/${id}/context`, { key: u.key }), 404)
    await expectError(await t.request('GET', `/api/workspaces/${id}/context?max_tokens=500`, { key: u.key }), 404)
  })

  test('a deleted workspace is 404 afterwards', async () => {
    const u = await t.signUp()
    const w = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'short-lived' } })).body
    expect((await t.request('DELETE', `/api/workspaces/${w.id}`, { key: u.key })).status).toBe(204)
    await expectError(await t.request('DELETE', `/api/workspaces/${w.id}`, { key: u.key }), 404)
    await expectError(await t.request('PATCH', `/api/workspaces/${w.id}`, { key: u.key, body: { name: 'back?' } }), 404)
  })

  test('ingest into an unknown workspace is 404', async () => {
    const u = await t.signUp()
    await expectError(
      await t.request('POST', '/api/documents', { key: u.key, body: { workspace_id: crypto.randomUUID(), body: 'orphan' } }),
      404,
    )
  })
})

describe('the last workspace', () => {
  test('cannot be deleted: 409, and it is still there with its documents', async () => {
    const u = await t.signUp()
    const [id] = (await workspaceIds(u)) as [string]
    const doc = (await t.json('POST', '/api/documents', { key: u.key, body: { workspace_id: id, body: 'precious' } })).body
    const message = await expectError(await t.request('DELETE', `/api/workspaces/${id}`, { key: u.key }), 409)
    expect(message).toContain('last workspace')
    expect(await workspaceIds(u)).toEqual([id])
    expect((await t.request('GET', `/api/documents/${doc.id}`, { key: u.key })).status).toBe(200)
  })

  test('after deleting down to one, that one cannot be deleted', async () => {
    const u = await t.signUp()
    const second = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'second' } })).body
    const [first] = (await workspaceIds(u)).filter((id) => id !== second.id)
    expect((await t.request('DELETE', `/api/workspaces/${first}`, { key: u.key })).status).toBe(204)
    await expectError(await t.request('DELETE', `/api/workspaces/${second.id}`, { key: u.key }), 409)
  })

  test('two concurrent deletes of the last two workspaces leave one', async () => {
    const u = await t.signUp()
    await t.request('POST', '/api/workspaces', { key: u.key, body: { name: 'second' } })
    const ids = await workspaceIds(u)
    const results = await Promise.all(ids.map((id) => t.request('DELETE', `/api/workspaces/${id}`, { key: u.key })))
    expect(results.map((r) => r.status).sort()).toEqual([204, 409])
    expect(await workspaceIds(u)).toHaveLength(1)
  })
})
