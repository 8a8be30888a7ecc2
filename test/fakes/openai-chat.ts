// A local stand-in for OpenAI's chat completions API on 127.0.0.1 (Bun.serve, port 0), speaking the real wire
// format: POST /v1/chat/completions with a Bearer key → a `chat.completion`, or with `stream: true` an SSE
// stream of `chat.completion.chunk`s (a role chunk, content or `delta.tool_calls` pieces, the chunk with
// finish_reason, a usage chunk when `stream_options.include_usage`, then `data: [DONE]`). Each test scripts the
// replies in order (text, a tool call, an HTTP error, a stream that breaks midway, a delay before the first
// chunk); every request is recorded (method, path, headers, parsed body, when it arrived).

export interface RecordedChatRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: any
  /** performance.now() when the request arrived. */
  at: number
}

interface Timing {
  /** Milliseconds between the request and the first chunk (streaming) or the response (not streaming). */
  delayMs?: number
}

/** What the fake answers to one request. Build them with `reply.*`. */
export type ScriptedReply =
  | ({ kind: 'text'; pieces: string[]; finishReason: 'stop' | 'length'; usage?: Usage; pieceDelayMs?: number } & Timing)
  | ({ kind: 'tool-call'; calls: { id: string; name: string; arguments: string }[]; usage?: Usage } & Timing)
  | ({ kind: 'error'; status: number; message: string; retryAfterMs?: number } & Timing)
  | ({ kind: 'break'; pieces: string[]; how: BreakKind } & Timing)

/**
 * How a stream breaks after its pieces: `reset` cuts the connection (the body errors at the client), `eof` ends
 * the body cleanly but without a finish_reason or [DONE], `error-event` sends OpenAI's in-stream
 * `data: {"error": {...}}` and ends. Not streaming, the JSON body is cut halfway (by a reset, or just ended).
 */
export type BreakKind = 'reset' | 'eof' | 'error-event'

export interface Usage {
  prompt_tokens: number
  completion_tokens: number
}

/** Words with their trailing space, as a model streams them. */
const words = (text: string) => text.match(/\S+\s*/g) ?? [text]

export const reply = {
  /** A text answer; streamed word by word unless `pieces` says how to split it. */
  /** `pieceDelayMs` spaces the pieces out, as a slow model writes (for a client that stops it midway). */
  text: (
    text: string,
    options: Timing & { pieces?: string[]; finishReason?: 'stop' | 'length'; usage?: Usage; pieceDelayMs?: number } = {},
  ): ScriptedReply => {
    const pieces = options.pieces ?? words(text)
    if (pieces.join('') !== text) throw new Error('reply.text: pieces must join to the text')
    return {
      kind: 'text',
      pieces,
      finishReason: options.finishReason ?? 'stop',
      usage: options.usage,
      delayMs: options.delayMs,
      pieceDelayMs: options.pieceDelayMs,
    }
  },
  /** One call of the function `name`; its arguments are streamed in pieces of a few characters. */
  toolCall: (name: string, args: Record<string, unknown>, options: Timing & { id?: string; usage?: Usage } = {}): ScriptedReply => ({
    kind: 'tool-call',
    calls: [{ id: options.id ?? `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`, name, arguments: JSON.stringify(args) }],
    usage: options.usage,
    delayMs: options.delayMs,
  }),
  /** An HTTP error in OpenAI's shape ({ error: { message, type, param, code } }). */
  error: (status: number, options: Timing & { message?: string; retryAfterMs?: number } = {}): ScriptedReply => ({
    kind: 'error',
    status,
    message: options.message ?? 'The server had an error while processing your request.',
    retryAfterMs: options.retryAfterMs,
    delayMs: options.delayMs,
  }),
  /** A stream that starts answering `text` and breaks after it (see BreakKind). */
  breakAfter: (text: string, how: BreakKind = 'reset', options: Timing = {}): ScriptedReply => ({
    kind: 'break',
    pieces: words(text),
    how,
    delayMs: options.delayMs,
  }),
}

export interface FakeOpenAIChatOptions {
  /** The only key accepted (as `Authorization: Bearer <key>`); others get 401. */
  apiKey?: string
  /** The delay before the first chunk of every reply that does not set its own. */
  delayMs?: number
  /** What to answer when the script is empty: by default a 500 saying so, so a test notices the extra request. */
  fallback?: ScriptedReply
}

export interface FakeOpenAIChat {
  /** The base URL to give as OPENAI_BASE_URL (…/v1). */
  baseUrl: string
  requests: RecordedChatRequest[]
  /** Only the POST /v1/chat/completions requests. */
  chatRequests(): RecordedChatRequest[]
  /** Adds replies to the script; each request takes the next one. */
  script(...replies: ScriptedReply[]): void
  /** Replies scripted but not yet taken. */
  pending(): number
  /** Empties the script. */
  reset(): void
  stop(): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const countTokens = (text: string) => text.match(/\S+/g)?.length ?? 0
const promptTokens = (body: any) =>
  (Array.isArray(body?.messages) ? body.messages : []).reduce(
    (n: number, m: any) => n + countTokens(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')),
    0,
  )

export function startFakeOpenAIChat({
  apiKey = 'sk-test',
  delayMs: defaultDelay = 0,
  fallback,
}: FakeOpenAIChatOptions = {}): FakeOpenAIChat {
  const requests: RecordedChatRequest[] = []
  const queue: ScriptedReply[] = []
  const noScript = fallback ?? reply.error(500, { message: 'the fake has no scripted reply for this request' })

  const error = (status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}) =>
    Response.json({ error: { message, type, param: null, code } }, { status, headers })

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const at = performance.now()
      const url = new URL(req.url)
      const text = await req.text()
      let body: any = null
      try {
        body = text ? JSON.parse(text) : null
      } catch {
        body = text
      }
      const headers: Record<string, string> = {}
      req.headers.forEach((value, name) => {
        headers[name] = value
      })
      requests.push({ method: req.method, path: url.pathname, headers, body, at })

      if (req.headers.get('authorization') !== `Bearer ${apiKey}`) {
        return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key')
      }
      if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions')
        return error(404, `Unknown request URL: ${req.method} ${url.pathname}`, 'invalid_request_error', 'unknown_url')
      if (
        typeof body !== 'object' ||
        body === null ||
        typeof body.model !== 'string' ||
        !Array.isArray(body.messages) ||
        body.messages.length === 0
      ) {
        return error(400, "'model' and a non-empty 'messages' array are required", 'invalid_request_error', null)
      }

      const next = queue.shift() ?? noScript
      const delay = next.delayMs ?? defaultDelay
      if (next.kind === 'error') {
        if (delay) await sleep(delay)
        const h: Record<string, string> = next.retryAfterMs !== undefined ? { 'retry-after-ms': String(next.retryAfterMs) } : {}
        return error(next.status, next.message, next.status >= 500 ? 'server_error' : 'invalid_request_error', null, h)
      }
      const id = `chatcmpl-fake${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`
      const created = Math.floor(Date.now() / 1000)
      const usageOf = (completion: string, given?: Usage) => {
        const u = given ?? { prompt_tokens: promptTokens(body), completion_tokens: countTokens(completion) }
        return { ...u, total_tokens: u.prompt_tokens + u.completion_tokens }
      }
      if (body.stream !== true) {
        if (delay) await sleep(delay)
        const answer = completion(next, { id, created, model: body.model, usageOf })
        return next.kind === 'break' ? cutShort(JSON.stringify(answer), next.how) : Response.json(answer)
      }
      return streamed(next, { id, created, model: body.model, usageOf, delay, includeUsage: body.stream_options?.include_usage === true })
    },
  })

  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions'),
    script: (...replies) => {
      queue.push(...replies)
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0
    },
    stop: () => server.stop(true),
  }
}

interface ReplyContext {
  id: string
  created: number
  model: string
  usageOf(completion: string, given?: Usage): Usage & { total_tokens: number }
}

/** The non-streaming `chat.completion` (for a scripted break, the one it would have sent; see cutShort). */
function completion(next: Exclude<ScriptedReply, { kind: 'error' }>, { id, created, model, usageOf }: ReplyContext) {
  const base = { id, object: 'chat.completion', created, model, system_fingerprint: 'fp_fake', service_tier: 'default' }
  if (next.kind === 'tool-call') {
    const args = next.calls.map((c) => c.arguments).join('')
    return {
      ...base,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            annotations: [],
            tool_calls: next.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: usageOf(args, next.usage),
    }
  }
  const content = next.pieces.join('')
  const finish = next.kind === 'text' ? next.finishReason : 'length'
  return {
    ...base,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: finish }],
    usage: usageOf(content, next.kind === 'text' ? next.usage : undefined),
  }
}

/** Not streaming, a break sends the first half of the JSON body, then cuts the connection (reset) or just ends it. */
function cutShort(json: string, how: BreakKind) {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new TextEncoder().encode(json.slice(0, Math.floor(json.length / 2))))
      await sleep(5)
      if (how === 'reset') controller.error()
      else controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': 'application/json' } })
}

/** The SSE stream of `chat.completion.chunk`s, as OpenAI sends it. */
function streamed(
  next: Exclude<ScriptedReply, { kind: 'error' }>,
  { id, created, model, usageOf, delay, includeUsage }: ReplyContext & { delay: number; includeUsage: boolean },
) {
  const encoder = new TextEncoder()
  const chunk = (delta: object, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(includeUsage ? { usage: null } : {}),
  })
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (data: object | string) =>
        controller.enqueue(encoder.encode(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`))
      if (delay) await sleep(delay)
      let completionText = ''
      if (next.kind === 'tool-call') {
        send(chunk({ role: 'assistant', content: null, refusal: null }))
        next.calls.forEach((call, index) => {
          send(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
          // Arguments arrive in small pieces, split anywhere (mid-key, mid-string), as the real API streams them.
          for (const piece of call.arguments.match(/[\s\S]{1,7}/g) ?? [])
            send(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
          completionText += call.arguments
        })
        send(chunk({}, 'tool_calls'))
      } else {
        send(chunk({ role: 'assistant', content: '', refusal: null }))
        for (const piece of next.pieces) {
          send(chunk({ content: piece }))
          completionText += piece
          // Let each piece leave as its own write, so the client sees a stream rather than one buffer.
          await sleep(next.kind === 'text' ? (next.pieceDelayMs ?? 0) : 0)
        }
        if (next.kind === 'break') {
          await sleep(5)
          // Erroring the body makes Bun cut the connection (the client reads ECONNRESET); without a reason, Bun
          // logs nothing about it.
          if (next.how === 'reset') controller.error()
          else if (next.how === 'error-event') {
            send({
              error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null },
            })
            controller.close()
          } else controller.close()
          return
        }
        send(chunk({}, next.finishReason))
      }
      if (includeUsage) send({ ...chunk({}), choices: [], usage: usageOf(completionText, next.usage) })
      send('[DONE]')
      controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' } })
}
