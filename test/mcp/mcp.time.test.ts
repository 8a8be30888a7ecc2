// An agent searching over MCP for what happened in a window: the search tool takes after and before as the REST
// search does, shows when each result happened (and, for a message, who said it and its neighbours), and a bad date comes back as a
// tool error naming the argument.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { TestUser } from '../harness'
import { call, errorText, httpClient, startMcpServer, structured, type McpTestServer } from './server'

let s: McpTestServer
let user: TestUser
let client: Client

beforeAll(async () => {
  s = await startMcpServer({ DEFAULT_PLAN: 'pro' })
  user = await s.t.signUp()
  client = await httpClient(s.url, user.key)
  for (const [title, occurred_at] of [
    ['Ferry timetable spring', '2023-03-20T08:00:00Z'],
    ['Ferry timetable summer', '2023-06-21T08:00:00Z'],
  ]) {
    const res = await s.t.json('POST', '/api/documents', {
      key: user.key,
      body: { title, body: `${title}: the ferry leaves hourly.`, occurred_at },
    })
    expect(res.status).toBe(201)
  }
  const thread = await s.t.json('POST', '/api/threads', {
    key: user.key,
    body: { messages: [{ speaker: 'Mia', content: 'The ferry was late again this morning.', occurred_at: '2023-06-22T07:30:00Z' }] },
  })
  expect(thread.status).toBe(201)
})
afterAll(async () => {
  await client?.close()
  await s.stop()
})

describe('search over MCP in a window of time', () => {
  test('after and before keep to the window; results say when they happened and who said a message', async () => {
    const summer = structured(await call(client, 'search', { query: 'ferry', mode: 'keyword', after: '2023-06-01' }))
    expect(summer.results.map((r: { title: string }) => r.title).sort()).toEqual(['Ferry timetable summer', 'Mia · 22 June 2023, 07:30'])
    const message = summer.results.find((r: { kind: string }) => r.kind === 'message')
    expect(message).toMatchObject({ speaker: 'Mia', occurred_at: '2023-06-22T07:30:00.000Z', context: { before: [], after: [] } })
    const spring = structured(await call(client, 'search', { query: 'ferry', mode: 'keyword', before: '2023-06-01' }))
    expect(
      spring.results.map((r: { title: string; occurred_at: string; speaker: string | null }) => [r.title, r.occurred_at, r.speaker]),
    ).toEqual([['Ferry timetable spring', '2023-03-20T08:00:00.000Z', null]])
  })

  test('a date that is not one is a tool error naming the argument; an empty window finds nothing', async () => {
    expect(errorText(await call(client, 'search', { query: 'ferry', after: 'last tuesday' }))).toContain(
      'after must be an ISO 8601 date-time',
    )
    // A window that closes before it opens is no error: it holds nothing.
    expect(
      structured(await call(client, 'search', { query: 'ferry', mode: 'keyword', after: '2023-06-02', before: '2023-06-01' })).results,
    ).toEqual([])
  })
})
