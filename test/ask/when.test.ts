// Asking about a conversation: its messages are quoted to the model as "<speaker>, <date>: <text>" with the messages
// said around them, so who said what and when is in front of it; the built-in answerer, asked *when*, answers with
// the date of the message that says it and no other; a document that is no message answers as before. Forgetting a
// message quoted beside another takes it out of the stored sources, and out of the answers that cited them.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FORGOTTEN_ANSWER } from '../../src/modules/documents/lifecycle.service'
import type { TestUser } from '../harness'
import { addDocuments, answerOf, readAll, savedOf, scriptedModel, serve, sourcesOf, textStep, withModel, type Served } from './ask.fixtures'

let s: Served
beforeAll(async () => {
  s = await serve({ DEFAULT_PLAN: 'pro' })
})
afterAll(() => s.stop())

const CONVERSATION = [
  { speaker: 'Caroline', content: 'Hey Mel! What have you been up to lately?', occurred_at: '2023-05-08T13:56:00Z' },
  { speaker: 'Melanie', content: 'I painted a sunrise last week, the colours were amazing.', occurred_at: '2023-05-08T13:57:00Z' },
  { speaker: 'Caroline', content: 'Wow, I would love to see that painting!', occurred_at: '2023-05-08T13:58:00Z' },
  { speaker: 'Melanie', content: 'We went camping at the lake with the kids.', occurred_at: '2023-07-12T09:00:00Z' },
]

/** A user with the conversation sent as a thread, and a document about painting that is no message. */
async function withConversation(): Promise<{ u: TestUser; ids: string[] }> {
  const u = await s.t.signUp()
  const res = await s.t.json('POST', '/api/threads', { key: u.key, body: { title: 'Caroline and Melanie', messages: CONVERSATION } })
  expect(res.status).toBe(201)
  await addDocuments(s.t, u, [{ title: 'Painting class', body: 'The painting class meets every Thursday evening in the hall.' }])
  return { u, ids: res.body.results.results.map((r: { document: { id: string } }) => r.document.id) }
}

const ask = async (u: TestUser, question: string) => readAll(await s.post('/api/ask', { question }, u.key))

describe('asked when, the built-in answerer gives the date of the message that says it', () => {
  test('"When did Melanie paint a sunrise?" is answered with the day Melanie said so, citing her message', async () => {
    const { u, ids } = await withConversation()
    const all = await ask(u, 'When did Melanie paint a sunrise?')
    const sources = sourcesOf(all)
    const cited = sources.find((src) => src.document_id === ids[1])!
    expect(answerOf(all)).toStartWith(
      `On 8 May 2023, Melanie said: I painted a sunrise last week, the colours were amazing [${cited.index}].`,
    )
    // The source says who and when, and carries the messages said around it.
    expect(cited).toMatchObject({
      excerpt: 'Melanie, 8 May 2023: I painted a sunrise last week, the colours were amazing.',
      speaker: 'Melanie',
      occurred_at: '2023-05-08T13:57:00.000Z',
      context: {
        before: [{ id: ids[0], speaker: 'Caroline', excerpt: CONVERSATION[0]!.content }],
        after: [
          { id: ids[2], speaker: 'Caroline' },
          { id: ids[3], speaker: 'Melanie', occurred_at: '2023-07-12T09:00:00.000Z' },
        ],
      },
    })
  })

  test('no date is made up: a document that is no message answers as it always did', async () => {
    const { u } = await withConversation()
    const answer = answerOf(await ask(u, 'When does the painting class meet?'))
    expect(answer).toMatch(/^The painting class meets every Thursday evening in the hall \[\d\]\./)
    expect(answer).not.toContain('On ')
  })

  test('asked something else, a message is quoted with who said it and when', async () => {
    const { u, ids } = await withConversation()
    const all = await ask(u, 'Where did Melanie go camping?')
    const index = sourcesOf(all).find((src) => src.document_id === ids[3])!.index
    expect(answerOf(all)).toContain(`Melanie, 12 July 2023: We went camping at the lake with the kids [${index}].`)
  })
})

test('a chat model is shown each message as "<speaker>, <date>: <text>", between the messages said around it', async () => {
  const { u } = await withConversation()
  const scripted = scriptedModel(textStep(['On 8 May 2023 [1].']))
  await withModel(s.t, scripted.model, async () => ask(u, 'When did Melanie paint a sunrise?'))
  const system = scripted.calls[0]!.prompt.find((m) => m.role === 'system')!.content as string
  expect(system).toContain('quoted as "<speaker>, <date>: <text>"')
  expect(system).toContain(
    [
      'Caroline, 8 May 2023: Hey Mel! What have you been up to lately?',
      'Melanie, 8 May 2023: I painted a sunrise last week, the colours were amazing.',
      'Caroline, 8 May 2023: Wow, I would love to see that painting!',
      'Melanie, 12 July 2023: We went camping at the lake with the kids.',
    ].join('\n'),
  )
})

test('forgetting a message quoted beside another takes it out of the stored source, and the answer that cited it', async () => {
  const { u, ids } = await withConversation()
  const all = await ask(u, 'When did Melanie paint a sunrise?')
  const conversation = savedOf(all).id
  // Caroline's reply was quoted beside Melanie's message; she forgets it.
  expect((await s.t.json('POST', `/api/documents/${ids[2]}/forget`, { key: u.key })).status).toBe(204)
  const stored = await s.t.json('GET', `/api/conversations/${conversation}`, { key: u.key })
  const answer = stored.body.messages[1]
  expect(answer.content).toBe(FORGOTTEN_ANSWER)
  expect(JSON.stringify(answer.sources)).not.toContain('would love to see that painting')
  const melanie = answer.sources.find((src: { document_id: string }) => src.document_id === ids[1])
  expect(melanie).toMatchObject({ speaker: 'Melanie', excerpt: expect.stringContaining('I painted a sunrise') })
  expect(melanie.context).toBeUndefined()
})

describe('every way in quotes a message with who said it, when, and its neighbours', () => {
  const SAID = 'On 8 May 2023, Melanie said: I painted a sunrise last week, the colours were amazing ['

  test('agent chat: the search tool hands the model the quoted lines, and the built-in answerer gives the date', async () => {
    const { u } = await withConversation()
    const all = await readAll(await s.post('/api/agent/chat', { message: 'When did Melanie paint a sunrise?' }, u.key))
    expect(answerOf(all)).toStartWith(SAID)
  })

  test('/v1/chat/completions (service-rag): the same answer', async () => {
    const { u } = await withConversation()
    const res = await s.t.json('POST', '/v1/chat/completions', {
      key: u.key,
      body: { model: 'service-rag', messages: [{ role: 'user', content: 'When did Melanie paint a sunrise?' }] },
    })
    expect(res.status).toBe(200)
    expect(res.body.choices[0].message.content).toStartWith(SAID)
  })

  test('the workspace context pack: a message item is quoted, with the messages said around it', async () => {
    const { u, ids } = await withConversation()
    const workspace = (await s.t.json('GET', '/api/workspaces', { key: u.key })).body.data[0].id
    const pack = await s.t.json('GET', `/api/workspaces/${workspace}/context`, { key: u.key })
    expect(pack.status).toBe(200)
    const item = pack.body.recent.find((i: { id: string }) => i.id === ids[1])
    expect(item).toMatchObject({
      kind: 'message',
      excerpt: 'Melanie, 8 May 2023: I painted a sunrise last week, the colours were amazing.',
      speaker: 'Melanie',
      occurred_at: '2023-05-08T13:57:00.000Z',
      context: { before: [{ id: ids[0] }], after: [{ id: ids[2] }, { id: ids[3] }] },
    })
    // A document that is no message is as it was.
    const painting = pack.body.recent.find((i: { title: string }) => i.title === 'Painting class')
    expect(Object.keys(painting).sort()).toEqual(['excerpt', 'id', 'kind', 'tags', 'title', 'updated_at'])
  })
})
