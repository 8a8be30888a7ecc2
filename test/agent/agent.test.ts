// Agent chat, end to end over a real listening server: the tool loop streams `tool` events as it works, then
// the answer's `delta`s, `sources` and `saved` (docs/decisions.md#streams); learnings it proposes are pending drafts, never
// active memories; a tool refused (another user's document) is an `error` tool event and the run goes on; a
// failing provider ends the stream with `error`; a client that disconnects stops the run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'
import { NO_ANSWER } from '../../src/ai/extractive-model'
import {
  addDocuments,
  BACKUPS,
  answerOf,
  citedNumbers,
  events,
  readAll,
  savedOf,
  scriptedModel,
  serve,
  shape,
  sourcesOf,
  textStep,
  toolStep,
  withModel,
  type Served,
  type StreamEvent,
} from '../ask/ask.fixtures'
import { BASE, type TestUser } from '../harness'
import { deferred, until } from '../jobs/jobs.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve()
})
afterAll(() => s.stop())

const chat = (u: TestUser | null, body: Record<string, unknown>, init?: RequestInit) => s.post('/api/agent/chat', body, u?.key, init)
const chatAll = async (u: TestUser, body: Record<string, unknown>) => readAll(await chat(u, body))
const toolEvents = (all: StreamEvent[]) => all.flatMap((e) => (e.type === 'tool' ? [e.tool] : []))
const conversationsOf = async (u: TestUser) => (await s.t.json('GET', '/api/conversations', { key: u.key })).body.data as { id: string }[]

describe('with the built-in extractive model', () => {
  test('the stream shows the search call and its result before any delta, then sources and saved', async () => {
    const u = await s.t.signUp()
    const [backups] = await addDocuments(s.t, u, [
      BACKUPS,
      { title: 'Lemon cake', body: 'A recipe for lemon cake with a crisp sugar glaze.' },
    ])
    const message = 'How long are billing backups kept?'
    const res = await chat(u, { message })
    expect(res.status).toBe(200)
    const all = await readAll(res)

    expect(shape(all)).toEqual(['tool', 'tool', 'delta', 'sources', 'saved'])
    expect(toolEvents(all)).toEqual([
      { name: 'search', status: 'call', detail: { query: message } },
      { name: 'search', status: 'result', detail: { results: 1, titles: ['Backup policy'] } },
    ])
    const sources = sourcesOf(all)
    expect(sources.map((src) => [src.index, src.document_id])).toEqual([[1, backups!.id]])
    const answer = answerOf(all)
    expect(answer).toContain('They are kept for 35 days in a separate region [1].')
    for (const n of citedNumbers(answer)) expect(n).toBeWithin(1, sources.length + 1)

    const saved = savedOf(all)
    const stored = await s.t.json('GET', `/api/conversations/${saved.id}`, { key: u.key })
    expect(stored.body.messages.map((m: { role: string; content: string; sources: unknown }) => [m.role, m.content, m.sources])).toEqual([
      ['user', message, []],
      ['assistant', answer.trim(), sources],
    ])
  })

  test('a follow-up in the same conversation searches again and is saved to it', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const { id } = savedOf(await chatAll(u, { message: 'How long are billing backups kept?' }))
    const all = await chatAll(u, { message: 'When are restores rehearsed?', conversation_id: id })
    expect(shape(all)).toEqual(['tool', 'tool', 'delta', 'sources', 'saved'])
    expect(answerOf(all)).toContain('Restores are rehearsed every quarter [1].')
    expect(savedOf(all).id).toBe(id)
    expect((await s.t.json('GET', `/api/conversations/${id}`, { key: u.key })).body.messages).toHaveLength(4)
  })

  test('with nothing to find it says so, with no sources', async () => {
    const u = await s.t.signUp()
    const all = await chatAll(u, { message: 'Where did I park the car?' })
    expect(toolEvents(all)).toEqual([
      { name: 'search', status: 'call', detail: { query: 'Where did I park the car?' } },
      { name: 'search', status: 'result', detail: { results: 0, titles: [] } },
    ])
    expect(answerOf(all)).toBe(NO_ANSWER)
    expect(sourcesOf(all)).toEqual([])
  })
})

describe('with a scripted model', () => {
  test('save_learnings drafts are pending_approval, never active, and the tool result carries their ids', async () => {
    const u = await s.t.signUp()
    const learnings = [
      { kind: 'preference', title: 'Standups are async', body: 'The team prefers written async standups over calls.' },
      { kind: 'decision', title: 'Postgres for billing', body: 'Billing moves to Postgres in the third quarter.', tags: ['billing'] },
    ]
    const scripted = scriptedModel(toolStep('save_learnings', { learnings }), textStep(['I drafted two learnings for you to approve.']))
    const all = await withModel(s.t, scripted.model, () =>
      chatAll(u, { message: 'Remember: standups are async, and billing moves to Postgres in Q3.' }),
    )

    expect(shape(all)).toEqual(['tool', 'tool', 'delta', 'sources', 'saved'])
    const [call, result] = toolEvents(all)
    expect(call).toEqual({ name: 'save_learnings', status: 'call', detail: { learnings } })
    expect(result!.name).toBe('save_learnings')
    expect(result!.status).toBe('result')
    expect(result!.detail.drafted).toBe(2)
    const ids = result!.detail.ids as string[]
    expect(ids).toHaveLength(2)

    const { id: conversationId } = savedOf(all)
    for (const [i, id] of ids.entries()) {
      const doc = await s.t.json('GET', `/api/documents/${id}`, { key: u.key })
      expect(doc.status).toBe(200)
      expect({ title: doc.body.title, kind: doc.body.kind, status: doc.body.status, source: doc.body.source }).toEqual({
        title: learnings[i]!.title,
        kind: learnings[i]!.kind,
        status: 'pending_approval',
        source: 'agent',
      })
    }
    // Not active: neither listed with the active memories nor found by search until approved.
    const active = await s.t.json('GET', '/api/documents', { key: u.key })
    expect(active.body.data.map((d: { id: string }) => d.id).filter((id: string) => ids.includes(id))).toEqual([])
    const found = await s.t.json('GET', '/api/search?q=standups', { key: u.key })
    expect(found.body.results).toEqual([])
    const pending = await s.t.json('GET', '/api/documents?status=pending_approval', { key: u.key })
    expect(new Set(pending.body.data.map((d: { id: string }) => d.id))).toEqual(new Set(ids))

    // The second step was given the tool's result, and the answer was saved with the conversation.
    expect(scripted.calls).toHaveLength(2)
    expect(JSON.stringify(scripted.calls[1]!.prompt)).toContain(ids[0]!)
    expect((await s.t.json('GET', `/api/conversations/${conversationId}`, { key: u.key })).body.messages[1].content).toBe(
      'I drafted two learnings for you to approve.',
    )
  })

  test('signed in with a session, the agent still only drafts: save_learnings is never an active memory, and its description says so', async () => {
    const u = await s.t.signUp()
    const learnings = [{ kind: 'fact', title: 'Ficus watering', body: 'The office ficus is watered on Mondays.' }]
    const scripted = scriptedModel(toolStep('save_learnings', { learnings }), textStep(['I drafted it for you to approve.']))
    const bySession = () =>
      fetch(`${s.url}/api/agent/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: u.cookie, origin: BASE },
        body: JSON.stringify({ message: 'Remember that the ficus is watered on Mondays.' }),
      })
    const all = await withModel(s.t, scripted.model, async () => readAll(await bySession()))
    const result = toolEvents(all).find((e) => e.status === 'result')!
    expect(result.detail.drafted).toBe(1)
    const [id] = result.detail.ids as string[]
    expect((await s.t.json('GET', `/api/documents/${id}`, { key: u.key })).body).toMatchObject({
      status: 'pending_approval',
      source: 'agent',
    })
    expect((await s.t.json('GET', '/api/memories', { key: u.key })).body.data).toEqual([])
    // The model was told, in the tool's description, that it cannot make a memory active itself.
    const tools = (scripted.calls[0]!.tools ?? []) as { name: string; description?: string }[]
    expect(tools.find((tool) => tool.name === 'save_learnings')!.description).toContain('approves')
  })

  test("get_document with another user's id is a tool error event, leaks nothing, and the run still finishes", async () => {
    const [owner, u] = [await s.t.signUp(), await s.t.signUp()]
    const [secret] = await addDocuments(s.t, owner, [{ title: 'Salary bands', body: 'Band four pays between 90k and 110k.' }])
    const scripted = scriptedModel(toolStep('get_document', { id: secret!.id }), textStep(["I couldn't open that document."]))
    const all = await withModel(s.t, scripted.model, () => chatAll(u, { message: `Open document ${secret!.id}` }))

    expect(shape(all)).toEqual(['tool', 'tool', 'delta', 'sources', 'saved'])
    const [call, failed] = toolEvents(all)
    expect(call).toEqual({ name: 'get_document', status: 'call', detail: { id: secret!.id } })
    expect(failed!.name).toBe('get_document')
    expect(failed!.status).toBe('error')
    expect(failed!.detail.message).toContain('not found')
    expect(sourcesOf(all)).toEqual([])
    expect(JSON.stringify(all)).not.toContain('Salary')
    expect(JSON.stringify(all)).not.toContain('90k')
    // The model was told the tool failed, not given the document.
    expect(JSON.stringify(scripted.calls[1]!.prompt)).not.toContain('90k')
    expect(answerOf(all)).toBe("I couldn't open that document.")
  })

  test('citations in the answer are checked against the sources the tools found', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const scripted = scriptedModel(
      toolStep('search', { query: 'backup retention' }),
      textStep(['Backups are kept 35 days ', '[', '1', ']', ' in another region', ' [4]', '.']),
    )
    const all = await withModel(s.t, scripted.model, () => chatAll(u, { message: 'How long do we keep backups?' }))
    expect(sourcesOf(all)).toHaveLength(1)
    expect(answerOf(all)).toBe('Backups are kept 35 days [1] in another region.')
  })

  test('a provider that throws ends the stream with an error event; nothing is saved', async () => {
    const u = await s.t.signUp()
    const failing = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error('provider unavailable')
      },
    })
    const all = await withModel(s.t, failing, () => chatAll(u, { message: 'What do I know about backups?' }))
    expect(all.at(-1)).toEqual({ type: 'error', message: expect.stringContaining('provider unavailable'), code: 'provider_error' })
    expect(all.some((e) => e.type === 'sources' || e.type === 'saved')).toBe(false)
    expect(await conversationsOf(u)).toEqual([])
  })

  test('a provider that fails after a tool ran still ends with an error event, after the tool events', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const broken: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'error', error: new Error('rate limited upstream') },
    ]
    const scripted = scriptedModel(toolStep('search', { query: 'backups' }), broken)
    const all = await withModel(s.t, scripted.model, () => chatAll(u, { message: 'What do I know about backups?' }))
    expect(shape(all)).toEqual(['tool', 'tool', 'error'])
    expect(all.at(-1)).toEqual({ type: 'error', message: expect.stringContaining('rate limited upstream'), code: 'provider_error' })
    expect(await conversationsOf(u)).toEqual([])
  })
})

describe('defects found and fixed', () => {
  // DEFECT (src/modules/agent/agent.service.ts, runAgent): at `start-step` the previous step's filter is flushed into the
  // stored answer but never sent as a delta, so text held back at the end of a step (an unfinished "[2")
  // is saved yet never reaches the client: the saved answer differs from what the user read.
  test('the saved answer is exactly what the client received, across steps', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const firstStep: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Checking note [2' },
      { type: 'text-end', id: 't1' },
      ...toolStep('search', { query: 'backups' }).slice(1),
    ]
    const scripted = scriptedModel(firstStep, textStep([' then: backups are kept 35 days [1].']))
    const all = await withModel(s.t, scripted.model, () => chatAll(u, { message: 'How long do we keep backups?' }))
    const stored = (await s.t.json('GET', `/api/conversations/${savedOf(all).id}`, { key: u.key })).body.messages[1].content
    expect(stored).toBe(answerOf(all).trim())
  })

  // DEFECT (src/modules/agent/agent.service.ts, the same loop as ask's): a model stream that breaks while being read (pull
  // throws, no `error` part) makes `for await` throw; sseResponse logs "stream failed" and closes, so the
  // client sees the run end without `error`, `sources` or `saved`.
  test('a stream that breaks while being read ends with an error event', async () => {
    const u = await s.t.signUp()
    const dropped = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] })
            controller.enqueue({ type: 'text-start', id: 't' })
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'Backups ' })
          },
          pull() {
            throw new Error('socket hang up')
          },
        }),
      }),
    })
    const all = await withModel(s.t, dropped, () => chatAll(u, { message: 'What do I know about backups?' }))
    expect(await conversationsOf(u)).toEqual([])
    expect(all.at(-1)).toEqual({ type: 'error', message: expect.stringContaining('socket hang up'), code: 'provider_error' })
  })
})

describe('refused before any stream', () => {
  test('empty message 400 naming message; no key 401; unknown conversation or workspace 404', async () => {
    const u = await s.t.signUp()
    const empty = await chat(u, { message: '  ' })
    expect(empty.status).toBe(400)
    expect(((await empty.json()) as { error: string }).error).toContain('message')
    expect((await chat(null, { message: 'hello' })).status).toBe(401)
    for (const body of [
      { message: 'hello', conversation_id: crypto.randomUUID() },
      { message: 'hello', workspace_id: crypto.randomUUID() },
    ]) {
      const res = await chat(u, body)
      expect(res.status).toBe(404)
      expect(res.headers.get('content-type')).toStartWith('application/json')
    }
  })
})

describe('a client that disconnects', () => {
  test('stops the run: the model is aborted and nothing is saved', async () => {
    const u = await s.t.signUp()
    const aborted = deferred<unknown>()
    let seen: LanguageModelV4CallOptions | undefined
    // Writes a word, then waits until it is aborted — as a slow model would.
    const waiting = new MockLanguageModelV4({
      doStream: async (options) => {
        seen = options
        return {
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(controller) {
              controller.enqueue({ type: 'stream-start', warnings: [] })
              controller.enqueue({ type: 'text-start', id: 't' })
              controller.enqueue({ type: 'text-delta', id: 't', delta: 'Thinking ' })
              options.abortSignal?.addEventListener('abort', () => {
                aborted.resolve(options.abortSignal!.reason)
                controller.error(options.abortSignal!.reason)
              })
            },
          }),
        }
      },
    })

    await withModel(s.t, waiting, async () => {
      const client = new AbortController()
      const res = await chat(u, { message: 'Think about backups for a long time.' }, { signal: client.signal })
      expect(res.status).toBe(200)
      const first = await events(res).next()
      expect(first.value).toEqual({ type: 'delta', text: 'Thinking' }) // the trailing space waits: a dropped marker could follow it
      // The run is still going, waiting on the model.
      expect(s.server.pendingRequests).toBe(1)
      expect(seen!.abortSignal!.aborted).toBe(false)
      client.abort()

      // The server noticed: the model's abortSignal fired, and the request is over.
      await aborted.promise
      expect(seen!.abortSignal!.aborted).toBe(true)
      await until(() => s.server.pendingRequests === 0, 5_000, 'the aborted request to end')
    })
    expect(await conversationsOf(u)).toEqual([])
    expect((await s.t.json('GET', '/api/sources', { key: u.key })).body.data).toEqual([])
  })
})
