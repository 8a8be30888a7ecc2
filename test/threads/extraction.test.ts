// Learnings proposed from a conversation, on request: the chat model (a local fake of OpenAI's API, scripted per test)
// reads the thread's new messages and proposes learnings; each becomes a pending draft in the review queue citing the
// messages it rests on, superseding the memory it updates, never repeating one; a person's approval makes it a memory.
// A malformed answer is asked for again once, then recorded as a failed extraction, and nothing is written.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { approve } from '../memories/memories.fixtures'
import { reply } from '../fakes/openai-chat'
import { appendLines, type ChatApp, chatApp, conversation, extract, learnings, pendingDrafts, said, verdicts } from './extraction.fixtures'

let c: ChatApp
let t: TestApp
beforeAll(async () => {
  c = await chatApp()
  t = c.t
})
afterEach(() => {
  // A test that failed early must not leave its replies to the next one.
  c.fake.reset()
})
afterAll(() => c.close())

const thread = (u: TestUser, id: string) => t.json('GET', `/api/threads/${id}`, { key: u.key })
const documentOf = async (u: TestUser, id: string) => (await t.json('GET', `/api/documents/${id}`, { key: u.key })).body
const requestsSoFar = () => c.fake.chatRequests().length

const SUPPORT_GROUP: [string, string][] = [
  ['Caroline', 'I went to an LGBTQ support group yesterday and it was so powerful.'],
  ['Melanie', 'That sounds amazing! Are you going back?'],
  ['Caroline', 'Yes, every Tuesday evening from now on.'],
  ['Melanie', 'I finally painted that sunrise I told you about.'],
]

describe('proposing learnings from a conversation', () => {
  test('each learning is a pending draft citing its messages; approving one makes a memory', async () => {
    const u = await t.signUp()
    const { id, messages } = await conversation(t, u, SUPPORT_GROUP)
    c.fake.script(
      learnings(
        {
          kind: 'routine',
          title: 'Support group',
          body: 'Caroline goes to an LGBTQ support group every Tuesday evening.',
          evidence: ['m0', 'm2'],
        },
        // The model may cite a message by its id rather than its ref; an unknown ref is dropped.
        { kind: 'fact', title: 'Sunrise painting', body: 'Melanie painted a sunrise in May 2023.', evidence: [messages[3], 'm77'] },
        { kind: 'fact', title: 'Invented', body: 'Melanie has a brother.', evidence: ['m42'] },
        { kind: 'mood', title: 'Not a kind', body: 'Caroline was happy.', evidence: ['m0'] },
      ),
    )
    const res = await extract(t, u, id)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ thread_id: id, read: 4, remaining: false, extracted_through: 3 })
    expect(res.body.proposed.map((d: { kind: string; status: string; title: string }) => [d.kind, d.status, d.title])).toEqual([
      ['routine', 'pending_approval', 'Support group'],
      ['fact', 'pending_approval', 'Sunrise painting'],
    ])
    const [routine, painting] = res.body.proposed
    expect(routine.metadata).toEqual({ thread_id: id, evidence: [messages[0], messages[2]] })
    expect(painting.metadata).toEqual({ thread_id: id, evidence: [messages[3]] })
    expect(res.body.skipped).toEqual([
      { title: 'Invented', body: 'Melanie has a brother.', reason: 'no_evidence', detail: "it cites none of this thread's messages" },
      { title: 'Not a kind', body: null, reason: 'invalid', detail: expect.stringContaining('kind "mood" is not one of fact, preference') },
    ])

    // What the model read: each message with its ref, speaker and time.
    const [prompt] = said(c.fake.chatRequests().at(-1)!, 'user')
    expect(prompt).toContain('m2 · Caroline · 8 May 2023, 13:02: Yes, every Tuesday evening from now on.')

    // The person sees the outcome on the thread, and the drafts in the review queue.
    expect((await thread(u, id)).body).toMatchObject({ extracted_through: 3, extraction: { status: 'done', proposed: 2, skipped: 2 } })
    expect((await pendingDrafts(t, u)).map((d) => d.id).sort()).toEqual([routine.id, painting.id].sort())
    // Nothing is a memory until a person approves it.
    expect((await t.json('GET', '/api/memories', { key: u.key })).body.data).toEqual([])
    expect(await approve(t, u, routine.id)).toMatchObject({ status: 'active', kind: 'routine' })
    const memories = (await t.json('GET', '/api/memories', { key: u.key })).body.data
    expect(memories.map((m: { id: string }) => m.id)).toEqual([routine.id])

    // Nothing new to read: the model is not asked.
    const before = requestsSoFar()
    const again = await extract(t, u, id)
    expect(again.body).toMatchObject({ read: 0, extracted_through: 3, proposed: [], skipped: [] })
    expect(requestsSoFar()).toBe(before)
  })

  test('a later extraction reads only the new messages, with the last ones before them as context', async () => {
    const u = await t.signUp()
    const { id } = await conversation(t, u, SUPPORT_GROUP)
    c.fake.script(learnings())
    expect((await extract(t, u, id)).body).toMatchObject({ read: 4, extracted_through: 3, proposed: [] })
    await appendLines(t, u, id, [['Melanie', 'My kids and I go camping at the beach every summer.']])
    c.fake.script(
      learnings({ kind: 'routine', title: 'Camping', body: 'Melanie camps at the beach with her kids every summer.', evidence: ['m4'] }),
    )
    const res = await extract(t, u, id)
    expect(res.body).toMatchObject({ read: 1, extracted_through: 4 })
    expect(res.body.proposed).toHaveLength(1)
    const [prompt] = said(c.fake.chatRequests().at(-1)!, 'user')
    const [earlier, fresh] = prompt!.split('New messages:')
    expect(earlier).toContain('m3 · Melanie')
    expect(earlier).not.toContain('m4 ·')
    expect(fresh).toContain('m4 · Melanie · 9 May 2023, 13:00: My kids and I go camping')
  })

  test('one extraction reads at most 50 messages; the next call goes on from there', async () => {
    const u = await t.signUp()
    const lines = Array.from({ length: 60 }, (_, i): [string, string] => [i % 2 ? 'Bo' : 'Al', `line number ${i}`])
    const { id } = await conversation(t, u, lines)
    c.fake.script(learnings(), learnings())
    const first = await extract(t, u, id)
    expect(first.body).toMatchObject({ read: 50, remaining: true, extracted_through: 49 })
    const [prompt] = said(c.fake.chatRequests().at(-1)!, 'user')
    expect(prompt).toContain('m49 · Bo')
    expect(prompt).not.toContain('m50 ·')
    expect((await extract(t, u, id)).body).toMatchObject({ read: 10, remaining: false, extracted_through: 59 })
  })
})

describe('what is already known', () => {
  test('a learning equal to a memory or a draft is not proposed again, nor one said twice in a batch', async () => {
    const u = await t.signUp()
    const { id } = await conversation(t, u, SUPPORT_GROUP)
    const tea = { kind: 'preference', title: 'Tea', body: 'Melanie prefers tea to coffee.', evidence: ['m1'] }
    const tuesday = { kind: 'routine', title: 'Tuesdays', body: 'Caroline goes to a support group every Tuesday.', evidence: ['m2'] }
    c.fake.script(learnings(tea, tuesday))
    const first = await extract(t, u, id)
    const [teaDraft, tuesdayDraft] = first.body.proposed
    await approve(t, u, teaDraft.id)

    await appendLines(t, u, id, [['Melanie', 'Tea for me, always. And Caroline never misses her Tuesday group.']])
    c.fake.script(
      learnings(
        { ...tea, evidence: ['m4'] },
        // The same words, in other case and punctuation.
        { ...tuesday, body: 'caroline goes to a support group, every tuesday', evidence: ['m4'] },
        { kind: 'fact', title: 'Twice', body: 'Melanie drinks tea.', evidence: ['m4'] },
        { kind: 'fact', title: 'Twice again', body: 'Melanie drinks tea!', evidence: ['m4'] },
      ),
    )
    const before = requestsSoFar()
    const res = await extract(t, u, id)
    expect(res.status).toBe(200)
    expect(res.body.proposed.map((d: { title: string }) => d.title)).toEqual(['Twice'])
    expect(
      res.body.skipped.map((s: { reason: string; existing_id?: string; detail: string }) => [s.reason, s.existing_id, s.detail]),
    ).toEqual([
      ['duplicate', teaDraft.id, 'an equal memory exists'],
      ['duplicate', tuesdayDraft.id, 'an equal draft exists'],
      ['duplicate', undefined, 'it repeats another learning of this extraction'],
    ])
    // Nothing else to compare: the model is asked once.
    expect(requestsSoFar()).toBe(before + 1)
    expect((await pendingDrafts(t, u)).map((d) => d.title).sort()).toEqual(['Tuesdays', 'Twice'])
  })

  test('a learning that updates an active memory found by search supersedes it; one that restates a memory is skipped', async () => {
    const u = await t.signUp()
    // Memories a person wrote (signed in): active.
    const person = (body: Record<string, unknown>) => t.json('POST', '/api/documents', { cookie: u.cookie, body })
    const boston = (await person({ kind: 'fact', title: 'Home', body: 'Caroline lives in Boston.' })).body
    const dog = (await person({ kind: 'fact', title: 'Pet', body: 'Caroline owns a dog called Bo.' })).body
    expect([boston.status, dog.status]).toEqual(['active', 'active'])

    const { id, messages } = await conversation(t, u, [
      ['Caroline', 'Big news: I moved to Denver last week!'],
      ['Caroline', 'Bo the dog loves the new yard.'],
    ])
    c.fake.script(
      learnings(
        { kind: 'fact', title: 'Home', body: 'Caroline lives in Denver since May 2023.', evidence: ['m0'] },
        { kind: 'fact', title: 'Dog', body: 'Caroline has a dog named Bo.', evidence: ['m1'] },
      ),
      verdicts({ learning: 1, verdict: 'updates', memory: 'k1' }, { learning: 2, verdict: 'same', memory: 'k2' }),
    )
    const res = await extract(t, u, id)
    expect(res.status).toBe(200)
    const [denver] = res.body.proposed
    expect(res.body.proposed).toHaveLength(1)
    expect(denver.metadata).toEqual({ thread_id: id, evidence: [messages[0]], supersedes: boston.id })
    expect(res.body.skipped).toEqual([
      {
        title: 'Dog',
        body: 'Caroline has a dog named Bo.',
        reason: 'known',
        detail: 'it says what a memory already says',
        existing_id: dog.id,
      },
    ])
    // The judging call saw each learning beside the memories search found for it, each memory under one ref.
    const [judged] = said(c.fake.chatRequests().at(-1)!, 'user')
    expect(judged).toContain('Learning 1 (fact): Caroline lives in Denver since May 2023.')
    expect(judged).toContain('k1 (fact) Home: Caroline lives in Boston.')
    expect(judged).toContain('k2 (fact) Pet: Caroline owns a dog called Bo.')

    // Approval replaces the memory it updates.
    await approve(t, u, denver.id)
    expect((await documentOf(u, boston.id)).status).toBe('archived')
    expect((await documentOf(u, denver.id)).status).toBe('active')
  })
})

describe('a model that answers badly', () => {
  test('malformed twice: recorded as a failed extraction the person sees, nothing written, extracted_through unmoved', async () => {
    const u = await t.signUp()
    const { id } = await conversation(t, u, SUPPORT_GROUP)
    c.fake.script(reply.text('Sure! Caroline likes support groups.'), reply.text('{"learnings": [{"kind": "fact",'))
    const res = await extract(t, u, id)
    expect(res.status).toBe(502)
    expect(res.body).toEqual({ error: expect.stringContaining('malformed output twice'), code: 'provider_error' })
    // The second request told the model what was wrong with its first answer.
    const retry = c.fake.chatRequests().at(-1)!
    expect(said(retry, 'assistant')).toEqual(['Sure! Caroline likes support groups.'])
    expect(said(retry, 'user').at(-1)).toStartWith('That answer could not be read: it holds no JSON.')

    const after = (await thread(u, id)).body
    expect(after.extracted_through).toBe(-1)
    expect(after.extraction).toEqual({ status: 'failed', at: expect.any(String), error: res.body.error })
    expect(await pendingDrafts(t, u)).toEqual([])
  })

  test('malformed once, then good: the drafts are proposed', async () => {
    const u = await t.signUp()
    const { id } = await conversation(t, u, SUPPORT_GROUP)
    c.fake.script(
      reply.text('I think the learnings are: a routine.'),
      reply.text(
        '```json\n' +
          JSON.stringify({
            learnings: [{ kind: 'routine', title: 'Group', body: 'Caroline attends a support group weekly.', evidence: ['m2'] }],
          }) +
          '\n```',
      ),
    )
    const res = await extract(t, u, id)
    expect(res.status).toBe(200)
    expect(res.body.proposed.map((d: { title: string }) => d.title)).toEqual(['Group'])
    expect((await thread(u, id)).body).toMatchObject({ extracted_through: 3, extraction: { status: 'done', proposed: 1 } })
  })

  test('a batch that would pass a plan limit writes no draft at all, and the failure says why', async () => {
    const small = await chatApp({ DEFAULT_PLAN: 'free', PLAN_FREE_DOCUMENTS: '5' })
    try {
      const u = await small.t.signUp()
      const { id } = await conversation(small.t, u, SUPPORT_GROUP)
      small.fake.script(
        learnings(
          { kind: 'fact', title: 'One', body: 'Caroline goes to a support group.', evidence: ['m0'] },
          { kind: 'fact', title: 'Two', body: 'Melanie painted a sunrise.', evidence: ['m3'] },
        ),
      )
      const res = await extract(small.t, u, id)
      expect(res.status).toBe(402)
      expect(await pendingDrafts(small.t, u)).toEqual([])
      const after = (await small.t.json('GET', `/api/threads/${id}`, { key: u.key })).body
      expect(after).toMatchObject({ extracted_through: -1, extraction: { status: 'failed', error: res.body.error } })
    } finally {
      await small.close()
    }
  })
})

describe('refusals', () => {
  test('without a chat model the request answers 503 naming CHAT_MODEL, never an empty success', async () => {
    const plain = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
    try {
      const u = await plain.signUp()
      const { id } = await conversation(plain, u, SUPPORT_GROUP)
      const res = await extract(plain, u, id)
      expect(res.status).toBe(503)
      expect(res.body).toEqual({ error: expect.stringContaining('set CHAT_MODEL'), code: 'service_unavailable' })
      expect((await plain.json('GET', `/api/threads/${id}`, { key: u.key })).body).toMatchObject({
        extracted_through: -1,
        extraction: null,
      })
    } finally {
      await plain.close()
    }
  })

  test("extraction counts against the plan's ask rate", async () => {
    const slow = await chatApp({ PLAN_PRO_ASK_PER_MIN: '1' })
    try {
      const u = await slow.t.signUp()
      const { id } = await conversation(slow.t, u, SUPPORT_GROUP)
      slow.fake.script(learnings())
      expect((await extract(slow.t, u, id)).status).toBe(200)
      const again = await extract(slow.t, u, id)
      expect(again.status).toBe(429)
      expect(again.headers.get('retry-after')).not.toBeNull()
    } finally {
      await slow.close()
    }
  })

  test("another user's thread is not found, and the model is not asked", async () => {
    const [owner, other] = [await t.signUp(), await t.signUp()]
    const { id } = await conversation(t, owner, SUPPORT_GROUP)
    const before = requestsSoFar()
    const res = await extract(t, other, id)
    expect(res.status).toBe(404)
    expect(res.body).toEqual({ error: `thread ${id} not found`, code: 'not_found' })
    expect(requestsSoFar()).toBe(before)
  })
})
