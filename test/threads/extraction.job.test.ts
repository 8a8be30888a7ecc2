// Learnings proposed without being asked: once EXTRACT_AFTER_MESSAGES new messages wait in a thread, appending queues
// one extract-learnings job (never a second while one waits, never without a chat model), and the worker runs it as
// a request would. Two extractions of one thread at once: the one that finishes second writes nothing.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider'
import { and, eq } from 'drizzle-orm'
import { MockLanguageModelV4 } from 'ai/test'
import { jobs } from '../../db/schema'
import { drainJobs } from '../../src/jobs/worker'
import { reply } from '../fakes/openai-chat'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { deferred } from '../jobs/jobs.fixtures'
import { appendLines, type ChatApp, chatApp, conversation, extract, learnings, pendingDrafts } from './extraction.fixtures'

const EXTRACT = ['extract-learnings'] as const

let c: ChatApp
let t: TestApp
beforeAll(async () => {
  c = await chatApp({ EXTRACT_AFTER_MESSAGES: '3' })
  t = c.t
})
afterEach(() => c.fake.reset())
afterAll(() => c.close())

const extractJobs = (app: TestApp, u: TestUser) =>
  app.deps.db
    .select({ status: jobs.status, payload: jobs.payload, attempts: jobs.attempts })
    .from(jobs)
    .where(and(eq(jobs.user_id, u.id), eq(jobs.kind, 'extract-learnings')))
const thread = (u: TestUser, id: string) => t.json('GET', `/api/threads/${id}`, { key: u.key })

describe('after EXTRACT_AFTER_MESSAGES new messages', () => {
  test('appending queues one job; the worker proposes the drafts and moves extracted_through', async () => {
    const u = await t.signUp()
    const { id, messages } = await conversation(t, u, [
      ['Caroline', 'I adopted a cat named Pixel.'],
      ['Melanie', 'Congratulations!'],
    ])
    expect(await extractJobs(t, u)).toEqual([])
    messages.push(...(await appendLines(t, u, id, [['Caroline', 'Pixel sleeps on my keyboard every morning.']])))
    expect(await extractJobs(t, u)).toEqual([{ status: 'queued', payload: { thread_id: id }, attempts: 0 }])
    // One job waits already: another message queues no second one.
    await appendLines(t, u, id, [['Melanie', 'Ha, cats do that.']])
    expect(await extractJobs(t, u)).toHaveLength(1)

    c.fake.script(learnings({ kind: 'fact', title: 'Pixel', body: 'Caroline has a cat named Pixel.', evidence: ['m0', 'm2'] }))
    expect(await drainJobs(t.deps, 'extract-worker', EXTRACT)).toBe(1)
    expect(await extractJobs(t, u)).toEqual([{ status: 'succeeded', payload: { thread_id: id }, attempts: 1 }])
    const [draft] = await pendingDrafts(t, u)
    expect(draft).toMatchObject({ kind: 'fact', title: 'Pixel', status: 'pending_approval' })
    expect((await t.json('GET', `/api/documents/${draft!.id}`, { key: u.key })).body.metadata).toEqual({
      thread_id: id,
      evidence: [messages[0], messages[2]],
    })
    expect((await thread(u, id)).body).toMatchObject({ extracted_through: 3, extraction: { status: 'done', proposed: 1 } })
  })

  test('a batch larger than one extraction reads is worked through job after job', async () => {
    const u = await t.signUp()
    const lines = Array.from({ length: 55 }, (_, i): [string, string] => [i % 2 ? 'Bo' : 'Al', `line number ${i}`])
    const { id } = await conversation(t, u, lines)
    c.fake.script(learnings(), learnings())
    // The first job reads 50 messages; 5 still wait (at least 3), so it queues the next, which reads them.
    expect(await drainJobs(t.deps, 'extract-worker', EXTRACT)).toBe(2)
    expect((await extractJobs(t, u)).map((j) => j.status)).toEqual(['succeeded', 'succeeded'])
    expect((await thread(u, id)).body.extracted_through).toBe(54)
  })

  test('a malformed answer (twice) is recorded on the thread and the job is not tried again', async () => {
    const u = await t.signUp()
    const { id } = await conversation(t, u, [
      ['Al', 'one'],
      ['Bo', 'two'],
      ['Al', 'three'],
    ])
    c.fake.script(reply.text('no idea'), reply.text('still no idea'))
    await drainJobs(t.deps, 'extract-worker', EXTRACT)
    expect(await extractJobs(t, u)).toEqual([{ status: 'succeeded', payload: { thread_id: id }, attempts: 1 }])
    expect((await thread(u, id)).body).toMatchObject({
      extracted_through: -1,
      extraction: { status: 'failed', error: expect.stringContaining('malformed output twice') },
    })
  })

  test('without a chat model no job is ever queued', async () => {
    const plain = await createTestApp({ env: { DEFAULT_PLAN: 'pro', EXTRACT_AFTER_MESSAGES: '1' } })
    try {
      const u = await plain.signUp()
      await conversation(plain, u, [
        ['Al', 'one'],
        ['Bo', 'two'],
      ])
      expect(await extractJobs(plain, u)).toEqual([])
    } finally {
      await plain.close()
    }
  })
})

describe('two extractions of one thread at once', () => {
  test('the one that finishes second writes nothing and answers 409', async () => {
    const u = await t.signUp()
    const { id } = await conversation(t, u, [['Caroline', 'I run every Sunday morning.']])
    const answer = (body: string): LanguageModelV4GenerateResult => ({
      content: [{ type: 'text', text: JSON.stringify({ learnings: [{ kind: 'routine', title: body, body, evidence: ['m0'] }] }) }],
      finishReason: { unified: 'stop', raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
      warnings: [],
    })
    const gate = deferred()
    const asked = deferred()
    let calls = 0
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        if (++calls > 1) return answer('Caroline runs on Sundays.')
        asked.resolve()
        await gate.promise
        return answer('Caroline runs every Sunday morning.')
      },
    })
    const original = t.deps.chat
    t.deps.chat = { ...original, model }
    try {
      const slow = extract(t, u, id)
      await asked.promise
      const fast = await extract(t, u, id)
      expect(fast.status).toBe(200)
      gate.resolve()
      const late = await slow
      expect(late.status).toBe(409)
      expect(late.body.code).toBe('conflict')
    } finally {
      t.deps.chat = original
    }
    expect((await pendingDrafts(t, u)).map((d) => d.title)).toEqual(['Caroline runs on Sundays.'])
    expect((await thread(u, id)).body).toMatchObject({ extracted_through: 0, extraction: { status: 'done', proposed: 1 } })
  })
})
