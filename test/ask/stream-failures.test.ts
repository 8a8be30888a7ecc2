// A stream that fails after it began ends with an `error` event — never a silent end, never a hang — and
// the failure is logged with the request id the client got in x-request-id. Over real HTTP, for POST
// /api/ask and POST /api/agent/chat, with real failures: the database refusing the save, the conversation
// deleted while its answer was written, the source lookup failing, the model breaking mid-stream.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { deferred } from '../jobs/jobs.fixtures'
import type { TestUser } from '../harness'
import {
  addDocuments,
  answerOf,
  BACKUPS,
  events,
  gatedModel,
  readAll,
  savedOf,
  scriptedModel,
  serve,
  shape,
  withLogCapture,
  withModel,
  type Served,
  type StreamEvent,
} from './ask.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve()
})
afterAll(() => s.stop())

const QUESTION = 'How long are billing backups kept?'
const routes = [
  { path: '/api/ask', body: (extra: object = {}) => ({ question: QUESTION, ...extra }) },
  { path: '/api/agent/chat', body: (extra: object = {}) => ({ message: QUESTION, ...extra }) },
] as const

const conversationsOf = async (u: TestUser) => (await s.t.json('GET', '/api/conversations', { key: u.key })).body.data as { id: string }[]

/** Makes PostgreSQL refuse every new row of `table` for this user (a real constraint violation), while `fn` runs. */
async function refusingRows<T>(table: 'messages' | 'events', u: TestUser, fn: () => Promise<T>): Promise<T> {
  const name = sql.raw(`test_refuse_${table}_${u.id.replaceAll('-', '')}`)
  await s.t.deps.db.execute(sql`alter table ${sql.raw(table)} add constraint ${name} check (user_id <> ${sql.raw(`'${u.id}'`)}) not valid`)
  try {
    return await fn()
  } finally {
    await s.t.deps.db.execute(sql`alter table ${sql.raw(table)} drop constraint ${name}`)
  }
}

describe.each(routes)('$path', ({ path, body }) => {
  test('the database refuses the save: the answer and its sources arrive, then an error event; nothing is stored; the log names the request id', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const { result, lines } = await withLogCapture(s.t, () =>
      refusingRows('messages', u, async () => {
        const res = await s.post(path, body(), u.key)
        return { requestId: res.headers.get('x-request-id'), all: await readAll(res) }
      }),
    )
    const { requestId, all } = result
    expect(shape(all).slice(-3)).toEqual(['delta', 'sources', 'error'])
    expect(answerOf(all)).toContain('35 days')
    // What the client reads names the step; the database's own words stay in the log.
    expect(all.at(-1)).toEqual({ type: 'error', message: 'the answer could not be saved: internal error', code: 'internal' })
    expect(await conversationsOf(u)).toEqual([])

    expect(requestId).toBeTruthy()
    const logged = lines.filter((l) => l.message === 'stream failed')
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ level: 'error', request_id: requestId, path })
    expect(String(logged[0]!.error)).toContain('test_refuse_messages')
  })

  test('the conversation is deleted while its answer is written: the follow-up ends with an error event naming it', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const { id } = savedOf(await readAll(await s.post(path, body(), u.key)))
    const gate = deferred()
    const model = gatedModel(gate.promise, 'They are kept ', 'for 35 days [1].')
    const all = await withModel(s.t, model, async () => {
      const res = await s.post(path, body({ conversation_id: id }), u.key)
      const stream = events(res)
      // Ask sends its sources with the first words (the agent after its answer).
      const early = path === '/api/ask' ? [(await stream.next()).value as StreamEvent] : []
      expect(early.map((e) => e.type)).toEqual(path === '/api/ask' ? ['sources'] : [])
      const first = await stream.next()
      expect(first.value).toEqual({ type: 'delta', text: 'They are kept' })
      expect((await s.t.request('DELETE', `/api/conversations/${id}`, { key: u.key })).status).toBe(204)
      gate.resolve()
      const rest: StreamEvent[] = [...early, first.value as StreamEvent]
      for await (const event of stream) rest.push(event)
      return rest
    })
    expect(all.at(-1)).toEqual({
      type: 'error',
      message: `the answer could not be saved: conversation ${id} was deleted`,
      code: 'not_found',
    })
    expect(all.some((e) => e.type === 'saved')).toBe(false)
    expect((await s.t.json('GET', `/api/conversations/${id}`, { key: u.key })).status).toBe(404)
    expect(await conversationsOf(u)).toEqual([])
  })

  test('a model that breaks after some words: an error event after them, logged with the request id', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const broken = scriptedModel([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Backups are kept for ' },
      { type: 'error', error: new Error('upstream connection reset') },
    ])
    const { result, lines } = await withLogCapture(s.t, () =>
      withModel(s.t, broken.model, async () => {
        const res = await s.post(path, body(), u.key)
        return { requestId: res.headers.get('x-request-id'), all: await readAll(res) }
      }),
    )
    expect(result.all.at(-1)).toEqual({
      type: 'error',
      message: expect.stringContaining('upstream connection reset'),
      code: 'provider_error',
    })
    expect(lines.filter((l) => l.message === 'stream failed').map((l) => l.request_id)).toEqual([result.requestId])
  })
})

test('POST /api/ask: the source lookup fails after the stream began: an error event, not an empty stream', async () => {
  // A server of its own: its chunks table is taken away, so looking up passages fails in PostgreSQL.
  const broken = await serve()
  try {
    const u = await broken.t.signUp()
    await addDocuments(broken.t, u, [BACKUPS])
    await broken.t.deps.db.execute(sql`alter table chunks rename to chunks_gone`)
    const all = await readAll(await broken.post('/api/ask', { question: QUESTION }, u.key))
    expect(all).toEqual([{ type: 'error', message: 'the sources could not be found: internal error', code: 'internal' }])
  } finally {
    await broken.stop()
  }
})
