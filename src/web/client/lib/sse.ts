// Reading a server-sent event stream from a fetch body (POST /api/ask and /api/agent/chat are POSTs, which
// EventSource cannot make) with eventsource-parser, the parser the server's MCP bridge and tests use too:
// bytes → text (a character split across chunks stays whole) → events, each the JSON of its `data:` lines,
// yielded as soon as its blank line arrives. An event the stream never ended with its blank line is not
// dispatched (the WHATWG EventSource rule): a cut answer then ends without `saved`, and reads as cut.
import { EventSourceParserStream } from 'eventsource-parser/stream'

/** The events of `stream`, in order. Comments and fields other than `data` are skipped; a `data` that is not
 * JSON is an error (the service only sends JSON). Cancelling (an aborted fetch) ends the loop with its error. */
export async function* readEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const decoder = new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>
  // A reader rather than `for await` over the stream: Safari cannot iterate a ReadableStream.
  const reader = stream.pipeThrough(decoder).pipeThrough(new EventSourceParserStream()).getReader()
  let done = false
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield JSON.parse(next.value.data)
    done = true
  } finally {
    // A consumer that stops early cancels the rest, so the service stops generating.
    if (!done) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
