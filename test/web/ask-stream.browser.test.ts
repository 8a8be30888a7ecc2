// Ask and the agent against a chat model that writes slowly (a local fake of OpenAI's API, the service's own
// OpenAI-compatible path): the answer shows word by word while it streams, Stop aborts it (the service stops
// and saves nothing), a failure midway is shown as the stream's error, and the agent's tool steps appear live
// before its answer — its proposed learning then waits in the review queue.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { reply, startFakeOpenAIChat, type FakeOpenAIChat } from '../fakes/openai-chat'
import { axeViolations, chromiumMissing, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let fake: FakeOpenAIChat
let h: Harness
let s: Session

beforeAll(async () => {
  if (missing) return
  fake = startFakeOpenAIChat()
  h = await startHarness({ CHAT_MODEL: 'fake-chat', OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test' })
  s = await h.open()
  await signUpInBrowser(s)
  const res = await s.page.request.post('/api/documents', {
    headers: { origin: h.server.url },
    data: { title: 'Backup policy', body: 'Backups are kept for 30 days.', source: 'api' },
  })
  expect(res.status()).toBe(201)
}, 60_000) // a server, a browser and the data a story starts from: more than the default 5 s under load
afterAll(async () => {
  await h?.stop()
  await fake?.stop()
})

const conversations = async () => (await (await s.page.request.get('/api/conversations')).json()).data as { id: string; name: string }[]
const answer = () => s.page.locator('.turn.answer').last()
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i + 1}`).join(' ')

describe.skipIf(!!missing)('a streamed answer', () => {
  test('shows as it streams, and Stop aborts it: the service stops and saves nothing', async () => {
    const { page } = s
    fake.script(reply.text(`Backups are kept for 30 days [1]. ${words(60)}`, { pieceDelayMs: 60 }))
    await s.go('/app/ask')
    await page.getByLabel('Your question').fill('How long are backups kept?')
    await page.keyboard.press('Enter')
    // Rendered while streaming: the first words are there, the answer is not finished, Stop is offered.
    await answer()
      .getByText(/kept for 30 days/)
      .waitFor()
    await answer()
      .getByText(/word3\b/)
      .waitFor()
    expect(await answer().getAttribute('class')).toContain('streaming')
    expect(await answer().getAttribute('aria-busy')).toBe('true')
    await s.shot('ask-streaming')
    await page.getByRole('button', { name: 'Stop' }).click()
    await answer().getByText('Stopped: this answer was cut short and not saved.').waitFor()
    const kept = await answer().innerText()
    expect(kept).toContain('kept for 30 days')
    expect(kept).not.toContain('word60')
    await page.getByRole('button', { name: 'Ask', exact: true }).waitFor()
    // Long after the model would have finished, nothing was saved: the disconnect stopped the generation.
    await page.waitForTimeout(60 * 60 + 500)
    expect(await conversations()).toEqual([])
    expect(await answer().innerText()).not.toContain('word60')
    expect(s.problems).toEqual([])
  })

  test('a failure midway is shown as the stream said it', async () => {
    const { page } = s
    fake.script(reply.breakAfter('Backups are', 'error-event'), reply.breakAfter('Backups are', 'error-event'))
    await s.go('/app/ask')
    await page.getByLabel('Your question').fill('How long are backups kept?')
    await page.keyboard.press('Enter')
    const alert = answer().getByRole('alert')
    await alert.waitFor()
    expect(await alert.innerText()).toMatch(/^The answer failed: the answer could not be completed: /)
    expect(await axeViolations(page)).toEqual([])
    await s.shot('ask-error')
    fake.reset()
  })

  test("the agent's tool steps show live, before its answer; its learning waits for review", async () => {
    const { page } = s
    fake.script(
      reply.toolCall('search', { query: 'backup retention' }),
      reply.toolCall('save_learnings', {
        learnings: [{ kind: 'fact', title: 'Backups are kept 30 days', body: 'Backups are kept for 30 days, then deleted.' }],
      }),
      reply.text(`Backups are kept for 30 days [1]. I proposed this as a memory for your approval. ${words(30)}`, { pieceDelayMs: 40 }),
    )
    await s.go('/app/ask?mode=agent')
    await page.getByLabel('Message to the agent').fill('Remember how long backups are kept')
    await page.getByRole('button', { name: 'Send' }).click()
    const steps = answer().locator('.tools .tool')
    await steps.nth(1).locator('.tool-outcome', { hasText: 'drafted: 1' }).waitFor()
    // The steps are there while the answer is still being written.
    expect(await answer().getAttribute('class')).toContain('streaming')
    expect(await steps.nth(0).innerText()).toMatch(/^search query: “backup retention”.*→ results: 1 · titles: “Backup policy”/s)
    expect(await steps.nth(1).innerText()).toMatch(/^save_learnings learnings: “Backups are kept 30 days” → drafted: 1/)
    await page.locator('.turn.answer.done').waitFor()
    expect(await answer().innerText()).toContain('word30')
    await answer().getByRole('button', { name: 'Source 1: Backup policy' }).waitFor()
    await s.shot('ask-agent-live')
    const [conversation] = await conversations()

    await page.getByRole('link', { name: 'Review', exact: true }).click()
    const card = page.locator('article.draft', { hasText: 'Backups are kept 30 days' })
    await card.waitFor()
    expect(await card.locator('.meta').innerText()).toContain('from agent')
    expect(await card.getByRole('link', { name: 'the conversation' }).getAttribute('href')).toBe(`/app/ask/${conversation!.id}`)
    expect(s.problems).toEqual([])
  })
})
