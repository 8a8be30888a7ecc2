// A message found by search comes with the messages said around it in its conversation — who said them, when, and
// what — so a short reply ("Yes! It was so powerful.") reads as the answer it is; archived messages are skipped,
// and a document that is no message has no context.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { search } from './search.fixtures'

let t: TestApp
let u: TestUser
let messages: { id: string; speaker: string; occurred_at: string }[] = []

const LINES: [string, string][] = [
  ['Caroline', 'Hey Mel, how have you been?'],
  ['Melanie', 'Busy with the kids, but I went to a pottery class.'],
  ['Caroline', 'I went to a support group yesterday.'],
  ['Melanie', 'That sounds powerful! How did it go?'],
  ['Caroline', 'Yes! It was so moving, everyone shared their story.'],
  ['Melanie', 'I am glad you found them.'],
  ['Caroline', 'Me too, I will go again next week.'],
]

beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
  u = await t.signUp()
  const res = await t.json('POST', '/api/threads', {
    key: u.key,
    body: {
      title: 'Caroline and Melanie',
      messages: LINES.map(([speaker, content], i) => ({ speaker, content, occurred_at: `2023-05-08T13:${50 + i}:00Z` })),
    },
  })
  expect(res.status).toBe(201)
  messages = res.body.results.results.map((r: { document: { id: string; speaker: string; occurred_at: string } }) => r.document)
  // A message taken back: never shown beside another.
  expect((await t.json('POST', `/api/documents/${messages[5]!.id}/archive`, { key: u.key })).status).toBe(200)
  await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Support groups', body: 'A support group meets on Mondays.' } })
})
afterAll(() => t.close())

const neighbour = (i: number) => ({
  id: messages[i]!.id,
  speaker: LINES[i]![0],
  occurred_at: `2023-05-08T13:${50 + i}:00.000Z`,
  excerpt: LINES[i]![1],
})

describe('a message in search results', () => {
  test('comes with up to two messages said before it and after it, archived ones skipped', async () => {
    const found = await search(t, u, { q: 'so moving everyone shared', mode: 'keyword' })
    const [first] = found.results
    expect(first!.document).toMatchObject({
      id: messages[4]!.id,
      kind: 'message',
      speaker: 'Caroline',
      occurred_at: '2023-05-08T13:54:00.000Z',
    })
    expect(first!.context).toEqual({ before: [neighbour(2), neighbour(3)], after: [neighbour(6)] })
  })

  test('at the start of its conversation it has nothing before it; a document that is no message has no context', async () => {
    const found = await search(t, u, { q: 'support group', mode: 'keyword', limit: 10 })
    const byId = new Map(found.results.map((r) => [r.document.id, r]))
    expect(byId.get(messages[2]!.id)!.context).toEqual({ before: [neighbour(0), neighbour(1)], after: [neighbour(3), neighbour(4)] })
    const document = found.results.find((r) => r.document.kind === 'document')!
    expect('context' in document).toBe(false)
    const opening = await search(t, u, { q: 'hey mel', mode: 'keyword' })
    expect(opening.results[0]!.context).toEqual({ before: [], after: [neighbour(1), neighbour(2)] })
  })
})
