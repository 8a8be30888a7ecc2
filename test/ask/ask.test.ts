// Ask, end to end over a real listening server: a user asks about their documents and reads the answer as it
// streams (`sources` first, then `delta`s, the same `sources` again, then `saved`), grounded in and citing only
// their own sources; the exchange is kept as a conversation they can continue, list, rename, delete and audit through
// GET /api/sources; refusals come before any stream; a failing model ends the stream with an `error`.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { NO_ANSWER } from '../../src/ai/extractive-model'
import type { TestUser } from '../harness'
import {
  addDocuments,
  BACKUPS,
  answerOf,
  citedNumbers,
  promptTexts,
  readAll,
  savedOf,
  scriptedModel,
  serve,
  shape,
  sourcesOf,
  textStep,
  withModel,
  type Served,
  type SourceDto,
} from './ask.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve()
})
afterAll(() => s.stop())

const CAKE = { title: 'Lemon cake', body: 'A recipe for lemon cake with a crisp sugar glaze. Bake it for forty minutes.' }
const ONCALL = {
  title: 'On-call handbook',
  body: 'The on-call engineer answers pages within fifteen minutes. Handover happens every Monday at noon.',
}

const ask = (u: TestUser | null, body: Record<string, unknown>) => s.post('/api/ask', body, u?.key)
const askAll = async (u: TestUser, body: Record<string, unknown>) => readAll(await ask(u, body))

/** Every sentence of the answer occurs in the excerpt of the source its [n] names. */
function expectGrounded(answer: string, sources: SourceDto[]) {
  const pieces = answer.split(/\s*\[(\d+)\]\.?\s*/)
  // split with a capture group: text, n, text, n, …, trailing text (empty: every sentence is cited)
  expect(pieces.at(-1)).toBe('')
  for (let i = 0; i + 1 < pieces.length; i += 2) {
    const [text, n] = [pieces[i]!, Number(pieces[i + 1])]
    const source = sources.find((src) => src.index === n)
    expect({ text, cites: source ? 'a source' : `[${n}], no source` }).toEqual({ text, cites: 'a source' })
    expect({ text, inExcerpt: source!.excerpt!.includes(text) }).toEqual({ text, inExcerpt: true })
  }
}

const getConversation = (u: TestUser, id: string) => s.t.json('GET', `/api/conversations/${id}`, { key: u.key })

describe('asking about your documents', () => {
  test('the sources come first, then the answer as deltas, the same sources again, then saved; it is grounded and cites only its sources', async () => {
    const u = await s.t.signUp()
    const [backups, cake] = await addDocuments(s.t, u, [BACKUPS, CAKE, ONCALL])
    const question = 'How long are billing backups kept?'

    const res = await ask(u, { question })
    expect(res.status).toBe(200)
    const all = await readAll(res)
    expect(shape(all)).toEqual(['sources', 'delta', 'sources', 'saved'])
    expect(all.filter((e) => e.type === 'delta').length).toBeGreaterThan(1)

    const answer = answerOf(all)
    const sources = sourcesOf(all)
    expect(answer).toContain('They are kept for 35 days in a separate region')
    expect(sources.map((src) => src.index)).toEqual(sources.map((_, i) => i + 1))
    expect(sources.map((src) => src.document_id)).toContain(backups!.id)
    expect(sources.map((src) => src.document_id)).not.toContain(cake!.id)
    const cited = citedNumbers(answer)
    expect(cited.length).toBeGreaterThan(0)
    for (const n of cited) expect(n).toBeWithin(1, sources.length + 1)
    expectGrounded(answer, sources)

    // (Not toMatchObject with expect.any: Bun 1.4.5's replaces the matched value in the received object.)
    const saved = savedOf(all)
    expect({ id: typeof saved.id, name: saved.name, workspace_id: saved.workspace_id }).toEqual({
      id: 'string',
      name: question,
      workspace_id: null,
    })
    const stored = await getConversation(u, saved.id)
    expect(stored.status).toBe(200)
    expect(
      stored.body.messages.map((m: { role: string; content: string; sources: SourceDto[] }) => ({
        role: m.role,
        content: m.content,
        sources: m.sources,
      })),
    ).toEqual([
      { role: 'user', content: question, sources: [] },
      { role: 'assistant', content: answer.trim(), sources },
    ])
  })

  test('a follow-up with conversation_id continues the same conversation, and the model is given its history', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS, ONCALL])
    const first = await askAll(u, { question: 'How long are billing backups kept?' })
    const firstAnswer = answerOf(first).trim()
    const { id } = savedOf(first)

    const scripted = scriptedModel(textStep(['They run nightly at 02:00 UTC ', '[1].']))
    const followUp = await withModel(s.t, scripted.model, () => askAll(u, { question: 'When do the backups run?', conversation_id: id }))
    expect(shape(followUp)).toEqual(['sources', 'delta', 'sources', 'saved'])
    expect(savedOf(followUp).id).toBe(id)

    // The model saw the earlier exchange before the new question, and this turn's sources in its instructions.
    expect(scripted.calls).toHaveLength(1)
    const prompt = scripted.calls[0]!
    expect(prompt.prompt.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user'])
    expect(promptTexts(prompt, 'user')).toEqual(['How long are billing backups kept?', 'When do the backups run?'])
    expect(promptTexts(prompt, 'assistant')).toEqual([firstAnswer])
    expect(promptTexts(prompt, 'system')[0]).toContain('Backups of the billing database run nightly at 02:00 UTC.')

    const stored = await getConversation(u, id)
    expect(stored.body.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'How long are billing backups kept?'],
      ['assistant', firstAnswer],
      ['user', 'When do the backups run?'],
      ['assistant', 'They run nightly at 02:00 UTC [1].'],
    ])
    const list = await s.t.json('GET', '/api/conversations', { key: u.key })
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([id])
  })

  test('GET /api/sources lists the answer with its sources and the numbers it cited', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS, ONCALL])
    const all = await askAll(u, { question: 'When does on-call handover happen?' })
    const answer = answerOf(all)

    const res = await s.t.json('GET', '/api/sources', { key: u.key })
    expect(res.status).toBe(200)
    expect(res.body.data).toHaveLength(1)
    const { message_id, created_at, question: _question, ...entry } = res.body.data[0]
    expect({ message_id: typeof message_id, created_at: typeof created_at }).toEqual({ message_id: 'string', created_at: 'string' })
    expect(entry).toEqual({
      conversation_id: savedOf(all).id,
      sources: sourcesOf(all),
      cited: [...new Set(citedNumbers(answer))].sort((a, b) => a - b),
    })
    expect(entry.cited.length).toBeGreaterThan(0)
    const messages = (await getConversation(u, entry.conversation_id)).body.messages
    expect(message_id).toBe(messages[1].id)
  })

  // DEFECT (src/modules/conversations/conversations.service.ts, listSources): drizzle renders the columns in
  // the `question` subquery unqualified (`q.conversation_id = "conversation_id" and q.id < "id"`), so they
  // resolve to the inner alias q and the condition `q.id < q.id` never holds: `question` is always null.
  // Remove `.failing` once fixed.
  test('GET /api/sources names the question each answer was given for', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [ONCALL])
    await askAll(u, { question: 'When does on-call handover happen?' })
    const res = await s.t.json('GET', '/api/sources', { key: u.key })
    expect(res.body.data.map((e: { question: string | null }) => e.question)).toEqual(['When does on-call handover happen?'])
  })

  test('a user with no documents is told nothing was found, with no sources', async () => {
    const u = await s.t.signUp()
    const all = await askAll(u, { question: 'How long are billing backups kept?' })
    expect(shape(all)).toEqual(['sources', 'delta', 'sources', 'saved'])
    expect(answerOf(all)).toBe(NO_ANSWER)
    expect(sourcesOf(all)).toEqual([])
    // Nothing was retrieved, so there is nothing to audit.
    expect((await s.t.json('GET', '/api/sources', { key: u.key })).body.data).toEqual([])
  })

  test("another user's documents are never sources, even on the same question", async () => {
    const [owner, stranger] = [await s.t.signUp(), await s.t.signUp()]
    await addDocuments(s.t, owner, [BACKUPS])
    const all = await askAll(stranger, { question: 'How long are billing backups kept?' })
    expect(sourcesOf(all)).toEqual([])
    expect(answerOf(all)).toBe(NO_ANSWER)
  })

  test('archived documents are never sources', async () => {
    const u = await s.t.signUp()
    const [current, old] = await addDocuments(s.t, u, [
      BACKUPS,
      { title: 'Old backup policy', body: 'Billing backups used to be kept for 7 days only.' },
    ])
    const before = sourcesOf(await askAll(u, { question: 'How long are billing backups kept?' })).map((src) => src.document_id)
    expect(new Set(before)).toEqual(new Set([current!.id, old!.id]))

    expect((await s.t.json('POST', `/api/documents/${old!.id}/archive`, { key: u.key })).status).toBe(200)
    const all = await askAll(u, { question: 'How long are billing backups kept?' })
    expect(sourcesOf(all).map((src) => src.document_id)).toEqual([current!.id])
    expect(answerOf(all)).not.toContain('7 days')
  })

  test('workspace_id scopes the sources to that workspace', async () => {
    const u = await s.t.signUp()
    const ws = await s.t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Infra' } })
    expect(ws.status).toBe(201)
    const [inWorkspace] = await addDocuments(s.t, u, [{ ...BACKUPS, workspace_id: ws.body.id }])
    await addDocuments(s.t, u, [{ title: 'Backup of photos', body: 'Photo backups are kept for 10 years on the home server.' }])

    const all = await askAll(u, { question: 'How long are backups kept?', workspace_id: ws.body.id })
    expect(sourcesOf(all).map((src) => src.document_id)).toEqual([inWorkspace!.id])
    expect(savedOf(all).workspace_id).toBe(ws.body.id)
  })
})

describe('citations checked on the way out', () => {
  test('a scripted model citing [9] with one source: the marker never reaches the client; a marker split across deltas arrives intact', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const scripted = scriptedModel(textStep(['Backups are kept ', 'for 35 days ', '[', '1', ']', '. They run nightly', ' [9]', '.']))
    const all = await withModel(s.t, scripted.model, () => askAll(u, { question: 'How long are billing backups kept?' }))

    expect(sourcesOf(all)).toHaveLength(1)
    const deltas = all.flatMap((e) => (e.type === 'delta' ? [e.text] : []))
    expect(answerOf(all)).toBe('Backups are kept for 35 days [1]. They run nightly.')
    // No delta carries the invalid marker or half of the split one; one delta carries "[1]" whole.
    for (const d of deltas) expect(d).not.toMatch(/\[9|9\]|\[\d*$|^\d*\]/)
    expect(deltas.filter((d) => d.includes('[1]'))).toHaveLength(1)

    const stored = await getConversation(u, savedOf(all).id)
    expect(stored.body.messages[1].content).toBe('Backups are kept for 35 days [1]. They run nightly.')
    expect((await s.t.json('GET', '/api/sources', { key: u.key })).body.data[0].cited).toEqual([1])
  })
})

/** Streams one word, then the connection drops: reading the stream throws. */
function droppedConnection() {
  const dropped = scriptedModel()
  dropped.model.doStream = async () => ({
    stream: new ReadableStream({
      start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] })
        controller.enqueue({ type: 'text-start', id: 't' })
        controller.enqueue({ type: 'text-delta', id: 't', delta: 'Backups ' })
      },
      pull() {
        throw new Error('socket hang up')
      },
    }),
  })
  return dropped
}

describe('a model that fails', () => {
  /** Streams a few words, then its stream breaks. */
  const breaksMidStream = () =>
    scriptedModel([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Backups are kept for ' },
      { type: 'error', error: new Error('upstream connection reset') },
    ])

  test('mid-stream: the stream ends with an error event, nothing is stored', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const all = await withModel(s.t, breaksMidStream().model, () => askAll(u, { question: 'How long are billing backups kept?' }))

    expect(all.at(-1)).toEqual({ type: 'error', message: expect.stringContaining('upstream connection reset'), code: 'provider_error' })
    // The sources came with the first words, once; the answer never completed, so no second one and no saved.
    expect(all.map((e) => e.type).slice(0, 2)).toEqual(['sources', 'delta'])
    expect(all.filter((e) => e.type === 'sources')).toHaveLength(1)
    expect(all.some((e) => e.type === 'saved')).toBe(false)
    expect((await s.t.json('GET', '/api/conversations', { key: u.key })).body.data).toEqual([])
    expect((await s.t.json('GET', '/api/sources', { key: u.key })).body.data).toEqual([])
  })

  test('a provider that refuses to start also ends the stream with an error event', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const refusing = scriptedModel()
    refusing.model.doStream = async () => {
      throw new Error('provider is down')
    }
    const all = await withModel(s.t, refusing.model, () => askAll(u, { question: 'How long are billing backups kept?' }))
    expect(all).toEqual([{ type: 'error', message: expect.stringContaining('provider is down'), code: 'provider_error' }])
    expect((await s.t.json('GET', '/api/conversations', { key: u.key })).body.data).toEqual([])
  })

  // A dropped connection makes the model's stream itself throw (no `error` part): the one model loop
  // (src/ai/model-stream.ts) turns that into the stream's `error` event, never a silently truncated answer.
  test('a stream that breaks while being read (no error part) still ends with an error event', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const all = await withModel(s.t, droppedConnection().model, () => askAll(u, { question: 'How long are billing backups kept?' }))
    expect((await s.t.json('GET', '/api/conversations', { key: u.key })).body.data).toEqual([])
    expect(all.at(-1)).toEqual({ type: 'error', message: expect.stringContaining('socket hang up'), code: 'provider_error' })
  })

  test('a failure in a follow-up leaves the earlier exchange as it was', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const { id } = savedOf(await askAll(u, { question: 'How long are billing backups kept?' }))
    const all = await withModel(s.t, breaksMidStream().model, () => askAll(u, { question: 'And when do they run?', conversation_id: id }))
    expect(all.at(-1)?.type).toBe('error')
    expect((await getConversation(u, id)).body.messages).toHaveLength(2)
  })
})

describe('refused before any stream', () => {
  /** A plain JSON error, not an event stream. */
  const CODES: Record<number, string> = { 400: 'invalid_request', 401: 'unauthenticated', 404: 'not_found', 429: 'rate_limited' }
  async function expectRefusal(res: Response, status: number) {
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toStartWith('application/json')
    const body = (await res.json()) as { error: string; code: string }
    expect(body).toEqual({ error: expect.any(String), code: CODES[status]! })
    return body.error
  }

  test("another user's conversation_id is 404, exactly like a missing one", async () => {
    const [owner, other] = [await s.t.signUp(), await s.t.signUp()]
    const { id } = savedOf(await askAll(owner, { question: 'Anything about backups?' }))
    await expectRefusal(await ask(other, { question: 'What did they ask?', conversation_id: id }), 404)
    await expectRefusal(await ask(other, { question: 'What did they ask?', conversation_id: crypto.randomUUID() }), 404)
    // The owner's conversation is untouched.
    expect((await getConversation(owner, id)).body.messages).toHaveLength(2)
  })

  test('an unknown workspace is 404', async () => {
    const u = await s.t.signUp()
    expect(await expectRefusal(await ask(u, { question: 'Anything?', workspace_id: crypto.randomUUID() }), 404)).toContain('workspace')
  })

  test('an empty question is 400 naming question', async () => {
    const u = await s.t.signUp()
    for (const body of [{ question: '' }, { question: '   ' }, {}, { question: 42 }]) {
      expect(await expectRefusal(await ask(u, body), 400)).toContain('question')
    }
    expect((await s.t.json('GET', '/api/conversations', { key: u.key })).body.data).toEqual([])
  })

  test('no key, or a wrong one, is 401', async () => {
    await expectRefusal(await ask(null, { question: 'Anything?' }), 401)
    await expectRefusal(await s.post('/api/ask', { question: 'Anything?' }, 'sk_not_a_real_key'), 401)
  })

  test('past the plan rate (PLAN_FREE_ASK_PER_MIN=2) the third ask is 429 with Retry-After', async () => {
    const limited = await serve({ PLAN_FREE_ASK_PER_MIN: '2' })
    try {
      const u = await limited.t.signUp()
      for (let i = 0; i < 2; i++) {
        const all = await readAll(await limited.post('/api/ask', { question: `question ${i}` }, u.key))
        expect(all.at(-1)?.type).toBe('saved')
      }
      const refused = await limited.post('/api/ask', { question: 'one more' }, u.key)
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/)
      expect(Number(refused.headers.get('retry-after'))).toBeWithin(1, 61)
      expect(await expectRefusal(refused, 429)).toContain('2')
    } finally {
      await limited.stop()
    }
  })
})

describe('conversations', () => {
  test('are listed newest first, renamed, and deleted (then 404)', async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS, ONCALL])
    const first = savedOf(await askAll(u, { question: 'How long are billing backups kept?' }))
    s.t.clock.advance(1_000)
    const second = savedOf(await askAll(u, { question: 'When does on-call handover happen?' }))

    const list = await s.t.json('GET', '/api/conversations', { key: u.key })
    expect(list.body.data.map((c: { id: string; name: string }) => [c.id, c.name])).toEqual([
      [second.id, 'When does on-call handover happen?'],
      [first.id, 'How long are billing backups kept?'],
    ])

    const renamed = await s.t.json('PATCH', `/api/conversations/${first.id}`, { key: u.key, body: { name: '  Backups  ' } })
    expect(renamed.status).toBe(200)
    expect(renamed.body).toMatchObject({ id: first.id, name: 'Backups' })
    expect((await getConversation(u, first.id)).body.name).toBe('Backups')

    for (const name of ['', '   ']) {
      const bad = await s.t.json('PATCH', `/api/conversations/${first.id}`, { key: u.key, body: { name } })
      expect(bad.status).toBe(400)
      expect(bad.body.error).toContain('name')
    }
    expect((await getConversation(u, first.id)).body.name).toBe('Backups')

    expect((await s.t.request('DELETE', `/api/conversations/${first.id}`, { key: u.key })).status).toBe(204)
    expect((await getConversation(u, first.id)).status).toBe(404)
    expect((await s.t.request('DELETE', `/api/conversations/${first.id}`, { key: u.key })).status).toBe(404)
    expect((await s.t.json('GET', '/api/conversations', { key: u.key })).body.data.map((c: { id: string }) => c.id)).toEqual([second.id])
    // Its answers leave the sources audit with it.
    expect(
      (await s.t.json('GET', '/api/sources', { key: u.key })).body.data.map((e: { conversation_id: string }) => e.conversation_id),
    ).toEqual([second.id])
  })

  test('another user can neither read, rename nor delete a conversation (404 each)', async () => {
    const [owner, other] = [await s.t.signUp(), await s.t.signUp()]
    const { id } = savedOf(await askAll(owner, { question: 'How long are billing backups kept?' }))
    expect((await getConversation(other, id)).status).toBe(404)
    expect((await s.t.json('PATCH', `/api/conversations/${id}`, { key: other.key, body: { name: 'mine now' } })).status).toBe(404)
    expect((await s.t.request('DELETE', `/api/conversations/${id}`, { key: other.key })).status).toBe(404)
    expect((await s.t.json('GET', '/api/conversations', { key: other.key })).body.data).toEqual([])
    expect((await getConversation(owner, id)).body.name).toBe('How long are billing backups kept?')
  })

  test('forgetting a document removes its title and excerpt from the stored sources', async () => {
    const u = await s.t.signUp()
    const [backups, oncall] = await addDocuments(s.t, u, [BACKUPS, ONCALL])
    const all = await askAll(u, { question: 'How long are billing backups kept and when is on-call handover?' })
    const sources = sourcesOf(all)
    expect(new Set(sources.map((src) => src.document_id))).toEqual(new Set([backups!.id, oncall!.id]))

    expect((await s.t.request('POST', `/api/documents/${backups!.id}/forget`, { key: u.key })).status).toBe(204)

    const stored = (await getConversation(u, savedOf(all).id)).body.messages[1].sources as SourceDto[]
    const audited = (await s.t.json('GET', '/api/sources', { key: u.key })).body.data[0].sources as SourceDto[]
    for (const after of [stored, audited]) {
      const forgotten = after.find((src) => src.document_id === backups!.id)!
      expect(forgotten).toEqual({
        index: forgotten.index,
        document_id: backups!.id,
        title: null,
        url: null,
        excerpt: null,
        forgotten: true,
      })
      expect(JSON.stringify(after)).not.toContain('35 days')
      expect(JSON.stringify(after)).not.toContain('Backup policy')
      // The other source is as it was.
      expect(after.find((src) => src.document_id === oncall!.id)).toEqual(sources.find((src) => src.document_id === oncall!.id)!)
    }
  })
})
