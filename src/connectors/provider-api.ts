// Calls a provider's REST API with a connection's token: a refreshed token after a 401, waits and retries on
// 429 and 5xx (Retry-After honoured), a timeout per request, and the token only ever sent to the API's origin.

/** `message` is shown to the user (an answer, a sync run); `cause`, the network's own error, only logged. */
export class ProviderError extends Error {
  constructor(
    /** The provider's HTTP status, or null when it could not be reached. */
    readonly status: number | null,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options)
  }
}

/** Thrown by a provider for an item it cannot import after all (unsupported export, too large): skipped. */
export class SkipItem extends Error {}

export interface TokenSource {
  /** The current access token (refreshed first when it is about to expire). */
  token(): Promise<string>
  /** A new access token after the API refused the current one; null when there is no way to refresh. */
  refresh(): Promise<string | null>
}

export interface ApiRequest {
  method?: 'GET' | 'POST'
  query?: Record<string, string | number | boolean | undefined>
  /** Sent as JSON. */
  body?: unknown
  /** Larger answers are refused with SkipItem instead of being read whole. */
  maxBytes?: number
}

export interface ProviderApi {
  /** The configured API base URL (config `<PROVIDER>_API_URL`). */
  readonly base: string
  json<T>(path: string, request?: ApiRequest): Promise<T>
  text(path: string, request?: ApiRequest): Promise<string>
  /** The answer's bytes as sent (a file), at most `maxBytes` of them (else SkipItem). */
  bytes(path: string, request?: ApiRequest): Promise<Uint8Array>
}

export interface ProviderApiOptions {
  /** Provider name for error messages. */
  name: string
  base: string
  tokens: TokenSource
  headers?: Record<string, string>
  /** Attempts for one call when the provider answers 429 / 5xx or cannot be reached. */
  attempts?: number
  /** Longest wait between attempts (a larger Retry-After is cut to this). */
  maxWaitMs?: number
  timeoutMs?: number
  sleep?: (ms: number) => Promise<void>
}

const RETRYABLE = new Set([429, 500, 502, 503, 504])

export function createProviderApi(options: ProviderApiOptions): ProviderApi {
  const { name, tokens } = options
  const base = options.base.replace(/\/+$/, '')
  const origin = new URL(base).origin
  const attempts = options.attempts ?? 5
  const maxWaitMs = options.maxWaitMs ?? 30_000
  const sleep = options.sleep ?? ((ms: number) => Bun.sleep(ms))

  function urlOf(path: string, query: ApiRequest['query']): URL {
    const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(base + (path.startsWith('/') ? path : `/${path}`))
    // A next-page link the provider hands back must not carry the token to another host.
    if (url.origin !== origin) throw new ProviderError(null, `${name} pointed to ${url.origin}, outside its API ${origin}`)
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v))
    return url
  }

  async function send(path: string, request: ApiRequest): Promise<Response> {
    const url = urlOf(path, request.query)
    let token = await tokens.token()
    let refreshed = false
    for (let attempt = 1; ; attempt++) {
      let res: Response
      try {
        res = await fetch(url, {
          method: request.method ?? 'GET',
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/json',
            ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...options.headers,
          },
          body: request.body !== undefined ? JSON.stringify(request.body) : undefined,
          signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
        })
      } catch (error) {
        if (attempt >= attempts) throw new ProviderError(null, `${name} could not be reached`, { cause: error })
        await sleep(backoff(attempt, maxWaitMs))
        continue
      }
      if (res.ok) return res
      if (res.status === 401 && !refreshed) {
        await res.body?.cancel()
        refreshed = true
        const fresh = await tokens.refresh()
        if (fresh === null) throw new ProviderError(401, `${name} refused the connection's token: reconnect`)
        token = fresh
        continue
      }
      if (RETRYABLE.has(res.status) && attempt < attempts) {
        await res.body?.cancel()
        await sleep(Math.min(maxWaitMs, retryAfterMs(res.headers.get('retry-after')) ?? backoff(attempt, maxWaitMs)))
        continue
      }
      throw new ProviderError(res.status, `${name} answered ${res.status} for ${url.pathname}${await reasonOf(res)}`)
    }
  }

  async function read(res: Response, maxBytes: number | undefined): Promise<string> {
    return new TextDecoder().decode(await readBytes(res, maxBytes))
  }

  async function readBytes(res: Response, maxBytes: number | undefined): Promise<Uint8Array> {
    if (maxBytes === undefined) return new Uint8Array(await res.arrayBuffer())
    const declared = Number(res.headers.get('content-length') ?? NaN)
    if (declared > maxBytes) {
      await res.body?.cancel()
      throw new SkipItem(`larger than ${maxBytes} bytes`)
    }
    const chunks: Uint8Array[] = []
    let size = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength
      if (size > maxBytes) throw new SkipItem(`larger than ${maxBytes} bytes`)
      chunks.push(chunk)
    }
    return Buffer.concat(chunks)
  }

  return {
    base,
    async json<T>(path: string, request: ApiRequest = {}) {
      const res = await send(path, request)
      const text = await read(res, request.maxBytes)
      try {
        return JSON.parse(text) as T
      } catch {
        throw new ProviderError(
          res.status,
          `${name} answered ${res.status} for ${new URL(res.url || base).pathname} with a body that is not JSON`,
        )
      }
    },
    async text(path: string, request: ApiRequest = {}) {
      return read(await send(path, request), request.maxBytes)
    },
    async bytes(path: string, request: ApiRequest = {}) {
      return readBytes(await send(path, request), request.maxBytes)
    },
  }
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

const backoff = (attempt: number, cap: number) => Math.min(cap, 250 * 2 ** attempt)

/** The provider's own words, shortened: its error bodies say what was wrong (never a token of ours). */
async function reasonOf(res: Response): Promise<string> {
  const text = (await res.text().catch(() => '')).trim()
  if (!text) return ''
  let message = text
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown }
    const m = body.message ?? (body.error as { message?: unknown } | undefined)?.message ?? body.error
    if (typeof m === 'string') message = m
  } catch {}
  return `: ${message.slice(0, 200)}`
}
