// /v1/chat/completions streaming that fails after it began: the stream ends as OpenAI ends one — a last
// `data: {"error":{"message",…}}` and no [DONE] — so the official `openai` client throws an APIError with that
// message instead of returning a cut answer as if it were whole; the failure is logged with the request id.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import OpenAI from 'openai'
import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import { addDocuments, BACKUPS, scriptedModel, serve, withLogCapture, withModel, type Served } from '../ask/ask.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve()
})
afterAll(() => s.stop())

const QUESTION = 'How long are billing database backups kept?'

/** Reads the stream as a client does; what arrived before it threw, and what it threw. */
async function readUntilFailure(stream: AsyncIterable<ChatCompletionChunk>) {
  const chunks: ChatCompletionChunk[] = []
  try {
    for await (const chunk of stream) chunks.push(chunk)
  } catch (error) {
    return { chunks, error }
  }
  throw new Error(`the stream ended without an error after ${chunks.length} chunks`)
}

const breaksMidStream = () =>
  scriptedModel([
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    { type: 'text-delta', id: 't', delta: 'Backups are kept for ' },
    { type: 'error', error: new Error('upstream connection reset') },
  ])

test('a model that breaks mid-stream: the client reads the words so far, then throws an APIError with the reason; the log names the request id', async () => {
  const u = await s.t.signUp()
  await addDocuments(s.t, u, [BACKUPS])
  const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: u.key, maxRetries: 0 })
  const { result, lines } = await withLogCapture(s.t, () =>
    withModel(s.t, breaksMidStream().model, async () =>
      readUntilFailure(
        await client.chat.completions.create({ model: 'service-rag', messages: [{ role: 'user', content: QUESTION }], stream: true }),
      ),
    ),
  )
  const { chunks, error } = result
  expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Backups are kept for')
  expect(chunks.some((c) => c.choices[0]?.finish_reason)).toBe(false)
  expect(error).toBeInstanceOf(OpenAI.APIError)
  const e = error as InstanceType<typeof OpenAI.APIError>
  expect(e.message).toBe('the completion could not be finished: upstream connection reset')
  expect(e.error).toEqual({
    message: 'the completion could not be finished: upstream connection reset',
    type: 'server_error',
    param: null,
    code: 'provider_error',
  })
  expect(e.requestID).toBeTruthy()
  expect(lines.filter((l) => l.message === 'stream failed').map((l) => [l.level, l.request_id, l.path])).toEqual([
    ['error', e.requestID, '/v1/chat/completions'],
  ])
})

test('on the wire: the last event is the error object, and no data: [DONE] follows it', async () => {
  const u = await s.t.signUp()
  await addDocuments(s.t, u, [BACKUPS])
  const text = await withModel(s.t, breaksMidStream().model, async () => {
    const res = await s.post(
      '/v1/chat/completions',
      { model: 'service-rag', messages: [{ role: 'user', content: QUESTION }], stream: true },
      u.key,
    )
    expect(res.status).toBe(200)
    return res.text()
  })
  const events = text.split('\n\n').filter(Boolean)
  expect(events.at(-1)).toBe(
    `data: ${JSON.stringify({ error: { message: 'the completion could not be finished: upstream connection reset', type: 'server_error', param: null, code: 'provider_error' } })}`,
  )
  expect(text).not.toContain('[DONE]')
})
