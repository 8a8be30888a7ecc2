// Helpers of the ask and agent suites: the service on a real listening port, posting a question and reading
// the server-sent events back from the response body as it streams, and scripted chat models.
import { expect } from 'bun:test'
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart, LanguageModelV4StreamResult } from '@ai-sdk/provider'
import { MockLanguageModelV4 } from 'ai/test'
import { readSseEvents } from '../../src/lib/sse-events'
import { createTestApp, type TestApp, type TestUser } from '../harness'

export type StreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'sources'; sources: SourceDto[] }
  | { type: 'saved'; conversation: { id: string; name: string; workspace_id: string | null } }
  | { type: 'error'; message: string; code: string }
  | { type: 'tool'; tool: { name: string; status: 'call' | 'result' | 'error'; detail: Record<string, any> } }

export interface SourceDto {
  index: number
  document_id: string
  title: string | null
  url: string | null
  excerpt: string | null
  forgotten?: boolean
}

export interface Served {
  t: TestApp
  url: string
  server: ReturnType<typeof Bun.serve>
  /** POSTs JSON with the user's key (or none) over real HTTP; `init.headers` are added (an Accept). */
  post(path: string, body: unknown, key?: string, init?: RequestInit): Promise<Response>
  stop(): Promise<void>
}

/** The service listening on a loopback port, with its harness beside it for direct calls and the model swap. */
export async function serve(env: Record<string, string> = {}): Promise<Served> {
  const t = await createTestApp({ env })
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => t.app.fetch(request) })
  const url = `http://127.0.0.1:${server.port}`
  return {
    t,
    url,
    server,
    post: (path, body, key, init = {}) =>
      fetch(url + path, {
        method: 'POST',
        ...init,
        headers: {
          'content-type': 'application/json',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(init.headers as Record<string, string> | undefined),
        },
        body: JSON.stringify(body),
      }),
    async stop() {
      await server.stop(true)
      await t.close()
    },
  }
}

/** The events of an SSE body (read with the service's one reader), each yielded as soon as it is complete. */
export async function* events(res: Response): AsyncGenerator<StreamEvent> {
  expect(res.headers.get('content-type')).toStartWith('text/event-stream')
  // The last bytes seen: a stream ends on an event's blank line (the reader would drop an unfinished event).
  let tail: number[] = []
  const seen = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      tail = [...tail, ...chunk.slice(-2)].slice(-2)
      controller.enqueue(chunk)
    },
  })
  for await (const { data } of readSseEvents(res.body!.pipeThrough(seen))) yield JSON.parse(data) as StreamEvent
  if (tail.length) expect(String.fromCharCode(...tail)).toBe('\n\n')
}

/** Every event of the stream, once it has ended. */
export async function readAll(res: Response): Promise<StreamEvent[]> {
  expect(res.status).toBe(200)
  const all: StreamEvent[] = []
  for await (const event of events(res)) all.push(event)
  return all
}

/** The answer as the client assembles it: every delta, in order. */
export const answerOf = (all: StreamEvent[]) => all.flatMap((e) => (e.type === 'delta' ? [e.text] : [])).join('')

/** The sources of a stream: ask sends them before the answer and again after it (the agent once, after its tools); every
 * `sources` event of one stream carries the same list. */
export const sourcesOf = (all: StreamEvent[]) => {
  const found = all.filter((e) => e.type === 'sources') as Extract<StreamEvent, { type: 'sources' }>[]
  expect(found.length).toBeWithin(1, 3)
  for (const event of found) expect(event.sources).toEqual(found[0]!.sources)
  return found[0]!.sources
}

export const savedOf = (all: StreamEvent[]) => {
  const found = all.filter((e) => e.type === 'saved')
  expect(found).toHaveLength(1)
  return (found[0] as Extract<StreamEvent, { type: 'saved' }>).conversation
}

/** The event types in order, with runs of deltas folded into one, e.g. ['tool', 'tool', 'delta', 'sources', 'saved']. */
export const shape = (all: StreamEvent[]) =>
  all.map((e) => e.type).filter((type, i, types) => !(type === 'delta' && types[i - 1] === 'delta'))

/** The [n] numbers an answer cites, including each number of a list. */
export const citedNumbers = (answer: string) =>
  [...answer.matchAll(/\[(\d+(?:\s*,\s*\d+)*)\]/g)].flatMap((m) => m[1]!.split(',').map((n) => Number(n.trim())))

/** Ingests hand-made documents with the user's key; each must be new (201). */
/** The document most answer tests ask about. */
export const BACKUPS = {
  title: 'Backup policy',
  body: 'Backups of the billing database run nightly at 02:00 UTC. They are kept for 35 days in a separate region. Restores are rehearsed every quarter.',
}

export async function addDocuments(t: TestApp, user: TestUser, docs: ({ title: string; body: string } & Record<string, unknown>)[]) {
  const out: { id: string; title: string }[] = []
  for (const doc of docs) {
    const res = await t.json('POST', '/api/documents', { key: user.key, body: doc })
    expect({ status: res.status, error: res.body?.error }).toEqual({ status: 201, error: undefined })
    out.push(res.body)
  }
  return out
}

const usage = {
  inputTokens: { total: 10, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
}

/** One model step that streams `deltas` as text and finishes. */
export function textStep(deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...deltas.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
    { type: 'text-end', id: 't' },
    { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
  ]
}

/** One model step that calls a tool and finishes, waiting for its result. */
export function toolStep(
  toolName: string,
  input: unknown,
  toolCallId = `call_${toolName}_${crypto.randomUUID().slice(0, 8)}`,
): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
  ]
}

const streamOf = (parts: LanguageModelV4StreamPart[]): LanguageModelV4StreamResult => ({
  stream: new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  }),
})

/**
 * A chat model that plays `steps` in order, one per call (a tool loop calls it once per step), and records
 * every call's options (prompt, tools, abortSignal).
 */
export function scriptedModel(...steps: LanguageModelV4StreamPart[][]) {
  const calls: LanguageModelV4CallOptions[] = []
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      calls.push(options)
      const step = steps[calls.length - 1]
      if (!step) throw new Error(`scripted model: no step ${calls.length}`)
      return streamOf(step)
    },
  })
  return { model, calls }
}

/** Swaps the chat model behind service-rag for the duration of `fn`. */
export async function withModel<T>(t: TestApp, model: MockLanguageModelV4, fn: () => Promise<T>): Promise<T> {
  const original = t.deps.chat
  t.deps.chat = { ...original, model }
  try {
    return await fn()
  } finally {
    t.deps.chat = original
  }
}

/** The text of a prompt's messages of one role, in order. */
export function promptTexts(options: LanguageModelV4CallOptions, role: 'system' | 'user' | 'assistant'): string[] {
  return options.prompt.flatMap((m) => {
    if (m.role !== role) return []
    if (m.role === 'system') return [m.content]
    return [m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('')]
  })
}

/** Streams `first`, then waits for `gate` before it finishes the answer with `rest` — a model still writing. */
export function gatedModel(gate: Promise<void>, first: string, rest: string) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] })
          controller.enqueue({ type: 'text-start', id: 't' })
          controller.enqueue({ type: 'text-delta', id: 't', delta: first })
          await gate
          controller.enqueue({ type: 'text-delta', id: 't', delta: rest })
          controller.enqueue({ type: 'text-end', id: 't' })
          controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage })
          controller.close()
        },
      }),
    }),
  })
}

/** The service's log lines while `fn` runs, as the structured objects it writes. */
export async function withLogCapture<T>(t: TestApp, fn: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
  const original = t.deps.log
  const lines: Record<string, unknown>[] = []
  const at =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      void lines.push({ level, message, ...fields })
  t.deps.log = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
  try {
    return { result: await fn(), lines }
  } finally {
    t.deps.log = original
  }
}
