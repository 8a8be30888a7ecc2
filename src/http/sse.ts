// Server-sent events: one `data: <json>` line per event. The producer gets an AbortSignal that fires when the
// client goes away, so a disconnect stops the generation instead of running it to the end for nobody. Once
// the 200 is sent a failure can no longer be a status code: whatever the producer throws ends the stream with
// the stream's own error event (and a log line with the request id), never a silent end. A caller that cannot
// read a stream gets the same producer's events collected, and a failure as an error status instead.
import type { Logger } from '../log'
import { ERROR_CODES, type ErrorCode } from './error-codes'
import { AppError, requestIdOf } from './errors'

export type Send<E> = (event: E) => void

export interface SseOptions<E> {
  headers?: Record<string, string | number>
  /** How an event is written on the wire; `data: <json>` by default. */
  encode?: (event: E) => string
  /** The last event of a stream that failed after it began, from a message the client may read and its code. */
  failure: (message: string, code: ErrorCode) => E
}

/** A failure whose message is for the client; its cause (which may hold internals) goes to the log only. Its
 * code is the cause's own (`internal` for one of ours that is not an AppError) unless the thrower names one. */
export class StreamError extends Error {
  readonly code: ErrorCode
  constructor(message: string, options?: { cause?: unknown; code?: ErrorCode }) {
    super(message, options)
    this.code = options?.code ?? publicCode(options?.cause)
  }
}

/** What a client may read of a failure: our own messages, or "internal error" (details are in the log). */
export const publicReason = (error: unknown) =>
  error instanceof StreamError || error instanceof AppError ? error.message : 'internal error'

/** The code of a failure, beside its public reason. */
export const publicCode = (error: unknown): ErrorCode =>
  error instanceof StreamError || error instanceof AppError ? error.code : 'internal'

/** Runs one step of a stream; if it fails, the client reads "<what>: <reason>". */
export async function streamStep<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (cause) {
    throw new StreamError(`${what}: ${publicReason(cause)}`, { cause })
  }
}

export function sseResponse<E>(
  request: Request,
  log: Logger,
  produce: (send: Send<E>, signal: AbortSignal) => Promise<void>,
  options: SseOptions<E>,
): Response {
  const encode = options.encode ?? ((event: E) => `data: ${JSON.stringify(event)}\n\n`)
  const abort = new AbortController()
  const onClientGone = () => abort.abort(new Error('client disconnected'))
  request.signal.addEventListener('abort', onClientGone, { once: true })
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send: Send<E> = (event) => {
        if (!abort.signal.aborted) controller.enqueue(encoder.encode(encode(event)))
      }
      try {
        await produce(send, abort.signal)
      } catch (error) {
        // A client that left needs no error event, and its abort is no failure of ours.
        if (!abort.signal.aborted) {
          log.error('stream failed', { request_id: requestIdOf(request), path: new URL(request.url).pathname, error: describe(error) })
          send(options.failure(publicReason(error), publicCode(error)))
        }
      } finally {
        request.signal.removeEventListener('abort', onClientGone)
        try {
          controller.close()
        } catch {
          // Already closed by a cancel.
        }
      }
    },
    cancel() {
      onClientGone()
    },
  })
  return new Response(body, {
    headers: {
      ...Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k, String(v)])),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  })
}

/**
 * Whether the caller asked for the whole answer as one JSON object rather than a stream: `stream: false` in the
 * body, or an Accept that prefers application/json to text/event-stream (a generated client that cannot read
 * SSE sends `Accept: application/json`). No Accept, any type, or a tie keeps the stream, the default.
 */
export function prefersJson(request: Request, stream?: boolean): boolean {
  if (stream !== undefined) return !stream
  const accept = request.headers.get('accept')
  if (!accept) return false
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase())
    const q = params.find((p) => p.startsWith('q='))
    return { range, q: q ? Number(q.slice(2)) || 0 : 1 }
  })
  // The most specific range naming a type gives its weight (RFC 9110 §12.5.1).
  const weight = (type: string) => {
    const [major] = type.split('/')
    for (const candidate of [type, `${major}/*`, '*/*']) {
      const found = ranges.find((r) => r.range === candidate)
      if (found) return found.q
    }
    return 0
  }
  return weight('application/json') > weight('text/event-stream')
}

/**
 * The producer of a stream read to its end, for a caller that wants one JSON answer: its events in order. A
 * failure after it began, which a stream would end with its error event, is thrown as the AppError of that
 * code instead (a provider's failure: 502 provider_error), before any byte of the answer is sent.
 */
export async function collectEvents<E>(request: Request, produce: (send: Send<E>, signal: AbortSignal) => Promise<void>): Promise<E[]> {
  const events: E[] = []
  const abort = new AbortController()
  const onClientGone = () => abort.abort(new Error('client disconnected'))
  request.signal.addEventListener('abort', onClientGone, { once: true })
  try {
    await produce((event) => events.push(event), abort.signal)
  } catch (error) {
    if (error instanceof AppError) throw error
    const code = publicCode(error)
    throw new AppError(ERROR_CODES[code].status, publicReason(error), {}, code, { cause: error })
  } finally {
    request.signal.removeEventListener('abort', onClientGone)
  }
  return events
}

/** The error and its causes, stack first: what an operator needs to find where a stream broke. */
function describe(error: unknown): string {
  const parts: string[] = []
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 4; e = (e as Error)?.cause, depth++)
    parts.push(String((e as Error)?.stack ?? e))
  return parts.join('\ncaused by: ')
}
