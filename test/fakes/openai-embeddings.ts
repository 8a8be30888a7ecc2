// A local stand-in for OpenAI's embeddings API on 127.0.0.1 (Bun.serve, port 0), speaking the real wire
// format: POST /v1/embeddings with { model, input: string | string[], encoding_format?, dimensions? } and a
// Bearer key → { object: 'list', data: [{ object: 'embedding', index, embedding }], model, usage }. Errors
// come in OpenAI's shape ({ error: { message, type, code } }). Every request is recorded (method, path,
// headers, parsed body), and the test can make it fail: always, or for the next n requests.
import { hashEmbed } from '../../src/embedding/hash-embedding'

export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string>
  body: any
}

export interface FakeOpenAIOptions {
  /** The only key accepted (as `Authorization: Bearer <key>`); others get 401. */
  apiKey?: string
  /** Dimensions of the vectors answered (the hash embedding of each input). */
  dimensions?: number
}

export interface Failure {
  status: number
  /** Sent as retry-after-ms, which the AI SDK honours (so its own retries do not wait 2 s, 4 s …). */
  retryAfterMs?: number
  message?: string
}

export interface FakeOpenAI {
  /** The base URL to give as OPENAI_BASE_URL (…/v1). */
  baseUrl: string
  requests: RecordedRequest[]
  /** Only the POST /v1/embeddings requests. */
  embeddingRequests(): RecordedRequest[]
  /** The vector this fake answers for `text`. */
  vectorFor(text: string): number[]
  /** Every request fails with `failure` until healthy() is called. */
  failAlways(failure: Failure): void
  /** The next `n` requests fail with `failure`, then it answers again. */
  failNext(n: number, failure: Failure): void
  healthy(): void
  stop(): Promise<void>
}

export function startFakeOpenAI({ apiKey = 'sk-test', dimensions = 48 }: FakeOpenAIOptions = {}): FakeOpenAI {
  const requests: RecordedRequest[] = []
  let failing: { failure: Failure; remaining: number } | null = null
  const vectorFor = (text: string) => hashEmbed(text, dimensions)

  const error = (status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}) =>
    Response.json({ error: { message, type, param: null, code } }, { status, headers })

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
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
      requests.push({ method: req.method, path: url.pathname, headers, body })

      if (failing && failing.remaining > 0) {
        failing.remaining--
        const { status, retryAfterMs, message } = failing.failure
        if (failing.remaining === 0) failing = null
        const headers: Record<string, string> = retryAfterMs !== undefined ? { 'retry-after-ms': String(retryAfterMs) } : {}
        return error(status, message ?? 'The server had an error while processing your request.', 'server_error', null, headers)
      }
      if (req.headers.get('authorization') !== `Bearer ${apiKey}`) {
        return error(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key')
      }
      if (req.method !== 'POST' || url.pathname !== '/v1/embeddings')
        return error(404, `Unknown request URL: ${req.method} ${url.pathname}`, 'invalid_request_error', 'unknown_url')
      if (!req.headers.get('content-type')?.includes('application/json') || typeof body !== 'object' || body === null) {
        return error(400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null)
      }
      const inputs: unknown = typeof body.input === 'string' ? [body.input] : body.input
      if (
        typeof body.model !== 'string' ||
        !Array.isArray(inputs) ||
        inputs.length === 0 ||
        inputs.some((i) => typeof i !== 'string' || i === '')
      ) {
        return error(400, "'input' must be a non-empty string or array of strings, and 'model' a string", 'invalid_request_error', null)
      }
      const format = body.encoding_format ?? 'float'
      if (format !== 'float' && format !== 'base64')
        return error(400, `'${format}' is not one of ['float', 'base64'] - 'encoding_format'`, 'invalid_request_error', null)
      const vectors = (inputs as string[]).map(vectorFor)
      const tokens = (inputs as string[]).reduce((n, s) => n + (s.match(/\S+/g)?.length ?? 0), 0)
      return Response.json({
        object: 'list',
        data: vectors.map((v, index) => ({
          object: 'embedding',
          index,
          embedding: format === 'float' ? v : Buffer.from(new Float32Array(v).buffer).toString('base64'),
        })),
        model: body.model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      })
    },
  })

  return {
    baseUrl: `http://127.0.0.1:${server.port}/v1`,
    requests,
    embeddingRequests: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/embeddings'),
    vectorFor,
    failAlways: (failure) => {
      failing = { failure, remaining: Number.POSITIVE_INFINITY }
    },
    failNext: (n, failure) => {
      failing = n > 0 ? { failure, remaining: n } : null
    },
    healthy: () => {
      failing = null
    },
    stop: () => server.stop(true),
  }
}
