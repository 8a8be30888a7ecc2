// Reading a text/event-stream body (a POST's answer, which EventSource cannot make) as its events, with the
// parser the MCP bridge, the tests and the dashboard all use (eventsource-parser, the Vercel AI SDK's own). An
// event the stream never ended with its blank line is not dispatched, as the WHATWG EventSource spec says: its
// producer never finished it (the server ends every event it sends).
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream'

export type { EventSourceMessage }

/** The events of `body`, in order; a loop that stops early cancels the body, so its producer stops generating. */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<EventSourceMessage> {
  const decoder = new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>
  const reader = body.pipeThrough(decoder).pipeThrough(new EventSourceParserStream()).getReader()
  let done = false
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value
    done = true
  } finally {
    if (!done) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
