// An agent keeps a conversation through MCP over Streamable HTTP (the SDK's Client against a listening server):
// add_messages starts a thread by the agent's own id and appends to it later, read_thread reads it back in order,
// list_threads finds it, and each message is a searchable document stored with source mcp.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestUser } from '../harness'
import { call, errorText, httpClient, startMcpServer, structured, type McpTestServer } from './server'

let s: McpTestServer
let user: TestUser
let client: Client

beforeAll(async () => {
  s = await startMcpServer()
  user = await s.t.signUp()
  client = await httpClient(s.url, user.key)
})
afterAll(async () => {
  await client?.close()
  await s.stop()
})

const may8 = (minute: number) => `2023-05-08T13:${String(minute).padStart(2, '0')}:00Z`

describe('a conversation through MCP', () => {
  test('add_messages starts a thread by external_id, appends to it by the same id, and read_thread reads it back in order', async () => {
    const first = structured(
      await call(client, 'add_messages', {
        external_id: 'session-42',
        title: 'Caroline and Melanie',
        messages: [
          { speaker: 'Caroline', content: 'I went to a support group yesterday.', occurred_at: may8(56), client_id: 'm1' },
          { speaker: 'Melanie', content: 'That sounds powerful! How did it go?', occurred_at: may8(57), client_id: 'm2' },
        ],
      }),
    )
    expect(first).toMatchObject({ started: true, created: 2, updated: 0, failed: 0 })
    expect(first.results).toEqual([
      { status: 201, id: expect.any(String), position: 0 },
      { status: 201, id: expect.any(String), position: 1 },
    ])

    // Later, the same conversation by the agent's own id: appended, and a message sent again updated.
    const later = structured(
      await call(client, 'add_messages', {
        external_id: 'session-42',
        messages: [
          { role: 'user', content: 'Yes! It was so powerful.', occurred_at: may8(58) },
          { speaker: 'Melanie', content: 'That sounds powerful! How did it go for you?', client_id: 'm2' },
        ],
      }),
    )
    expect(later).toMatchObject({ thread_id: first.thread_id, started: false, created: 1, updated: 1, failed: 0 })
    expect(later.results.map((r: { status: number; position: number }) => [r.status, r.position])).toEqual([
      [201, 2],
      [200, 1],
    ])

    const read = structured(await call(client, 'read_thread', { thread_id: first.thread_id }))
    expect(read.next_position).toBeNull()
    expect(read.messages.map((m: { position: number; speaker: string; content: string }) => [m.position, m.speaker, m.content])).toEqual([
      [0, 'Caroline', 'I went to a support group yesterday.'],
      [1, 'Melanie', 'That sounds powerful! How did it go for you?'],
      [2, 'user', 'Yes! It was so powerful.'],
    ])
    expect(read.messages[0]).toMatchObject({ id: first.results[0].id, occurred_at: '2023-05-08T13:56:00.000Z' })

    // Each message is a document like any other, stored with source mcp, found by search.
    const doc = await s.t.json('GET', `/api/documents/${first.results[0].id}`, { key: user.key })
    expect(doc.body).toMatchObject({ kind: 'message', source: 'mcp', thread_id: first.thread_id, speaker: 'Caroline' })
    const found = structured(await call(client, 'search', { query: 'support group', mode: 'keyword' }))
    expect(found.results.map((r: { id: string }) => r.id)).toContain(first.results[0].id)

    const listed = structured(await call(client, 'list_threads', {}))
    expect(listed.threads).toEqual([
      expect.objectContaining({
        id: first.thread_id,
        title: 'Caroline and Melanie',
        external_id: 'session-42',
        message_count: 3,
        first_occurred_at: '2023-05-08T13:56:00.000Z',
      }),
    ])
  })

  test('add_messages by thread_id appends; read_thread pages by position', async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    try {
      const started = structured(await call(c, 'add_messages', { messages: [{ speaker: 'Al', content: 'line 0' }] }))
      expect(started).toMatchObject({ started: true, created: 1 })
      const more = structured(
        await call(c, 'add_messages', {
          thread_id: started.thread_id,
          messages: Array.from({ length: 4 }, (_, i) => ({ speaker: i % 2 ? 'Al' : 'Bo', content: `line ${i + 1}` })),
        }),
      )
      expect(more).toMatchObject({ thread_id: started.thread_id, started: false, created: 4 })
      const page = structured(await call(c, 'read_thread', { thread_id: started.thread_id, limit: 2 }))
      expect(page.messages.map((m: { content: string }) => m.content)).toEqual(['line 0', 'line 1'])
      expect(page.next_position).toBe(2)
      const rest = structured(await call(c, 'read_thread', { thread_id: started.thread_id, from_position: page.next_position }))
      expect(rest.messages.map((m: { content: string }) => m.content)).toEqual(['line 2', 'line 3', 'line 4'])
      expect(rest.next_position).toBeNull()
    } finally {
      await c.close()
    }
  })

  test('a refused message gets its own result and the others are stored; errors of the API come back as isError', async () => {
    const u = await s.t.signUp()
    const c = await httpClient(s.url, u.key)
    try {
      const done = structured(
        await call(c, 'add_messages', {
          messages: [{ speaker: 'Al', content: 'fine' }, { content: 'who said this?' }, { role: 'assistant', content: 'noted' }],
        }),
      )
      expect(done).toMatchObject({ created: 2, failed: 1 })
      expect(done.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 201])
      expect(done.results[1]).toEqual({
        status: 400,
        error: 'messages[1]: give speaker (a name) or role (user, assistant, system, tool)',
        code: expect.any(String),
      })

      // A value no message may hold (the route's own limit, listed in the tool's input): the call is refused, naming
      // the field, before anything is stored.
      const refused = await call(c, 'add_messages', {
        thread_id: done.thread_id,
        messages: [
          { speaker: 'Al', content: 'kept?' },
          { speaker: 'Al', content: 'when?', occurred_at: 'yesterday' },
        ],
      })
      expect(errorText(refused)).toContain('occurred_at')

      // thread_id with what would start another thread: refused before anything is stored.
      expect(
        errorText(await call(c, 'add_messages', { thread_id: done.thread_id, title: 'x', messages: [{ speaker: 'Al', content: 'y' }] })),
      ).toContain('give thread_id alone')
      // Another user's thread is as missing as one that never existed.
      const theirs = structured(await call(client, 'add_messages', { messages: [{ speaker: 'Zed', content: 'mine' }] }))
      expect(errorText(await call(c, 'read_thread', { thread_id: theirs.thread_id }))).toBe(
        `thread ${theirs.thread_id} not found (HTTP 404 from GET /api/threads/${theirs.thread_id}/messages)`,
      )
      expect(
        errorText(await call(c, 'add_messages', { thread_id: theirs.thread_id, messages: [{ speaker: 'Al', content: 'y' }] })),
      ).toContain('HTTP 404')
      expect((await s.t.json('GET', `/api/threads/${done.thread_id}`, { key: u.key })).body.message_count).toBe(2)
    } finally {
      await c.close()
    }
  })

  test('the tools are listed with annotations saying what they change', async () => {
    const { tools } = await client.listTools()
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]))
    expect(byName.add_messages?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false })
    expect(byName.read_thread?.annotations).toMatchObject({ readOnlyHint: true })
    expect(byName.list_threads?.annotations).toMatchObject({ readOnlyHint: true })
  })
})
