// The service's own conversations remembered: with the setting remember_conversations on, each turn of ask, agent
// chat and a stored /v1 response is also kept as messages of a thread tied to its conversation (the question as role
// user, the answer's text as role assistant), found by search like any document. Off — the default — nothing is kept;
// and a turn that cannot be remembered is still answered.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addDocuments, BACKUPS, serve, withLogCapture, type Served } from '../ask/ask.fixtures'
import type { TestUser } from '../harness'

let s: Served
beforeAll(async () => {
  s = await serve({ DEFAULT_PLAN: 'pro' })
})
afterAll(() => s.stop())

const JSON_ACCEPT = { headers: { accept: 'application/json' } }
const QUESTION = 'How long are billing backups kept?'

async function answered(res: Response) {
  expect(res.status).toBe(200)
  return res.json()
}
const ask = async (u: TestUser, body: Record<string, unknown>) => answered(await s.post('/api/ask', body, u.key, JSON_ACCEPT))
const agentChat = async (u: TestUser, body: Record<string, unknown>) => answered(await s.post('/api/agent/chat', body, u.key, JSON_ACCEPT))
const respond = async (u: TestUser, body: Record<string, unknown>) =>
  answered(await s.post('/v1/responses', { model: 'service-rag', ...body }, u.key))

async function remembering(u: TestUser) {
  const res = await s.t.json('PATCH', '/api/settings', { key: u.key, body: { remember_conversations: true } })
  expect(res.status).toBe(200)
  expect(res.body.remember_conversations).toBe(true)
}
const threadsOf = async (u: TestUser) => (await s.t.json('GET', '/api/threads', { key: u.key })).body.data as Record<string, any>[]
const messagesOf = async (u: TestUser, threadId: string) =>
  (await s.t.json('GET', `/api/threads/${threadId}/messages`, { key: u.key })).body.data as Record<string, any>[]
const said = (messages: Record<string, any>[]) => messages.map((m) => [m.speaker, m.body])

describe('the setting', () => {
  test('is off for a new account, is read and written through /api/settings, and the OpenAPI document says what it does', async () => {
    const u = await s.t.signUp()
    expect((await s.t.json('GET', '/api/settings', { key: u.key })).body.remember_conversations).toBe(false)
    await remembering(u)
    expect((await s.t.json('GET', '/api/settings', { cookie: u.cookie })).body.remember_conversations).toBe(true)
    const off = await s.t.json('PATCH', '/api/settings', { key: u.key, body: { remember_conversations: false } })
    expect(off.body.remember_conversations).toBe(false)

    const doc = (await (await fetch(`${s.url}/openapi/json`)).json()) as any
    const field = doc.components.schemas.Settings.properties.remember_conversations
    expect(field.type).toBe('boolean')
    expect(field.description).toContain('Off by default')
    expect(field.description).toContain('/api/ask')
  })

  test('off: an answered conversation leaves no thread and no message', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const first = await ask(u, { question: QUESTION })
    await ask(u, { question: 'When are restores rehearsed?', conversation_id: first.conversation.id })
    await agentChat(u, { message: QUESTION })
    await respond(u, { input: QUESTION })
    expect(await threadsOf(u)).toEqual([])
    expect((await s.t.json('GET', '/api/documents?kind=message', { key: u.key })).body.data).toEqual([])
  })
})

describe('on', () => {
  test('ask: each turn of a conversation goes to one thread tied to it, question and answer text without the sources; search finds it', async () => {
    const u = await s.t.signUp()
    const [backups] = await addDocuments(s.t, u, [BACKUPS])
    await remembering(u)
    const first = await ask(u, { question: QUESTION })
    expect(first.answer).toContain('[1]')
    const second = await ask(u, { question: 'When are restores rehearsed?', conversation_id: first.conversation.id })

    const [thread, ...others] = await threadsOf(u)
    expect(others).toEqual([])
    expect(thread).toMatchObject({
      conversation_id: first.conversation.id,
      title: first.conversation.name,
      workspace_id: (await s.t.json('GET', `/api/documents/${backups!.id}`, { key: u.key })).body.workspace_id,
      message_count: 4,
    })
    const messages = await messagesOf(u, thread!.id)
    const strip = (answer: string) => answer.replace(/\s*\[\d+\]/g, '')
    expect(said(messages)).toEqual([
      ['user', QUESTION],
      ['assistant', strip(first.answer)],
      ['user', 'When are restores rehearsed?'],
      ['assistant', strip(second.answer)],
    ])
    // Only the text: no [n] marker pointing at sources the message does not carry; the cited document is named.
    expect(messages[1]!.body).not.toContain('[1]')
    expect(messages[1]!.metadata).toEqual({ remembered_from: 'ask', cited: [backups!.id] })
    // With its time: when the conversation's own messages were stored.
    const conversation = await s.t.json('GET', `/api/conversations/${first.conversation.id}`, { key: u.key })
    expect(messages[0]!.occurred_at).toBe(conversation.body.messages[0].created_at)
    expect(messages.every((m) => m.kind === 'message' && m.source === 'api')).toBe(true)

    const found = await s.t.json('GET', '/api/search?q=restores%20rehearsed&mode=keyword&kind=message', { key: u.key })
    expect(found.body.results.map((r: { document: { id: string } }) => r.document.id)).toContain(messages[2]!.id)
  })

  test("ask in a workspace: the thread is in the conversation's workspace", async () => {
    const u = await s.t.signUp()
    const ws = (await s.t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Ops' } })).body.id
    await remembering(u)
    const res = await ask(u, { question: 'Anything about the zeppelin hangar?', workspace_id: ws })
    const [thread] = await threadsOf(u)
    expect(thread).toMatchObject({ conversation_id: res.conversation.id, workspace_id: ws })
  })

  test('agent chat: its turns go to the thread of its conversation, written by the agent', async () => {
    const u = await s.t.signUp()
    const [backups] = await addDocuments(s.t, u, [BACKUPS])
    await remembering(u)
    const first = await agentChat(u, { message: QUESTION })
    await agentChat(u, { message: 'When are restores rehearsed?', conversation_id: first.conversation.id })
    const [thread, ...others] = await threadsOf(u)
    expect(others).toEqual([])
    expect(thread).toMatchObject({ conversation_id: first.conversation.id, message_count: 4 })
    const messages = await messagesOf(u, thread!.id)
    expect(messages.map((m) => m.speaker)).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(messages[1]!.body).toContain('35 days')
    expect(messages[1]!.metadata).toEqual({ remembered_from: 'agent', cited: [backups!.id] })
    expect(messages.every((m) => m.source === 'agent')).toBe(true)
    const found = await s.t.json('GET', '/api/search?q=billing%20backups%20kept&mode=keyword&kind=message', { key: u.key })
    expect(found.body.results.map((r: { document: { id: string } }) => r.document.id)).toContain(messages[0]!.id)
  })

  test('/v1/responses: a chain of stored responses is one conversation, one thread; store: false keeps nothing', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    await remembering(u)
    const first = await respond(u, { input: QUESTION })
    const second = await respond(u, { input: 'When are restores rehearsed?', previous_response_id: first.id })
    expect(second.status).toBe('completed')
    await respond(u, { input: 'Where are they kept?', store: false })

    const [thread, ...others] = await threadsOf(u)
    expect(others).toEqual([])
    expect(thread).toMatchObject({ title: QUESTION, conversation_id: null, message_count: 4, metadata: { remembered_from: 'v1' } })
    const messages = await messagesOf(u, thread!.id)
    const text = (r: { output: { content: { text: string }[] }[] }) => r.output[0]!.content[0]!.text.replace(/\s*\[\d+\]/g, '')
    expect(said(messages)).toEqual([
      ['user', QUESTION],
      ['assistant', text(first)],
      ['user', 'When are restores rehearsed?'],
      ['assistant', text(second)],
    ])
    const found = await s.t.json('GET', '/api/search?q=restores%20rehearsed&mode=keyword&kind=message', { key: u.key })
    expect(found.body.results.map((r: { document: { id: string } }) => r.document.id)).toContain(messages[2]!.id)
  })

  test('deleting the thread does not stop remembering: the next turn starts a new one', async () => {
    const u = await s.t.signUp()
    await remembering(u)
    const first = await ask(u, { question: 'What is the zeppelin hangar code?' })
    const [thread] = await threadsOf(u)
    expect((await s.t.json('DELETE', `/api/threads/${thread!.id}`, { key: u.key })).status).toBe(204)
    await ask(u, { question: 'And the gate code?', conversation_id: first.conversation.id })
    const [again] = await threadsOf(u)
    expect(again).toMatchObject({ conversation_id: first.conversation.id, message_count: 2 })
    expect(again!.id).not.toBe(thread!.id)
  })
})

describe('a turn that cannot be remembered', () => {
  test('is still answered and saved in its conversation; the failure is logged', async () => {
    const capped = await serve({ DEFAULT_PLAN: 'free', PLAN_FREE_DOCUMENTS: '1' })
    try {
      const u = await capped.t.signUp()
      await addDocuments(capped.t, u, [BACKUPS])
      expect((await capped.t.json('PATCH', '/api/settings', { key: u.key, body: { remember_conversations: true } })).status).toBe(200)
      // The plan holds one document, the backup policy: the turn's two messages would pass it.
      const { result: res, lines } = await withLogCapture(capped.t, () =>
        capped.post('/api/ask', { question: QUESTION }, u.key, JSON_ACCEPT),
      )
      expect(res.status).toBe(200)
      const body = await res.json()
      expect(body.answer).toContain('35 days')
      const conversation = await capped.t.json('GET', `/api/conversations/${body.conversation.id}`, { key: u.key })
      expect(conversation.body.messages).toHaveLength(2)
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'warn', message: 'a conversation turn could not be remembered', surface: 'ask' }),
      )
      expect(lines.find((l) => l.message === 'a conversation turn could not be remembered')!.error).toContain('document limit')
      expect((await capped.t.json('GET', '/api/documents?kind=message', { key: u.key })).body.data).toEqual([])

      // The stream too ends as it always does: sources, then saved.
      const streamed = await capped.post('/api/agent/chat', { message: QUESTION, conversation_id: body.conversation.id }, u.key)
      const text = await streamed.text()
      expect(text).toContain('"type":"saved"')
      expect(text).not.toContain('"type":"error"')
    } finally {
      await capped.stop()
    }
  })
})
