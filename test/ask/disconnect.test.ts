// Every streaming answer stops when its client goes, over a real listening server: ask, the agent, and /v1's
// chat completions, responses and completions run through the one model loop (src/ai/model-stream.ts), so a
// disconnect aborts the model's call, ends the request, and nothing of the cut answer is saved or stored.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'
import { readSseEvents } from '../../src/lib/sse-events'
import { deferred, until } from '../jobs/jobs.fixtures'
import { addDocuments, BACKUPS, serve, withModel, type Served } from './ask.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve()
})
afterAll(() => s.stop())

const QUESTION = 'How long are billing backups kept?'
const ROUTES: [string, Record<string, unknown>][] = [
  ['/api/ask', { question: QUESTION }],
  ['/api/agent/chat', { message: QUESTION }],
  ['/v1/chat/completions', { model: 'service-rag', messages: [{ role: 'user', content: QUESTION }], stream: true }],
  ['/v1/responses', { model: 'service-rag', input: QUESTION, stream: true }],
  ['/v1/completions', { model: 'service-rag', prompt: QUESTION, stream: true }],
]

/** A model that writes a word, then waits until its call is aborted — as a slow model would. */
function waitingModel() {
  const writing = deferred()
  const aborted = deferred()
  let call: LanguageModelV4CallOptions | undefined
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      call = options
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            controller.enqueue({ type: 'stream-start', warnings: [] })
            controller.enqueue({ type: 'text-start', id: 't' })
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'Backups are ' })
            options.abortSignal?.addEventListener('abort', () => {
              aborted.resolve()
              controller.error(options.abortSignal!.reason)
            })
            writing.resolve()
          },
        }),
      }
    },
  })
  return { model, writing: writing.promise, aborted: aborted.promise, signal: () => call?.abortSignal }
}

for (const [path, body] of ROUTES) {
  test(`${path}: a client that disconnects mid-answer aborts the model, ends the request and saves nothing`, async () => {
    const u = await s.t.signUp()
    await addDocuments(s.t, u, [BACKUPS])
    const slow = waitingModel()
    const firstEvents: unknown[] = []
    await withModel(s.t, slow.model, async () => {
      const client = new AbortController()
      const res = await s.post(path, body, u.key, { signal: client.signal })
      expect(res.status).toBe(200)
      const reading = readSseEvents(res.body!)
      firstEvents.push(JSON.parse((await reading.next()).value!.data))
      // The model is writing and the request is open, waiting on it.
      await slow.writing
      expect(slow.signal()!.aborted).toBe(false)
      expect(s.server.pendingRequests).toBe(1)
      client.abort()

      await slow.aborted
      expect(slow.signal()!.aborted).toBe(true)
      await until(() => s.server.pendingRequests === 0, 5_000, 'the aborted request to end')
    })
    expect((await s.t.json('GET', '/api/conversations', { key: u.key })).body.data).toEqual([])
    const created = firstEvents[0] as { type?: string; response?: { id: string } }
    if (created.type === 'response.created')
      expect((await s.t.json('GET', `/v1/responses/${created.response!.id}`, { key: u.key })).status).toBe(404)
  })
}
