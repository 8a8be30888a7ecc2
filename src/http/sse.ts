// Server-sent events: one `data: <json>` line per event. The producer gets an AbortSignal that fires when the
// client goes away, so a disconnect stops the generation instead of running it to the end for nobody.
import type { Logger } from '../log'

export type Send<E> = (event: E) => void

export function sseResponse<E>(
  request: Request,
  log: Logger,
  produce: (send: Send<E>, signal: AbortSignal) => Promise<void>,
  headers: Record<string, string | number> = {},
  encode: (event: E) => string = (event) => `data: ${JSON.stringify(event)}\n\n`,
): Response {
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
        if (!abort.signal.aborted) log.error('stream failed', { error: String(error) })
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
      ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  })
}
