// Ask and agent chat for clients that cannot read server-sent events (openapi-generator's python and
// typescript-fetch clients among them): `Accept: application/json` or `stream: false` answers the same answer
// as one JSON object, from the same producer as the stream. The stream stays the default; refusals keep their
// 4xx; a provider failing mid-way is a 502 instead of a stream's `error` event.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { MockLanguageModelV4 } from 'ai/test'
import type { TestUser } from '../harness'
import { addDocuments, BACKUPS, readAll, scriptedModel, serve, shape, textStep, toolStep, withModel, type Served } from './ask.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve()
})
afterAll(() => s.stop())

const JSON_ACCEPT = { headers: { accept: 'application/json' } }
const ask = (u: TestUser, body: Record<string, unknown>, init?: RequestInit) => s.post('/api/ask', body, u.key, init)
const chat = (u: TestUser, body: Record<string, unknown>, init?: RequestInit) => s.post('/api/agent/chat', body, u.key, init)
const conversationsOf = async (u: TestUser) => (await s.t.json('GET', '/api/conversations', { key: u.key })).body.data as { id: string }[]
const failing = () =>
  new MockLanguageModelV4({
    doStream: async () => {
      throw new Error('provider unavailable')
    },
  })

describe('POST /api/ask as one JSON answer', () => {
  test('Accept: application/json: the answer, its sources and the conversation it was saved in, as the stream would give them', async () => {
    const u = await s.t.signUp()
    const [backups] = await addDocuments(s.t, u, [BACKUPS])
    const res = await ask(u, { question: 'How long are billing backups kept?' }, JSON_ACCEPT)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    expect(res.headers.get('ratelimit-limit')).not.toBeNull()
    const body = await res.json()
    expect(Object.keys(body).sort()).toEqual(['answer', 'conversation', 'sources'])
    expect(body.answer).toContain('35 days')
    expect(body.sources.map((src: { document_id: string }) => src.document_id)).toEqual([backups!.id])
    // Saved as a conversation, exactly as answered: a follow-up continues it.
    const saved = await s.t.json('GET', `/api/conversations/${body.conversation.id}`, { key: u.key })
    expect(saved.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'How long are billing backups kept?'],
      ['assistant', body.answer],
    ])
    const followUp = await ask(u, { question: 'And where are they kept?', conversation_id: body.conversation.id }, JSON_ACCEPT)
    expect((await followUp.json()).conversation.id).toBe(body.conversation.id)
  })

  test('stream: false in the body does the same whatever Accept says; stream: true streams whatever Accept says', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const json = await ask(
      u,
      { question: 'How long are billing backups kept?', stream: false },
      { headers: { accept: 'text/event-stream' } },
    )
    expect(json.headers.get('content-type')).toStartWith('application/json')
    expect((await json.json()).answer).toContain('35 days')
    const streamed = await ask(u, { question: 'How long are billing backups kept?', stream: true }, JSON_ACCEPT)
    expect(shape(await readAll(streamed)).slice(-2)).toEqual(['sources', 'saved'])
  })

  test('the stream stays the default: no Accept, any type, text/event-stream, or a tie with JSON', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    for (const accept of [undefined, '*/*', 'text/event-stream', 'application/json, text/event-stream', 'application/json;q=0.5, */*']) {
      const res = await ask(u, { question: 'How long are billing backups kept?' }, accept ? { headers: { accept } } : {})
      expect({ accept, type: res.headers.get('content-type') }).toEqual({ accept, type: expect.stringMatching(/^text\/event-stream/) })
      await res.body?.cancel()
    }
    const preferred = await ask(
      u,
      { question: 'How long are billing backups kept?' },
      { headers: { accept: 'text/event-stream;q=0.1, application/json' } },
    )
    expect(preferred.headers.get('content-type')).toStartWith('application/json')
    await preferred.body?.cancel()
  })

  test('refusals before the answer keep their 4xx JSON: an empty question 400, an unknown conversation 404', async () => {
    const u = await s.t.signUp()
    const empty = await ask(u, { question: '   ' }, JSON_ACCEPT)
    expect({ status: empty.status, code: (await empty.json()).code }).toEqual({ status: 400, code: 'invalid_request' })
    const unknown = await ask(u, { question: 'and then?', conversation_id: crypto.randomUUID() }, JSON_ACCEPT)
    expect({ status: unknown.status, code: (await unknown.json()).code }).toEqual({ status: 404, code: 'not_found' })
  })

  test('a model that breaks after some words is a 502 { error, code: provider_error }, not a cut answer; nothing is saved', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const broken = scriptedModel([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Backups are kept for ' },
      { type: 'error', error: new Error('upstream connection reset') },
    ])
    const res = await withModel(s.t, broken.model, () => ask(u, { question: 'How long are billing backups kept?' }, JSON_ACCEPT))
    expect(res.status).toBe(502)
    expect(await res.json()).toEqual({ error: expect.stringContaining('upstream connection reset'), code: 'provider_error' })
    expect(await conversationsOf(u)).toEqual([])
  })
})

describe('POST /api/agent/chat as one JSON answer', () => {
  test('the answer with the tool calls and results that led to it, in order, and the conversation', async () => {
    const u = await s.t.signUp()
    const [backups] = await addDocuments(s.t, u, [BACKUPS])
    const scripted = scriptedModel(toolStep('search', { query: 'backups' }), textStep(['Backups are kept for 35 days [1].']))
    const res = await withModel(s.t, scripted.model, () => chat(u, { message: 'How long are backups kept?' }, JSON_ACCEPT))
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(Object.keys(body).sort()).toEqual(['answer', 'conversation', 'sources', 'tools'])
    expect(body.answer).toBe('Backups are kept for 35 days [1].')
    expect(body.tools.map((step: { name: string; status: string }) => [step.name, step.status])).toEqual([
      ['search', 'call'],
      ['search', 'result'],
    ])
    expect(body.tools[0].detail).toEqual({ query: 'backups' })
    expect(body.sources.map((src: { document_id: string }) => src.document_id)).toEqual([backups!.id])
    expect((await conversationsOf(u)).map((c) => c.id)).toEqual([body.conversation.id])
  })

  test('stream: false works as Accept does; a provider that fails is a 502 and nothing is saved', async () => {
    const u = await s.t.signUp()
    const res = await withModel(s.t, failing(), () => chat(u, { message: 'What do I know about backups?', stream: false }))
    expect(res.status).toBe(502)
    expect(await res.json()).toEqual({ error: expect.stringContaining('provider unavailable'), code: 'provider_error' })
    expect(await conversationsOf(u)).toEqual([])
  })
})
