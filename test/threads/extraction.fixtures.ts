// Helpers of the extraction suites: a service whose CHAT_MODEL is a local fake of OpenAI's chat completions (scripted
// per test), a conversation sent as a client sends it, and the model's answers in the JSON the prompts ask for.
import { expect } from 'bun:test'
import { reply, startFakeOpenAIChat, type FakeOpenAIChat, type RecordedChatRequest } from '../fakes/openai-chat'
import { createTestApp, type TestApp, type TestUser } from '../harness'

export interface ChatApp {
  t: TestApp
  fake: FakeOpenAIChat
  close(): Promise<void>
}

/** A service with a chat model (the fake); `env` adds to it (EXTRACT_AFTER_MESSAGES is off unless given). */
export async function chatApp(env: Record<string, string> = {}): Promise<ChatApp> {
  const fake = startFakeOpenAIChat({ apiKey: 'sk-test' })
  const t = await createTestApp({
    env: {
      CHAT_MODEL: 'fake-chat',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      DEFAULT_PLAN: 'pro',
      EXTRACT_AFTER_MESSAGES: '0',
      ...env,
    },
  })
  return { t, fake, close: async () => (await t.close(), await fake.stop()) }
}

const may = (day: number, minute = 0) => `2023-05-${String(day).padStart(2, '0')}T13:${String(minute).padStart(2, '0')}:00Z`

/** Starts a thread with `lines` ([speaker, content]) said a minute apart on 8 May 2023; answers its id and message ids. */
export async function conversation(t: TestApp, u: TestUser, lines: [string, string][], title = 'Caroline and Melanie') {
  const res = await t.json('POST', '/api/threads', {
    key: u.key,
    body: { title, messages: lines.map(([speaker, content], i) => ({ speaker, content, occurred_at: may(8, i) })) },
  })
  expect(res.status).toBe(201)
  return {
    id: res.body.id as string,
    messages: res.body.results.results.map((r: { document: { id: string } }) => r.document.id) as string[],
  }
}

export async function appendLines(t: TestApp, u: TestUser, threadId: string, lines: [string, string][]) {
  const res = await t.json('POST', `/api/threads/${threadId}/messages`, {
    key: u.key,
    body: { messages: lines.map(([speaker, content], i) => ({ speaker, content, occurred_at: may(9, i) })) },
  })
  expect(res.status).toBe(200)
  return res.body.results.map((r: { document: { id: string } }) => r.document.id) as string[]
}

export const extract = (t: TestApp, u: TestUser, threadId: string) => t.json('POST', `/api/threads/${threadId}/extract`, { key: u.key })

/** The proposing call's answer: `{ learnings }` as the prompt asks. */
export const learnings = (...items: Record<string, unknown>[]) => reply.text(JSON.stringify({ learnings: items }))
/** The judging call's answer: `{ results }`. */
export const verdicts = (...items: Record<string, unknown>[]) => reply.text(JSON.stringify({ results: items }))

/** The text of a recorded request's messages of one role, in order. */
export const said = (request: RecordedChatRequest, role: string): string[] =>
  request.body.messages.filter((m: { role: string }) => m.role === role).map((m: { content: unknown }) => String(m.content))

/** The review queue: the user's pending memory drafts (summaries), newest first. */
export async function pendingDrafts(t: TestApp, u: TestUser) {
  const res = await t.json('GET', '/api/memories?status=pending_approval', { key: u.key })
  expect(res.status).toBe(200)
  return res.body.data as { id: string; kind: string; title: string; excerpt: string; status: string }[]
}
