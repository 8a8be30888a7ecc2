// Reads a text/event-stream body as the data of its events (docs/decisions.md#streams: `data: <json>`, blank line).
// A partial event when the stream ends is dropped, as the SSE spec says: the producer never finished it.
export async function* readSseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let data: string[] = []
  let done = false
  try {
    while (!done) {
      const chunk = await reader.read()
      done = chunk.done
      buffer += done ? decoder.decode() : decoder.decode(chunk.value, { stream: true })
      let end: number
      while ((end = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, end).replace(/\r$/, '')
        buffer = buffer.slice(end + 1)
        if (line === '') {
          if (data.length) yield data.join('\n')
          data = []
        } else if (line === 'data' || line.startsWith('data:')) {
          data.push(line.slice(5).replace(/^ /, ''))
        }
        // Comments (`:`), event names, ids and retry hints carry nothing these streams use.
      }
    }
  } finally {
    // A consumer that stops early (an error event) cancels the rest, so the producer stops generating.
    if (!done) await reader.cancel().catch(() => {})
    reader.releaseLock()
  }
}
