// A message is found in its context: a short reply by the words of the messages it answers, any message by who
// said it and when; editing, inserting or forgetting a message re-indexes the replies that read it; and a plain
// document is indexed exactly as before (same postings, same keyword length).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { drainJobs } from '../../src/jobs/worker'
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-embeddings'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { searchIds } from '../search/search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

interface Message {
  speaker: string
  content: string
  client_id?: string
  position?: number
  occurred_at?: string
}

/** A new thread with `messages`; the ids of the messages written, in order. */
async function startThread(u: TestUser, messages: Message[]): Promise<{ id: string; messages: string[] }> {
  const res = await t.json('POST', '/api/threads', { key: u.key, body: { messages } })
  expect({ status: res.status, failed: res.body.results?.failed }).toEqual({ status: 201, failed: 0 })
  return { id: res.body.id, messages: res.body.results.results.map((r: { document: { id: string } }) => r.document.id) }
}

async function send(u: TestUser, threadId: string, messages: Message[]): Promise<string[]> {
  const res = await t.json('POST', `/api/threads/${threadId}/messages`, { key: u.key, body: { messages } })
  expect({ status: res.status, failed: res.body.failed }).toEqual({ status: 200, failed: 0 })
  return res.body.results.map((r: { document: { id: string } }) => r.document.id)
}

const found = (u: TestUser, q: string) => searchIds(t, u, { q, mode: 'keyword' })

/** A document's postings as term → tf, and its keyword length. */
async function indexOf(id: string) {
  const rows = await queryRows<{ term: string; tf: number }>(
    t.deps.db,
    sql`select term, tf from postings where document_id = ${id} order by term`,
  )
  const [doc] = await queryRows<{ keyword_len: number }>(t.deps.db, sql`select keyword_len from documents where id = ${id}`)
  return { postings: Object.fromEntries(rows.map((r) => [r.term, Number(r.tf)])), keyword_len: Number(doc!.keyword_len) }
}

const ROAD_TRIP: Message[] = [
  { speaker: 'Caroline', content: 'The photos of your road trip are lovely.', occurred_at: '2023-10-20T18:55:00Z' },
  { speaker: 'Caroline', content: 'How did the kids handle the accident?', occurred_at: '2023-10-20T18:56:00Z' },
  { speaker: 'Melanie', content: "They were scared, but we reassured them. They're tough.", occurred_at: '2023-10-20T18:57:00Z' },
  { speaker: 'Melanie', content: 'Anyway, enough about that.', occurred_at: '2023-10-20T18:58:00Z' },
  { speaker: 'Melanie', content: 'What are you up to this weekend?', occurred_at: '2023-10-20T18:59:00Z' },
]

describe('a message is found in its context', () => {
  test('a short reply is found by the words of the message it answers, after that message', async () => {
    const u = await t.signUp()
    const { messages } = await startThread(u, ROAD_TRIP)
    const [, question, reply, aside, later] = messages
    // The reply says neither "kids" nor "accident"; the question it answers does. The question ranks first: a
    // message's own words count twice what it is read with. Context reaches the two messages before, no further.
    const ids = await found(u, 'kids accident')
    expect(ids[0]).toBe(question!)
    expect(ids.slice(1).sort()).toEqual([reply!, aside!].sort())
    expect(ids).not.toContain(later!)
    // The first message of a thread has nothing before it: the words after it are not its context.
    expect(await found(u, 'road trip')).toEqual(messages.slice(0, 3))
  })

  test('a message is found by the name of who said it and by the month and year it was said', async () => {
    const u = await t.signUp()
    const { messages } = await startThread(u, [
      { speaker: 'Caroline', content: 'I went to a support group yesterday.', occurred_at: '2023-05-08T13:56:00Z' },
      { speaker: 'Melanie', content: 'I signed up for a pottery class.', occurred_at: '2023-07-03T13:36:00Z' },
    ])
    const second = await startThread(u, [
      { speaker: 'Melanie', content: 'We went camping last weekend.', occurred_at: '2024-07-17T14:31:00Z' },
    ])
    expect((await found(u, 'Caroline')).slice(0, 1)).toEqual([messages[0]!])
    expect((await found(u, 'what did Melanie do in July 2023')).slice(0, 1)).toEqual([messages[1]!])
    expect((await found(u, 'Melanie July 2024')).slice(0, 1)).toEqual(second.messages)
  })

  test('a message indexed one at a time (an edit) has exactly the postings the bulk insert gave it', async () => {
    const u = await t.signUp()
    const { messages } = await startThread(u, ROAD_TRIP)
    const reply = messages[2]!
    const inserted = await indexOf(reply)
    // Its own words twice, its speaker and time four times (twice the title weight), the two messages before once.
    expect(inserted.postings).toMatchObject({ scare: 2, reassur: 2, tough: 2, melani: 4, octob: 4, '2023': 4, kid: 1, accid: 1, photo: 1 })
    for (const path of [{ tags: ['trip'] }, { tags: [] }]) {
      const res = await t.json('PATCH', `/api/documents/${reply}`, { key: u.key, body: path })
      expect(res.status).toBe(200)
    }
    expect(await indexOf(reply)).toEqual(inserted)
  })
})

describe('what a reply reads follows the thread', () => {
  const PUPPY: Message[] = [
    { speaker: 'Jon', content: 'We adopted a puppy named Biscuit!', client_id: 'm1' },
    { speaker: 'Gina', content: 'That is wonderful news.', client_id: 'm2' },
    { speaker: 'Jon', content: 'Thanks, we are thrilled.', client_id: 'm3' },
    { speaker: 'Gina', content: 'What else is new with you?', client_id: 'm4' },
  ]

  test('sending a message again with other words re-indexes the replies that read it', async () => {
    const u = await t.signUp()
    const { id, messages } = await startThread(u, PUPPY)
    expect(await found(u, 'Biscuit')).toEqual(messages.slice(0, 3))
    await send(u, id, [{ ...PUPPY[0]!, content: 'We adopted a kitten named Pepper!' }])
    expect(await found(u, 'Biscuit')).toEqual([])
    expect(await found(u, 'Pepper')).toEqual(messages.slice(0, 3))
  })

  test('editing a message (PATCH) re-indexes the replies that read it, and queues their vectors again', async () => {
    const u = await t.signUp()
    const { messages } = await startThread(u, PUPPY)
    const res = await t.json('PATCH', `/api/documents/${messages[0]}`, { key: u.key, body: { body: 'We adopted a parrot named Kiwi!' } })
    expect(res.status).toBe(200)
    expect(await found(u, 'Biscuit')).toEqual([])
    expect(await found(u, 'parrot Kiwi')).toEqual(messages.slice(0, 3))
    const pending = await queryRows<{ id: string; index_status: string }>(
      t.deps.db,
      sql`select id, index_status from documents where id = any(${`{${messages.join(',')}}`}::uuid[]) order by position`,
    )
    expect(pending.map((d) => d.index_status)).toEqual(['pending', 'pending', 'pending', 'pending'])
    const queued = await queryRows<{ n: number }>(
      t.deps.db,
      sql`select count(*)::int as n from jobs where kind = 'embed-document' and status = 'queued' and payload->>'document_id' = ${messages[2]}`,
    )
    // One job from the thread's first batch, one from its predecessor's edit.
    expect(Number(queued[0]!.n)).toBe(2)
  })

  test('a message sent into a gap of the thread becomes context of the stored messages after it', async () => {
    const u = await t.signUp()
    const { id, messages } = await startThread(u, [
      { speaker: 'Jon', content: 'Morning!', position: 0 },
      { speaker: 'Jon', content: 'Sounds good to me.', position: 3 },
      { speaker: 'Gina', content: 'Great, see you there.', position: 4 },
      { speaker: 'Gina', content: 'Bring snacks.', position: 5 },
    ])
    const [gap] = await send(u, id, [{ speaker: 'Gina', content: 'Shall we meet at the lighthouse at noon?', position: 2 }])
    expect(await found(u, 'lighthouse')).toEqual([gap!, messages[1]!, messages[2]!])
  })

  const SECRET: Message[] = [
    { speaker: 'Jon', content: 'My bank PIN is the year of the moon landing.' },
    { speaker: 'Gina', content: 'You should not tell me that!' },
    { speaker: 'Jon', content: 'Fair point.' },
    { speaker: 'Gina', content: 'Anyway, how is the studio?' },
  ]

  test('forgetting a message takes its words out of the replies that read it', async () => {
    const u = await t.signUp()
    const { messages } = await startThread(u, SECRET)
    expect(await found(u, 'moon landing')).toEqual(messages.slice(0, 3))
    expect((await t.json('POST', `/api/documents/${messages[0]}/forget`, { key: u.key })).status).toBe(204)
    expect(await found(u, 'moon landing')).toEqual([])
  })

  test('deleting messages takes their words out of the replies that read them, one by one or in bulk', async () => {
    const u = await t.signUp()
    const { messages } = await startThread(u, SECRET)
    expect((await t.json('DELETE', `/api/documents/${messages[0]}`, { key: u.key })).status).toBe(204)
    expect(await found(u, 'moon landing')).toEqual([])
    expect(await found(u, 'tell')).toEqual(messages.slice(1, 4))
    const bulk = await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: [messages[1]] } })
    expect(bulk.body.deleted).toEqual([messages[1]])
    expect(await found(u, 'tell')).toEqual([])
  })
})

describe("what a message's vector is computed from", () => {
  let fake: FakeOpenAI
  let e: TestApp
  beforeAll(async () => {
    // An OpenAI-compatible endpoint (a model that embeds titles) that records every text it is asked to embed.
    fake = startFakeOpenAI({ apiKey: 'sk-test' })
    e = await createTestApp({
      env: { EMBEDDING_PROVIDER: 'openai', EMBEDDING_MODEL: 'fake-embed', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test' },
    })
  })
  afterAll(async () => {
    await e?.close()
    await fake?.stop()
  })
  const embedded = async () => {
    fake.requests.length = 0
    await drainJobs(e.deps)
    return fake.embeddingRequests().flatMap((r) => r.body.input as string[])
  }

  test('it is read as a transcript: its speaker and time, the two messages before it, then its words; a document as before', async () => {
    const u = await e.signUp()
    const res = await e.json('POST', '/api/threads', { key: u.key, body: { messages: ROAD_TRIP.slice(0, 3) } })
    expect(res.status).toBe(201)
    await e.json('POST', '/api/documents', { key: u.key, body: { title: 'Tide tables', body: 'Tides rise twice a day.' } })
    const [photos, kids, scared] = [
      'Caroline: The photos of your road trip are lovely.',
      'Caroline: How did the kids handle the accident?',
      "Melanie: They were scared, but we reassured them. They're tough.",
    ]
    expect((await embedded()).sort()).toEqual(
      [
        `Caroline · 20 October 2023, 18:55\n${photos}`,
        `Caroline · 20 October 2023, 18:56\n${photos}\n${kids}`,
        `Melanie · 20 October 2023, 18:57\n${photos}\n${kids}\n${scared}`,
        'Tide tables\nTides rise twice a day.',
      ].sort(),
    )
    // Editing the question embeds it and the reply that reads it again, with its new words.
    const question = res.body.results.results[1].document.id
    expect((await e.json('PATCH', `/api/documents/${question}`, { key: u.key, body: { body: 'Was anyone hurt?' } })).status).toBe(200)
    expect((await embedded()).sort()).toEqual([
      `Caroline · 20 October 2023, 18:56\n${photos}\nCaroline: Was anyone hurt?`,
      `Melanie · 20 October 2023, 18:57\n${photos}\nCaroline: Was anyone hurt?\n${scared}`,
    ])
  })

  test('an earlier message counts with its last 300 characters, cut at a word', async () => {
    const u = await e.signUp()
    const long = `${'I rambled on about the weather for a while. '.repeat(12)}Anyway, do you still paint sunsets?`
    const res = await e.json('POST', '/api/threads', {
      key: u.key,
      body: {
        messages: [
          { speaker: 'Jon', content: long, occurred_at: '2023-01-20T16:04:00Z' },
          { speaker: 'Gina', content: 'Every evening!', occurred_at: '2023-01-20T16:05:00Z' },
        ],
      },
    })
    expect(res.status).toBe(201)
    const reply = (await embedded()).find((text) => text.endsWith('Gina: Every evening!'))!
    const quoted = reply.split('\n')[1]!.replace('Jon: ', '')
    expect(quoted.length).toBeLessThanOrEqual(300)
    expect(long.endsWith(quoted)).toBe(true)
    // Cut where a word starts: the character before it is a space.
    expect(long[long.length - quoted.length - 1]).toBe(' ')
  })
})

describe('a document that is not a message', () => {
  // The index a document had before messages were read in context: its body's words once, its title and tags
  // twice (TITLE_WEIGHT), the keyword length their sum — written out here, so any change to it shows.
  const REFERENCE = {
    postings: { day: 1, harbour: 1, master: 1, publish: 1, rise: 1, sea: 2, tabl: 3, tide: 4, twice: 1 },
    keyword_len: 15,
  }
  const DOC = { title: 'Tide tables', tags: ['sea'], body: 'The harbour master publishes tide tables. Tides rise twice a day.' }

  test('is indexed exactly as before, by the bulk insert and by an edit', async () => {
    const u = await t.signUp()
    const res = await t.json('POST', '/api/documents', { key: u.key, body: DOC })
    expect(res.status).toBe(201)
    expect(await indexOf(res.body.id)).toEqual(REFERENCE)
    const other = await t.signUp()
    const bulk = await t.json('POST', '/api/documents/bulk', { key: other.key, body: { documents: [DOC] } })
    expect(bulk.body.results[0].status).toBe(201)
    expect(await indexOf(bulk.body.results[0].document.id)).toEqual(REFERENCE)
    for (const tags of [['other'], ['sea']]) {
      expect((await t.json('PATCH', `/api/documents/${res.body.id}`, { key: u.key, body: { tags } })).status).toBe(200)
    }
    expect(await indexOf(res.body.id)).toEqual(REFERENCE)
  })
})
