// A conversation sent from outside, as an agent sends it: messages in batches with speakers, times and order,
// appended later, read back in order, each message its own searchable document; sending one again updates it.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { createWorkspace, storedCount } from '../documents/documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

const start = (u: TestUser, body: Record<string, unknown>) => t.json('POST', '/api/threads', { key: u.key, body })
const append = (u: TestUser, id: string, messages: unknown[]) =>
  t.json('POST', `/api/threads/${id}/messages`, { key: u.key, body: { messages } })
const readBack = async (u: TestUser, id: string, query = '') => {
  const res = await t.json('GET', `/api/threads/${id}/messages${query}`, { key: u.key })
  expect(res.status).toBe(200)
  return res.body
}

const may8 = (minute: number) => `2023-05-08T13:${String(minute).padStart(2, '0')}:00Z`

describe('sending a conversation', () => {
  test('a thread starts with its first messages, takes more later, and reads back in order with speakers and times', async () => {
    const u = await t.signUp()
    const res = await start(u, {
      title: 'Caroline and Melanie',
      external_id: 'conv-26',
      messages: [
        { speaker: 'Caroline', content: 'I went to a support group yesterday.', occurred_at: may8(56) },
        { speaker: 'Melanie', content: 'That sounds powerful! How did it go?', occurred_at: may8(57) },
      ],
    })
    expect(res.status).toBe(201)
    expect(res.headers.get('location')).toBe(`/api/threads/${res.body.id}`)
    expect(res.body).toMatchObject({ title: 'Caroline and Melanie', external_id: 'conv-26', message_count: 2 })
    expect(res.body.results).toMatchObject({ created: 2, updated: 0, failed: 0 })
    expect(res.body.first_occurred_at).toBe('2023-05-08T13:56:00.000Z')

    const more = await append(u, res.body.id, [{ role: 'user', content: 'Yes! It was so powerful.', occurred_at: may8(58) }])
    expect(more.status).toBe(200)
    expect(more.body).toMatchObject({ created: 1, updated: 0, failed: 0 })
    const [third] = more.body.results
    expect(third.document).toMatchObject({ kind: 'message', speaker: 'user', position: 2, thread_id: res.body.id })

    const { data, next_position } = await readBack(u, res.body.id)
    expect(next_position).toBeNull()
    expect(data.map((m: { position: number; speaker: string }) => [m.position, m.speaker])).toEqual([
      [0, 'Caroline'],
      [1, 'Melanie'],
      [2, 'user'],
    ])
    expect(data[0]).toMatchObject({
      title: 'Caroline · 8 May 2023, 13:56',
      body: 'I went to a support group yesterday.',
      occurred_at: '2023-05-08T13:56:00.000Z',
    })
    // Every message is a document of its own: addressable, in lists by kind.
    const one = await t.json('GET', `/api/documents/${data[1].id}`, { key: u.key })
    expect(one.body).toMatchObject({ kind: 'message', speaker: 'Melanie', body: 'That sounds powerful! How did it go?' })
    const listed = await t.json('GET', '/api/documents?kind=message', { key: u.key })
    expect(listed.body.data).toHaveLength(3)
  })

  test('no body at all, like {}, starts an untitled thread', async () => {
    const u = await t.signUp()
    const bare = await t.json('POST', '/api/threads', { key: u.key })
    expect(bare.status).toBe(201)
    expect(bare.body).toMatchObject({ id: expect.any(String), message_count: 0 })
    expect((await start(u, {})).status).toBe(201)
  })

  test('the same external_id names the same thread; messages page by position', async () => {
    const u = await t.signUp()
    const first = await start(u, { external_id: 'chat-1' })
    const again = await start(u, {
      external_id: 'chat-1',
      messages: Array.from({ length: 5 }, (_, i) => ({ speaker: i % 2 ? 'Bo' : 'Al', content: `line ${i}` })),
    })
    expect(first.status).toBe(201)
    expect(again.status).toBe(200)
    expect(again.body.id).toBe(first.body.id)
    expect(again.body.message_count).toBe(5)
    const page = await readBack(u, first.body.id, '?limit=2')
    expect(page.data.map((m: { body: string }) => m.body)).toEqual(['line 0', 'line 1'])
    expect(page.next_position).toBe(2)
    const rest = await readBack(u, first.body.id, `?from_position=${page.next_position}&limit=10`)
    expect(rest.data.map((m: { body: string }) => m.body)).toEqual(['line 2', 'line 3', 'line 4'])
    const list = await t.json('GET', '/api/threads', { key: u.key })
    expect(list.body.data.map((th: { id: string }) => th.id)).toEqual([first.body.id])
  })

  test('an external_id that names a thread of another workspace is a 409 naming that workspace, and nothing is added', async () => {
    const u = await t.signUp()
    const other = await createWorkspace(t, u, 'Elsewhere')
    const first = await start(u, { external_id: 'chat-ws' })
    const clash = await start(u, { external_id: 'chat-ws', workspace_id: other, messages: [{ speaker: 'Al', content: 'hi' }] })
    expect(clash.status).toBe(409)
    expect(clash.body.error).toContain(first.body.workspace_id)
    expect((await t.json('GET', `/api/threads/${first.body.id}`, { key: u.key })).body.message_count).toBe(0)
    expect((await t.json('GET', '/api/threads', { key: u.key })).body.data).toHaveLength(1)
  })

  test('sending a message again (its client id, or its position) updates it instead of duplicating it', async () => {
    const u = await t.signUp()
    const { body: thread } = await start(u, {
      messages: [
        { speaker: 'Al', content: 'Take care!', client_id: 'm1' },
        { speaker: 'Bo', content: 'Take care!', client_id: 'm2' },
      ],
    })
    // The same text twice is two messages: text never deduplicates a message.
    expect(thread.results).toMatchObject({ created: 2 })
    const again = await append(u, thread.id, [
      { speaker: 'Al', content: 'Take care, see you Friday!', client_id: 'm1' },
      { speaker: 'Bo', content: 'Bye!', position: 1 },
      { speaker: 'Al', content: 'New one', client_id: 'm3' },
    ])
    expect(again.body.results.map((r: { status: number }) => r.status)).toEqual([200, 200, 201])
    const { data } = await readBack(u, thread.id)
    expect(data.map((m: { body: string; position: number }) => [m.position, m.body])).toEqual([
      [0, 'Take care, see you Friday!'],
      [1, 'Bye!'],
      [2, 'New one'],
    ])
    expect(await storedCount(t, u)).toBe(3)
    // A new client id at a taken position is a conflict for that message alone.
    const clash = await append(u, thread.id, [
      { speaker: 'Al', content: 'clash', client_id: 'm9', position: 0 },
      { speaker: 'Bo', content: 'fine' },
    ])
    expect(clash.body.results.map((r: { status: number }) => r.status)).toEqual([409, 201])
    expect(clash.body.results[0].error).toBe('position 0 of the thread holds another message')
  })

  test('a message is found by search like any document', async () => {
    const u = await t.signUp()
    const { body: thread } = await start(u, {
      messages: [{ speaker: 'Melanie', content: 'I painted a sunrise over the lake last weekend.', occurred_at: may8(1) }],
    })
    const res = await t.json('GET', '/api/search?q=painted%20sunrise&mode=keyword', { key: u.key })
    expect(res.body.results[0].document).toMatchObject({ kind: 'message', thread_id: thread.id, speaker: 'Melanie' })
  })

  test('a bad message answers its own 400 and the others are written; no speaker or role is named as the problem', async () => {
    const u = await t.signUp()
    const { body: thread } = await start(u, {})
    const res = await append(u, thread.id, [
      { speaker: 'Al', content: 'fine' },
      { content: 'who said this?' },
      { speaker: 'Al', content: '' },
      { speaker: 'Al', content: 'when?', occurred_at: 'yesterday' },
      'not a message',
    ])
    expect(res.status).toBe(200)
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 400, 400, 400])
    expect(res.body.results[1].error).toBe('messages[1]: give speaker (a name) or role (user, assistant, system, tool)')
    expect(res.body.results[2].error).toStartWith('messages[2].content:')
    expect(res.body.results[3].error).toStartWith('messages[3].occurred_at: occurred_at must be an ISO 8601 date-time')
    expect(await storedCount(t, u)).toBe(1)
  })
})

describe('lifecycle', () => {
  test('archiving a message hides it from the read-back; deleting the thread deletes its messages', async () => {
    const u = await t.signUp()
    const { body: thread } = await start(u, {
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two' },
      ],
    })
    const [first] = thread.results.results
    expect((await t.json('POST', `/api/documents/${first.document.id}/archive`, { key: u.key })).status).toBe(200)
    expect((await readBack(u, thread.id)).data.map((m: { body: string }) => m.body)).toEqual(['two'])
    expect((await t.json('DELETE', `/api/threads/${thread.id}`, { key: u.key })).status).toBe(204)
    expect((await t.json('GET', `/api/threads/${thread.id}`, { key: u.key })).status).toBe(404)
    expect(await storedCount(t, u)).toBe(0)
  })

  test('forgetting a thread purges every message from search, leaving content-free tombstones', async () => {
    const u = await t.signUp()
    const { body: thread } = await start(u, {
      messages: [
        { speaker: 'Al', content: 'my locker code is zebra-4471', client_id: 'secret' },
        { speaker: 'Bo', content: 'noted' },
      ],
    })
    expect((await t.json('POST', `/api/threads/${thread.id}/forget`, { key: u.key })).status).toBe(204)
    expect(await storedCount(t, u)).toBe(0)
    const search = await t.json('GET', '/api/search?q=zebra&mode=keyword', { key: u.key })
    expect(search.body.results).toEqual([])
    const tombstones = await queryRows<{ external_id: string | null; source_ref: string | null }>(
      t.deps.db,
      sql`select external_id, source_ref from tombstones where user_id = ${u.id}`,
    )
    expect(tombstones).toHaveLength(2)
    expect(tombstones.every((r) => r.external_id === null && r.source_ref === null)).toBe(true)
  })

  test('a thread lives in a workspace: deleting the workspace deletes it', async () => {
    const u = await t.signUp()
    const ws = await createWorkspace(t, u)
    const { body: thread } = await start(u, { workspace_id: ws, messages: [{ role: 'user', content: 'hello' }] })
    expect(thread.workspace_id).toBe(ws)
    expect((await t.json('GET', `/api/threads?workspace_id=${ws}`, { key: u.key })).body.data).toHaveLength(1)
    expect((await t.json('DELETE', `/api/workspaces/${ws}`, { key: u.key })).status).toBe(204)
    expect((await t.json('GET', `/api/threads/${thread.id}`, { key: u.key })).status).toBe(404)
  })

  test("another user's thread is a 404 on every route, and stays untouched", async () => {
    const owner = await t.signUp()
    const stranger = await t.signUp()
    const { body: thread } = await start(owner, { messages: [{ role: 'user', content: 'mine' }] })
    for (const [method, path, body] of [
      ['GET', `/api/threads/${thread.id}`],
      ['GET', `/api/threads/${thread.id}/messages`],
      ['PATCH', `/api/threads/${thread.id}`, { title: 'x' }],
      ['POST', `/api/threads/${thread.id}/messages`, { messages: [{ role: 'user', content: 'theirs' }] }],
      ['POST', `/api/threads/${thread.id}/forget`],
      ['DELETE', `/api/threads/${thread.id}`],
    ] as const) {
      const res = await t.json(method, path, { key: stranger.key, body })
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.body.error).toBe(`thread ${thread.id} not found`)
    }
    expect((await readBack(owner, thread.id)).data).toHaveLength(1)
  })
})

describe('plan limits', () => {
  test('messages count against the document cap like any document: a batch past it is refused whole with 402', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_DOCUMENTS: '3' } })
    try {
      const u = await capped.signUp()
      const { body: thread } = await capped.json('POST', '/api/threads', {
        key: u.key,
        body: { messages: [{ role: 'user', content: 'a' }] },
      })
      const res = await capped.json('POST', `/api/threads/${thread.id}/messages`, {
        key: u.key,
        body: { messages: ['b', 'c', 'd'].map((content) => ({ role: 'user', content })) },
      })
      expect(res.status).toBe(402)
      expect(res.body.error).toContain('document limit reached')
      expect(await storedCount(capped, u)).toBe(1)
    } finally {
      await capped.close()
    }
  })
})
