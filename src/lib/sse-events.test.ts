// readSseEvents: events split across chunks, CRLF lines, multi-line data, comments, an unfinished last event,
// and a reader that stops early.
import { describe, expect, test } from 'bun:test'
import { readSseEvents } from './sse-events'

const streamOf = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(new TextEncoder().encode(c))
      controller.close()
    },
  })

const collect = async (body: ReadableStream<Uint8Array>) => {
  const out: string[] = []
  for await (const { data } of readSseEvents(body)) out.push(data)
  return out
}

describe('readSseEvents', () => {
  test('yields the data of each event, however the bytes are chunked', async () => {
    const text = 'data: {"type":"delta","text":"héllo"}\n\ndata: {"type":"saved"}\n\n'
    const bytes = new TextEncoder().encode(text)
    const oneByteChunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const b of bytes) controller.enqueue(new Uint8Array([b]))
        controller.close()
      },
    })
    expect(await collect(oneByteChunks)).toEqual(['{"type":"delta","text":"héllo"}', '{"type":"saved"}'])
  })

  test('CRLF lines, multi-line data, comments and other fields', async () => {
    expect(await collect(streamOf(': keep-alive\r\n\r\nevent: x\r\nid: 1\r\ndata: a\r\ndata:b\r\n\r\n'))).toEqual(['a\nb'])
  })

  test('an event the stream never finished is dropped', async () => {
    expect(await collect(streamOf('data: 1\n\ndata: 2'))).toEqual(['1'])
  })

  test('stopping early cancels the stream', async () => {
    const cancelled = Promise.withResolvers<void>()
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: x\n\n'))
      },
      cancel() {
        cancelled.resolve()
      },
    })
    for await (const { data } of readSseEvents(body)) {
      expect(data).toBe('x')
      break
    }
    // The cancel travels back through the decoder and the parser to the body (the test waits for it).
    await cancelled.promise
  })
})
