// "Propose learnings" in a real browser, the service's chat model a local fake of OpenAI's API scripted per story:
// a person asks for learnings from a conversation, sees what was proposed and what was set aside, reviews the drafts
// beside the messages they rest on; asking again with nothing new reads nothing; a model answering malformed output
// twice is shown as the failure it is, and stays on the conversation as its last extraction. axe on each screen.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { reply, startFakeOpenAIChat, type FakeOpenAIChat } from '../fakes/openai-chat'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let fake: FakeOpenAIChat
let h: Harness
let s: Session
let key = ''
let threadId = ''
let messageIds: string[] = []

const LINES: [string, string][] = [
  ['Caroline', 'I went to an LGBTQ support group yesterday and it was so powerful.'],
  ['Melanie', 'That sounds amazing! Are you going back?'],
  ['Caroline', 'Yes, every Tuesday evening from now on.'],
  ['Melanie', 'I finally painted that sunrise I told you about.'],
  ['Caroline', 'Send me a picture! Is it the one over the lake?'],
  ['Melanie', 'Yes, the lake at dawn. Orange and pink everywhere.'],
]

beforeAll(async () => {
  if (missing) return
  fake = startFakeOpenAIChat({ apiKey: 'sk-test' })
  h = await startHarness({ CHAT_MODEL: 'fake-chat', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test', EXTRACT_AFTER_MESSAGES: '0' })
  s = await h.open()
  await signUpInBrowser(s)
  key = (await api('POST', '/api/keys', { label: 'agent' }, 'person')).body.key
  const created = await api('POST', '/api/threads', {
    title: 'Caroline and Melanie',
    messages: LINES.map(([speaker, content], i) => ({ speaker, content, occurred_at: `2023-05-08T13:0${i}:00Z` })),
  })
  expect(created.status).toBe(201)
  threadId = created.body.id
  messageIds = created.body.results.results.map((r: { document: { id: string } }) => r.document.id)
}, 60_000) // a server, a browser and a fake model: more than the default 5 s under load
afterEach(() => {
  // A story that failed early must not leave its replies to the next one.
  fake?.reset()
})
afterAll(async () => {
  await h?.stop()
  await fake?.stop()
})

async function api(method: string, path: string, data?: unknown, as: 'agent' | 'person' = 'agent') {
  if (as === 'person') {
    const res = await s.page.request.fetch(path, { method, headers: { origin: h.server.url }, data })
    return { status: res.status(), body: await res.json() }
  }
  const res = await fetch(h.server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: data ? JSON.stringify(data) : undefined,
  })
  return { status: res.status, body: await res.json() }
}

async function check(name: string) {
  await settle(s.page)
  expect(await axeViolations(s.page)).toEqual([])
  expect(s.problems).toEqual([])
  await s.shot(name)
}

const learnings = (...items: Record<string, unknown>[]) => reply.text(JSON.stringify({ learnings: items }))
const pendingTitles = async () =>
  (await api('GET', '/api/documents?status=pending_approval', undefined, 'person')).body.data.map((d: { title: string }) => d.title).sort()

describe.skipIf(!!missing)('proposing learnings from a conversation', () => {
  test('the drafts proposed and those set aside are shown; the review queue shows each beside its messages', async () => {
    const { page } = s
    fake.script(
      learnings(
        {
          kind: 'routine',
          title: 'Support group',
          body: 'Caroline goes to a support group every Tuesday evening.',
          evidence: ['m0', 'm2'],
        },
        { kind: 'fact', title: 'Sunrise painting', body: 'Melanie painted a sunrise over the lake.', evidence: ['m3', 'm5'] },
        { kind: 'fact', title: 'Invented', body: 'Melanie has a brother.', evidence: ['m42'] },
      ),
    )
    await s.go(`/app/conversations/${threadId}`)
    await page.getByRole('button', { name: 'Propose learnings' }).click()
    const outcome = page.locator('.learnings [role="status"].outcome')
    await outcome.waitFor()
    expect(await outcome.locator('p').innerText()).toBe(
      'Read 6 new messages: proposed 2 drafts, set aside 1. Review them: nothing becomes a memory until you approve it.',
    )
    await outcome.getByText('Why one was set aside').click()
    expect(await outcome.locator('details li').innerText()).toBe("Invented: it cites none of this thread's messages")
    await check('conversation-proposed')
    expect(await pendingTitles()).toEqual(['Sunrise painting', 'Support group'])

    await outcome.getByRole('link', { name: 'Review them' }).click()
    // The queue lists both; the one picked shows in full beside the list.
    await page.locator('.queue-pick', { hasText: 'Support group' }).click()
    const card = page.locator('article.draft', { has: page.getByRole('heading', { name: 'Support group' }) })
    await card.locator('.evidence-messages li').nth(1).waitFor()
    expect(await card.locator('.evidence-messages .message-text').allInnerTexts()).toEqual([LINES[0]![1], LINES[2]![1]])
    await check('review-proposed')
    await card.locator('.evidence-messages li').nth(1).getByRole('link').click()
    await page.waitForURL(new RegExp(`/app/conversations/${threadId}\\?message=${messageIds[2]}$`))
    await settle(page)
    expect(await page.locator('li.message.target .message-text').innerText()).toBe(LINES[2]![1])
  })

  test('asked again with no new message, nothing is read and the model is not called', async () => {
    const { page } = s
    const calls = fake.chatRequests().length
    await s.go(`/app/conversations/${threadId}`)
    // How the last one went, until asked again.
    expect(await page.locator('.learnings .extraction').innerText()).toMatch(/^Last proposed .+: 2 drafts, 1 set aside — review them$/)
    await page.getByRole('button', { name: 'Propose learnings' }).click()
    await page.getByText('No new messages since learnings were last proposed: nothing to read.').waitFor()
    expect(fake.chatRequests().length).toBe(calls)
    expect(s.problems).toEqual([])
  })

  test('a model answering malformed output twice is shown as a failure, proposes nothing, and stays on the conversation', async () => {
    const { page } = s
    const more = await api('POST', `/api/threads/${threadId}/messages`, {
      messages: [{ speaker: 'Caroline', content: 'I am adopting a dog next month!', occurred_at: '2023-05-09T10:00:00Z' }],
    })
    expect(more.status).toBe(200)
    fake.script(reply.text('Sure! Caroline is adopting a dog.'), reply.text('{"learnings": [{"kind": "fact",'))
    await s.go(`/app/conversations/${threadId}`)
    await page.getByRole('button', { name: 'Propose learnings' }).click()
    const alert = page.locator('.learnings').getByRole('alert')
    await alert.waitFor()
    expect(await alert.innerText()).toContain('Error 502')
    expect(await alert.innerText()).toContain('malformed output twice')
    expect(await pendingTitles()).toEqual(['Sunrise painting', 'Support group'])
    await check('conversation-proposing-failed')
    // Coming back later, the failure is what the conversation says of its last extraction.
    await s.go(`/app/conversations/${threadId}`)
    expect(await page.locator('.learnings .extraction').innerText()).toMatch(/^The last proposing failed \(.+\): .*malformed output twice/)
  })
})
