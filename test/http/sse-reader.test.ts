// One SSE reader, one rule: the MCP bridge, the dashboard and the tests read an event stream with the same
// parser, and an event the stream never ended with its blank line is not dispatched (the WHATWG EventSource
// rule) — here over a real listening server whose answer is cut after its last event's data line.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readSseEvents } from '../../src/lib/sse-events'
import { readEvents } from '../../src/web/client/lib/sse'
import { call, errorText, stdioClient, structured } from '../mcp/server'

const FINISHED = [
  { type: 'delta', text: 'Backups are kept for 35 days [1].' },
  { type: 'sources', sources: [{ index: 1, document_id: 'd1', title: 'Backup policy', url: null, excerpt: null }] },
]
const SAVED = { type: 'saved', conversation: { id: 'c1' } }
const frames = (events: object[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')

/** /finished ends every event; /cut sends the same, then `saved` without its blank line, and closes. */
let server: ReturnType<typeof Bun.serve>
let url: string
beforeAll(() => {
  server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url)
      const text = pathname === '/api/ask' ? frames([...FINISHED, SAVED]) : `${frames(FINISHED)}data: ${JSON.stringify(SAVED)}\n`
      return new Response(text, { headers: { 'content-type': 'text/event-stream' } })
    },
  })
  url = `http://127.0.0.1:${server.port}`
})
afterAll(() => server.stop(true))

describe('an event the stream never finished', () => {
  test('the server-side reader (MCP bridge, tests) does not dispatch it', async () => {
    const read = async (path: string) => {
      const out: unknown[] = []
      for await (const { data } of readSseEvents((await fetch(url + path, { method: 'POST' })).body!)) out.push(JSON.parse(data))
      return out
    }
    expect(await read('/api/ask')).toEqual([...FINISHED, SAVED])
    expect(await read('/cut')).toEqual(FINISHED)
  })

  test("the dashboard's reader does not dispatch it either", async () => {
    const read = async (path: string) => {
      const out: unknown[] = []
      for await (const event of readEvents((await fetch(url + path, { method: 'POST' })).body!)) out.push(event)
      return out
    }
    expect(await read('/api/ask')).toEqual([...FINISHED, SAVED])
    expect(await read('/cut')).toEqual(FINISHED)
  })

  test('the MCP ask tool reads a cut answer as cut, not as saved', async () => {
    const finished = await stdioClient(['--url', url, '--token', 'svc_any'])
    try {
      expect(structured(await call(finished.client, 'ask', { question: 'How long are backups kept?' }))).toMatchObject({
        answer: FINISHED[0]!.text,
        conversation_id: 'c1',
      })
    } finally {
      await finished.client.close()
    }
    // The service's base URL with a path prefix: the bridge POSTs <url>/api/ask, here answered by the cut stream.
    const cut = await stdioClient(['--url', `${url}/cut`, '--token', 'svc_any'])
    try {
      expect(errorText(await call(cut.client, 'ask', { question: 'How long are backups kept?' }))).toBe(
        'ask ended before the answer was complete',
      )
    } finally {
      await cut.client.close()
    }
  })
})
