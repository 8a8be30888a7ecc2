// Ask in a real browser with the built-in extractive answerer (offline): a streamed answer whose [n]
// citations open the sources panel, a follow-up in the same conversation, the conversation reopened from its
// address, renamed and deleted; the agent mode showing its tool call and result. axe-core and screenshots.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let conversationId = ''

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  for (const doc of [
    { title: 'Backup policy', body: 'Backups run nightly at 02:00 UTC. Backups are kept for 30 days and then deleted.' },
    { title: 'Office notes', body: 'The coffee machine is on floor 3. Visitors sign in at the front desk.' },
  ])
    expect((await api('POST', '/api/documents', { ...doc, source: 'api' })).status).toBe(201)
}, 60_000) // a server, a browser and the data a story starts from: more than the default 5 s under load
afterAll(async () => {
  await h?.stop()
})

async function api(method: string, path: string, data?: unknown) {
  const res = await s.page.request.fetch(path, { method, headers: { origin: h.server.url }, data })
  return { status: res.status(), body: res.status() === 204 ? null : await res.json() }
}

async function check(name: string) {
  await settle(s.page)
  expect(await axeViolations(s.page)).toEqual([])
  expect(s.problems).toEqual([])
  await s.shot(name)
}

const ask = async (text: string) => {
  await s.page.getByLabel(/Your question|Message to the agent/).fill(text)
  await s.page.keyboard.press('Enter')
}
const lastAnswer = () => s.page.locator('.turn.answer').last()

describe.skipIf(!!missing)('ask', () => {
  test('a question is answered with citations that open their source', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Ask', exact: true }).click()
    await page.getByRole('heading', { name: 'Ask', level: 1 }).waitFor()
    await check('ask-empty')
    await ask('How long are backups kept?')
    await page.locator('.turn.answer.done').waitFor()
    expect(await lastAnswer().innerText()).toContain('kept for 30 days')
    // The new conversation gets its own address, and is listed.
    await page.waitForURL(/\/app\/ask\/[0-9a-f-]{36}$/)
    conversationId = new URL(page.url()).pathname.split('/').pop()!
    await page
      .locator('.conversations')
      .getByRole('link', { name: /How long are backups kept/ })
      .waitFor()

    const citation = lastAnswer().getByRole('button', { name: 'Source 1: Backup policy' }).first()
    await citation.click()
    const source = page.locator('.source-list li[data-index="1"]')
    await page.waitForFunction(
      () => {
        const el = document.querySelector('.source-list li[data-index="1"]')
        return el !== null && el === document.activeElement && el.classList.contains('active')
      },
      undefined,
      { timeout: 10_000 },
    )
    expect(await source.getByRole('link', { name: 'Backup policy' }).getAttribute('href')).toMatch(/^\/app\/documents\//)
    expect(await source.innerText()).toContain('Backups are kept for 30 days')
    await check('ask')
  })

  test('a follow-up continues the same conversation, which reopens from its address', async () => {
    const { page } = s
    await ask('When do backups run?')
    await page.locator('.turn.answer.done').nth(1).waitFor()
    expect(await lastAnswer().innerText()).toContain('02:00')
    expect(new URL(page.url()).pathname).toBe(`/app/ask/${conversationId}`)
    const stored = await api('GET', `/api/conversations/${conversationId}`)
    expect(stored.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])

    await s.go('/app')
    await s.go(`/app/ask/${conversationId}`)
    await page.locator('.turn.question').nth(1).getByText('When do backups run?').waitFor()
    expect(await page.locator('.turn.answer').count()).toBe(2)
    // Stored answers keep their sources: a citation still opens them.
    await page.locator('.turn.answer').first().getByRole('button', { name: 'Source 1: Backup policy' }).first().click()
    await page.locator('.source-list li.active').getByText('Backup policy').waitFor()
  })

  test('the conversation is renamed', async () => {
    const { page } = s
    await page.getByRole('button', { name: 'Rename' }).click()
    await page.getByLabel('Conversation name').fill('Backups Q&A')
    await page.getByRole('button', { name: 'Save name' }).click()
    await page.getByRole('heading', { name: 'Backups Q&A', level: 1 }).waitFor()
    await page
      .locator('.conversations')
      .getByRole('link', { name: /Backups Q&A/ })
      .waitFor()
    expect((await api('GET', `/api/conversations/${conversationId}`)).body.name).toBe('Backups Q&A')
  })

  test('the agent mode shows its tool call and result, then the cited answer', async () => {
    const { page } = s
    await page.locator('.conversations').getByRole('link', { name: 'New conversation' }).click()
    await page.waitForURL(/\/app\/ask$/)
    await page.getByRole('radio', { name: 'Agent' }).check()
    await ask('Where is the coffee machine?')
    const answer = page.locator('.turn.answer.done')
    await answer.waitFor()
    const step = answer.locator('.tools .tool').first()
    expect(await step.locator('.tool-name').innerText()).toBe('search')
    expect(await step.innerText()).toMatch(/query: “Where is the coffee machine\?”.*→ results: \d/s)
    expect(await answer.innerText()).toContain('floor 3')
    await answer
      .getByRole('button', { name: /^Source \d: Office notes$/ })
      .first()
      .waitFor()
    await check('ask-agent')
  })

  test('a conversation is deleted after confirming', async () => {
    const { page } = s
    await page
      .locator('.conversations')
      .getByRole('link', { name: /Backups Q&A/ })
      .click()
    await page.getByRole('heading', { name: 'Backups Q&A', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Delete…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete this conversation?' })
    await dialog.getByRole('button', { name: 'Delete conversation' }).click()
    await page.waitForURL(/\/app\/ask$/)
    await page.getByText('Conversation deleted').waitFor()
    await page
      .locator('.conversations')
      .getByRole('link', { name: /Backups Q&A/ })
      .waitFor({ state: 'detached', timeout: 10_000 })
    expect((await api('GET', `/api/conversations/${conversationId}`)).status).toBe(404)
    expect(s.problems).toEqual([])
  })

  test('at 375 px the chat comes first and stays usable', async () => {
    const narrow = await h.open({ width: 375, height: 760, colorScheme: 'dark' })
    await narrow.context.addCookies(await s.context.cookies())
    await narrow.go('/app/ask')
    await narrow.page.getByLabel('Your question').fill('How long are backups kept?')
    await narrow.page.getByRole('button', { name: 'Ask', exact: true }).click()
    await narrow.page.locator('.turn.answer.done').waitFor()
    expect(await axeViolations(narrow.page)).toEqual([])
    await narrow.shot('ask-375-dark')
    expect(narrow.problems).toEqual([])
    await narrow.close()
  })
})
