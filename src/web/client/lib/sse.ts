// Reading a server-sent event stream from a fetch body (POST /api/ask and /api/agent/chat are POSTs, which
// EventSource cannot make): bytes → text (a character split across chunks stays whole) → events, each the
// JSON of its `data:` lines, yielded as soon as its blank line arrives.

/** The events of `stream`, in order. Comments and fields other than `data` are skipped; a `data` that is not
 * JSON is an error (the service only sends JSON). Cancelling (an aborted fetch) ends the loop with its error. */
export async function* readEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const reader = stream.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true })
      // Line ends may be \n, \r\n or \r (the SSE grammar allows all three); a \r at the very end waits for
      // the next chunk, which may start with its \n.
      const held = !done && buffer.endsWith('\r') ? '\r' : ''
      buffer = (held ? buffer.slice(0, -1) : buffer).replace(/\r\n?/g, '\n')
      let end: number
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = parseEvent(buffer.slice(0, end))
        buffer = buffer.slice(end + 2)
        if (event !== undefined) yield event
      }
      buffer += held
      if (done) break
    }
    // A last event without its blank line still counts: the stream ended, nothing more will complete it.
    const last = parseEvent(buffer)
    if (last !== undefined) yield last
  } finally {
    reader.releaseLock()
  }
}

function parseEvent(block: string): unknown {
  const data = block
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
  if (!data.length) return undefined
  return JSON.parse(data.join('\n'))
}
