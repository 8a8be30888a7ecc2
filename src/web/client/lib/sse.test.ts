// The event-stream reader: events split anywhere across chunks (even inside a character) come out whole; an
// event the stream never finished is not dispatched.
import { describe, expect, test } from 'bun:test'
import { readEvents } from './sse'

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk)
      controller.close()
    },
  })
}

async function all(stream: ReadableStream<Uint8Array>) {
  const events: unknown[] = []
  for await (const event of readEvents(stream)) events.push(event)
  return events
}

describe('readEvents', () => {
  test('one event per blank line, in order', async () => {
    expect(await all(streamOf(['data: {"type":"delta","text":"Hi "}\n\ndata: {"type":"delta","text":"there"}\n\n']))).toEqual([
      { type: 'delta', text: 'Hi ' },
      { type: 'delta', text: 'there' },
    ])
  })

  test('an event cut across chunks, and a character cut between its bytes, arrive whole', async () => {
    const bytes = new TextEncoder().encode('data: {"type":"delta","text":"café ☕"}\n\n')
    const cuts = [3, 9, bytes.indexOf(0xc3) + 1, bytes.length - 5, bytes.length - 1]
    const chunks = cuts.map((cut, i) => bytes.slice(i ? cuts[i - 1] : 0, cut)).concat([bytes.slice(cuts.at(-1))])
    expect(await all(streamOf(chunks))).toEqual([{ type: 'delta', text: 'café ☕' }])
  })

  test('CRLF line ends, comments, other fields and several data lines', async () => {
    const wire = ': keep-alive\r\n\r\nevent: message\r\ndata: {"type":\r\ndata: "saved"}\r\n\r\n'
    expect(await all(streamOf([wire]))).toEqual([{ type: 'saved' }])
  })

  test('a CRLF split between two chunks is one line end', async () => {
    expect(await all(streamOf(['data: {"a":1}\r', '\n\r', '\ndata: {"b":2}\r\n\r\n']))).toEqual([{ a: 1 }, { b: 2 }])
  })

  test('a last event without its blank line is not dispatched (the WHATWG EventSource rule)', async () => {
    expect(await all(streamOf(['data: {"type":"delta","text":"Hi"}\n\ndata: {"type":"error","message":"x"}']))).toEqual([
      { type: 'delta', text: 'Hi' },
    ])
  })

  test('a data line that is not JSON fails loudly', async () => {
    await expect(all(streamOf(['data: not json\n\n']))).rejects.toThrow()
  })
})
