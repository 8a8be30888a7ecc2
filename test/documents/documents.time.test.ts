// Lists in time: the documents, memories and graph of a person who noted when things happened, kept to a window
// (`after` inclusive, `before` exclusive) on when they happened, not when they were saved; and a thread's messages
// listed in the order they were said, page after page, whatever order they were sent in.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { search } from '../search/search.fixtures'
import { defaultWorkspaceId, ingest } from './documents.fixtures'

let t: TestApp
let u: TestUser
const made: Record<string, string> = {}

beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
  u = await t.signUp()
  // Saved today, in this order, about days long past and not in that order.
  for (const [title, occurred_at] of [
    ['Kickoff', '2023-05-01T09:00:00Z'],
    ['Retro', '2023-05-12T16:00:00Z'],
    ['Design review', '2023-05-08T00:00:00Z'],
    ['Late-night fix', '2023-05-07T23:59:59.999Z'],
  ] as const) {
    made[title] = (await ingest(t, u, { title, occurred_at })).id
  }
  made['Saved now'] = (await ingest(t, u, { title: 'Saved now' })).id
  const memory = await t.json('POST', '/api/documents', {
    cookie: u.cookie,
    body: { kind: 'decision', title: 'Ship on Fridays', body: 'We ship on Fridays.', occurred_at: '2023-05-09T10:00:00Z' },
  })
  expect(memory.status).toBe(201)
  made['Ship on Fridays'] = memory.body.id
})
afterAll(() => t.close())

const titles = async (path: string) => {
  const res = await t.json('GET', path, { key: u.key })
  expect({ path, status: res.status }).toEqual({ path, status: 200 })
  return (res.body.data ?? res.body.nodes).map((d: { title: string }) => d.title).sort()
}

describe('lists keep to a window of when things happened', () => {
  test('documents: after inclusive, before exclusive, a date is its start in UTC', async () => {
    expect(await titles('/api/documents?after=2023-05-08&before=2023-05-12')).toEqual(['Design review', 'Ship on Fridays'])
    expect(await titles('/api/documents?before=2023-05-08')).toEqual(['Kickoff', 'Late-night fix'])
    expect(await titles('/api/documents?after=2023-05-12T16:00:00Z')).toEqual(['Retro', 'Saved now'])
    expect(await titles('/api/documents?after=2023-05-07T23:59:59.999Z&before=2023-05-08T00:00:00.001Z')).toEqual([
      'Design review',
      'Late-night fix',
    ])
    // With the other filters, and shown on each document.
    const res = await t.json('GET', '/api/documents?kind=document&after=2023-05-01&before=2023-05-02', { key: u.key })
    expect(res.body.data.map((d: { title: string; occurred_at: string }) => [d.title, d.occurred_at])).toEqual([
      ['Kickoff', '2023-05-01T09:00:00.000Z'],
    ])
  })

  test('memories', async () => {
    expect(await titles('/api/memories?after=2023-05-09')).toEqual(['Ship on Fridays'])
    expect(await titles('/api/memories?before=2023-05-09T10:00:00Z')).toEqual([])
  })

  test('the graph: only the nodes that happened in the window', async () => {
    const workspace = await defaultWorkspaceId(t, u)
    expect(await titles(`/api/graph?workspace_id=${workspace}&after=2023-05-08&before=2023-05-13`)).toEqual([
      'Design review',
      'Retro',
      'Ship on Fridays',
    ])
  })

  test('a bad date is a 400 naming the parameter, an empty window an empty page, on every list', async () => {
    const workspace = await defaultWorkspaceId(t, u)
    for (const path of ['/api/documents?', '/api/memories?', `/api/graph?workspace_id=${workspace}&`]) {
      const bad = await t.json('GET', `${path}before=2023-13-01`, { key: u.key })
      expect({ path, status: bad.status, error: bad.body.error }).toEqual({
        path,
        status: 400,
        error: expect.stringMatching(/^query.before: before must be an ISO 8601 date-time/),
      })
      // A window that closes as it opens, or before, holds nothing: an empty page, as any client may send it.
      for (const window of ['after=2023-05-09&before=2023-05-09', 'after=2023-05-09&before=2023-05-01']) {
        const empty = await t.json('GET', `${path}${window}`, { key: u.key })
        expect({ path, window, status: empty.status }).toEqual({ path, window, status: 200 })
        expect(path.includes('graph') ? empty.body.nodes : empty.body.data).toEqual([])
      }
    }
  })
})

describe("a thread's messages listed in the order they were said", () => {
  test('GET /api/documents?thread_id lists by position, page after page, whatever order they were sent in', async () => {
    const thread = await t.json('POST', '/api/threads', { key: u.key, body: { title: 'Standup' } })
    expect(thread.status).toBe(201)
    const said = (position: number) => ({
      speaker: position % 2 ? 'Ana' : 'Bo',
      content: `Message number ${position} of the standup.`,
      position,
      occurred_at: new Date(Date.UTC(2023, 4, 8, 9, position)).toISOString(),
    })
    // Sent out of order, in two batches: the list is in the thread's order all the same.
    for (const batch of [
      [4, 0, 2],
      [1, 3],
    ]) {
      const sent = await t.json('POST', `/api/threads/${thread.body.id}/messages`, { key: u.key, body: { messages: batch.map(said) } })
      expect(sent.body.failed).toBe(0)
    }
    const positions: number[] = []
    let cursor: string | null = null
    do {
      const res: { status: number; body: any } = await t.json(
        'GET',
        `/api/documents?thread_id=${thread.body.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        {
          key: u.key,
        },
      )
      expect(res.status).toBe(200)
      positions.push(...res.body.data.map((d: { position: number }) => d.position))
      cursor = res.body.next_cursor
    } while (cursor)
    expect(positions).toEqual([0, 1, 2, 3, 4])
    // The lead's route reads them in the same order.
    const read = await t.json('GET', `/api/threads/${thread.body.id}/messages`, { key: u.key })
    expect(read.body.data.map((d: { position: number }) => d.position)).toEqual([0, 1, 2, 3, 4])
    // With a window: the messages said from 9:01 to before 9:03.
    expect((await titles(`/api/documents?thread_id=${thread.body.id}&after=2023-05-08T09:01:00Z&before=2023-05-08T09:03:00Z`)).length).toBe(
      2,
    )
  })

  test("another user's thread is a 404, like a missing one", async () => {
    const thread = await t.json('POST', '/api/threads', { key: u.key, body: { title: 'Mine' } })
    const stranger = await t.signUp()
    const res = await t.json('GET', `/api/documents?thread_id=${thread.body.id}`, { key: stranger.key })
    expect(res.status).toBe(404)
    expect(res.body.error).toBe(`thread ${thread.body.id} not found`)
  })
})

describe('any year a date-time can name', () => {
  test("a time in the first centuries reads back as sent, from documents, lists and a message's neighbours in search", async () => {
    const v = await t.signUp()
    const times = ['0001-01-01T00:00:00.000Z', '0024-01-19T19:11:25.000Z', '0099-12-31T23:59:59.000Z', '9999-12-31T23:59:59.999Z']
    const ids: string[] = []
    for (const occurred_at of times) {
      const res = await t.json('POST', '/api/documents', { key: v.key, body: { body: `written at ${occurred_at}`, occurred_at } })
      expect(res.status).toBe(201)
      expect(res.body.occurred_at).toBe(occurred_at)
      ids.push(res.body.id)
    }
    for (const [i, id] of ids.entries())
      expect((await t.json('GET', `/api/documents/${id}`, { key: v.key })).body.occurred_at).toBe(times[i])
    const listed = await t.json('GET', '/api/documents?before=0100-01-01', { key: v.key })
    expect(listed.body.data.map((d: { occurred_at: string }) => d.occurred_at).sort()).toEqual(times.slice(0, 3))

    const thread = await t.json('POST', '/api/threads', {
      key: v.key,
      body: {
        messages: [
          { speaker: 'Livia', content: 'The aqueduct opens at dawn.', occurred_at: '0024-03-01T06:00:00Z' },
          { speaker: 'Marcus', content: 'Then the baths fill by noon.', occurred_at: '0024-03-01T06:05:00Z' },
        ],
      },
    })
    expect(thread.status).toBe(201)
    const [first] = (await search(t, v, { q: 'aqueduct opens at dawn', mode: 'keyword' })).results
    expect(first!.document.occurred_at).toBe('0024-03-01T06:00:00.000Z')
    expect(first!.context!.after.map((m) => m.occurred_at)).toEqual(['0024-03-01T06:05:00.000Z'])
  })

  test('a time whose UTC falls before year 1 (ISO 8601 year 0000, 1 BC) is stored and read back as the same instant', async () => {
    const v = await t.signUp()
    for (const [sent, read] of [
      ['0000-06-15T12:00:00Z', '0000-06-15T12:00:00.000Z'],
      ['0001-01-01T00:30:00+01:00', '0000-12-31T23:30:00.000Z'],
    ]) {
      const res = await t.json('POST', '/api/documents', { key: v.key, body: { body: `long ago at ${sent}`, occurred_at: sent } })
      expect(res.status).toBe(201)
      expect(res.body.occurred_at).toBe(read)
      expect((await t.json('GET', `/api/documents/${res.body.id}`, { key: v.key })).body.occurred_at).toBe(read)
    }
  })
})
