// Conversations in a real browser: an agent sends a long conversation (160 messages, two speakers, over weeks) through
// POST /api/threads with its key, and a person reads it — opened from the list, paged as they scroll, opened at the
// message a search result or an Ask citation points at (scrolled to and highlighted, earlier pages put above it
// without moving it); messages read "<speaker> · <time>" in lists and results, as text only; a message archived,
// a conversation renamed, deleted and forgotten; drafts proposed from it show their evidence messages. axe, 375 px.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import type { Page } from 'playwright-core'
import { threads } from '../../db/schema'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let key = ''
let threadId = ''
const COUNT = 160
/** Where the story's remarkable messages sit: past the first page (100), so reaching them takes paging. */
const SUNRISE = 130
const HTML = 141
/** A story that runs axe over, and pictures, a page of 100–160 messages: more than the default 30 s on a loaded machine. */
const LONG = 90_000
const messages: { id: string; position: number; speaker: string; occurred_at: string; body: string }[] = []

/** Two speakers in sessions a week apart, a message a minute: what a LoCoMo conversation looks like. */
function conversation() {
  const start = Date.parse('2023-05-08T13:00:00Z')
  return Array.from({ length: COUNT }, (_, i) => {
    const speaker = i % 2 ? 'Melanie' : 'Caroline'
    const at = new Date(start + Math.floor(i / 40) * 7 * 86_400_000 + (i % 40) * 60_000).toISOString()
    const content =
      i === SUNRISE
        ? 'Last Tuesday I painted a sunrise over the lake, all orange and pink.'
        : i === HTML
          ? 'My code snippet: <img src=x onerror="alert(1)"><b>bold?</b> & <script>alert(2)</script>'
          : `${speaker} says something ordinary, number ${i}: the kids, the weekend, the garden.`
    return { speaker, content, occurred_at: at, client_id: `turn-${i}`, ...(i === HTML ? { tags: ['code'] } : {}) }
  })
}

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  key = (await asPerson('POST', '/api/keys', { label: 'agent' })).body.key
  const created = await asAgent('POST', '/api/threads', {
    title: 'Caroline and Melanie',
    external_id: 'locomo-1',
    messages: conversation(),
  })
  expect(created.status).toBe(201)
  expect(created.body.results.created).toBe(COUNT)
  threadId = created.body.id
  for (const r of created.body.results.results) messages.push(r.document)
}, 60_000) // a server, a browser and 160 messages to index: more than the default 5 s under load
afterAll(async () => {
  await h?.stop()
})

async function asPerson(method: string, path: string, data?: unknown) {
  const res = await s.page.request.fetch(path, { method, headers: { origin: h.server.url }, data })
  return { status: res.status(), body: res.status() === 204 ? null : await res.json() }
}
async function asAgent(method: string, path: string, data?: unknown) {
  const res = await fetch(h.server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: data ? JSON.stringify(data) : undefined,
  })
  return { status: res.status, body: res.status === 204 ? null : await res.json() }
}

async function check(name: string, session = s) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}

const item = (page: Page, position: number) => page.locator(`#message-${messages[position]!.id}`)
const shownCount = (page: Page) => page.locator('ol.messages > li').count()

/** The message's box against the window: wholly inside it, and highlighted as the one linked to (and focused). */
async function linkedAndVisible(page: Page, position: number) {
  return page.evaluate((id) => {
    const el = document.getElementById(`message-${id}`)
    if (!el) return 'absent'
    const box = el.getBoundingClientRect()
    return {
      inView: box.top >= 0 && box.bottom <= innerHeight,
      target: el.classList.contains('target') && el.getAttribute('aria-current') === 'true',
      focused: document.activeElement === el,
    }
  }, messages[position]!.id)
}

/** "<speaker> · <time>" as this browser's locale and zone write the time. */
const labelIn = (page: Page, position: number) =>
  page.evaluate(
    ({ speaker, at }) => `${speaker} · ${new Date(at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`,
    { speaker: messages[position]!.speaker, at: messages[position]!.occurred_at },
  )

describe.skipIf(!!missing)('conversations', () => {
  test(
    'the list shows each conversation with its size, time span and workspace, and one opens as a thread',
    async () => {
      const { page } = s
      await page.getByRole('link', { name: 'Conversations', exact: true }).click()
      await page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor()
      const row = page.locator('.threads li', { has: page.getByRole('link', { name: 'Caroline and Melanie' }) })
      const meta = await row.locator('.meta').innerText()
      expect(meta).toContain('160 messages')
      expect(meta).toContain('2023') // the span: first to last message
      expect(meta).toContain('Default')
      await check('conversations')

      await row.getByRole('link', { name: 'Caroline and Melanie' }).click()
      await page.getByRole('heading', { name: 'Caroline and Melanie', level: 1 }).waitFor()
      await settle(page)
      // From the start, one page at first; who said it and when on every message; the two speakers on two sides.
      expect(await shownCount(page)).toBe(100)
      const said = item(page, 0).locator('.said')
      expect(`${await said.locator('.speaker').innerText()} · ${await said.locator('time').innerText()}`).toBe(await labelIn(page, 0))
      expect(await item(page, 0).getAttribute('class')).toContain('side-a')
      expect(await item(page, 1).getAttribute('class')).toContain('side-b')
      expect(await item(page, 0).locator('.message-text').innerText()).toBe(messages[0]!.body)
      await check('conversation')
      // Scrolling to the end loads the rest.
      await page.evaluate(() => scrollTo(0, document.body.scrollHeight))
      await page.waitForFunction((n) => document.querySelectorAll('ol.messages > li').length === n, COUNT, { timeout: 10_000 })
      await settle(page)
      expect(await page.getByRole('button', { name: 'Load later messages' }).count()).toBe(0)
    },
    LONG,
  )

  test(
    'a search result that is a message reads "<speaker> · <time>" and opens the thread scrolled to it, highlighted',
    async () => {
      const { page } = s
      await s.go('/app/search?q=painted+sunrise+lake')
      const result = page.locator('.result').first()
      const label = await labelIn(page, SUNRISE)
      await result.getByRole('link', { name: label }).waitFor()
      expect(await result.locator('.snippet').innerText()).toContain('sunrise over the lake')
      await check('search-message')

      await result.getByRole('link', { name: label }).click()
      await page.waitForURL(new RegExp(`/app/conversations/${threadId}\\?message=${messages[SUNRISE]!.id}$`))
      await page.getByRole('heading', { name: 'Caroline and Melanie', level: 1 }).waitFor()
      await settle(page)
      expect(await linkedAndVisible(page, SUNRISE)).toEqual({ inView: true, target: true, focused: true })
      expect(await page.locator('li.message.target').count()).toBe(1)
      // Opened around it (twenty before it for context), not from the start: earlier pages come above it without moving it.
      expect(await item(page, 0).count()).toBe(0)
      const before = await item(page, SUNRISE).evaluate((el) => el.getBoundingClientRect().top)
      // Clicked where it is (a pointer click would first scroll it into view, and the place kept is the reader's).
      await page.getByRole('button', { name: 'Load earlier messages' }).dispatchEvent('click')
      // A page of a hundred, just above what was shown (from twenty before it).
      await item(page, SUNRISE - 20 - 100).waitFor({ state: 'attached' })
      await settle(page)
      const after = await item(page, SUNRISE).evaluate((el) => el.getBoundingClientRect().top)
      expect(Math.abs(after - before)).toBeLessThanOrEqual(1)
      expect(await linkedAndVisible(page, SUNRISE)).toEqual({ inView: true, target: true, focused: true })
      await check('conversation-at-message')
    },
    LONG,
  )

  test('positions with gaps (a client numbering its own way) still read in order, earlier pages found across the gaps', async () => {
    const { page } = s
    const sparse = await asAgent('POST', '/api/threads', {
      title: 'Numbered by the client',
      messages: Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}`, position: i * 1000 })),
    })
    expect(sparse.status).toBe(201)
    const ids = sparse.body.results.results.map((r: { document: { id: string } }) => r.document.id)
    const reads: string[] = []
    const count = (request: { url(): string }) => request.url().includes('/messages?') && reads.push(request.url())
    page.on('request', count)
    await s.go(`/app/conversations/${sparse.body.id}?message=${ids[25]}`)
    // The window opens at it; what lies above, a thousand positions apart, is found as the top is in view: in a few
    // widening reads, not one read per message.
    await page.waitForFunction(() => document.querySelectorAll('ol.messages > li').length === 30, undefined, { timeout: 10_000 })
    await settle(page)
    expect(await page.locator('ol.messages .message-text').allInnerTexts()).toEqual(Array.from({ length: 30 }, (_, i) => `turn ${i}`))
    const linked = await page.evaluate((id) => document.getElementById(`message-${id}`)?.classList.contains('target'), ids[25])
    expect(linked).toBe(true)
    expect(await page.getByRole('button', { name: 'Load earlier messages' }).count()).toBe(0)
    page.off('request', count)
    expect(reads.length).toBeLessThanOrEqual(8)
    expect(s.problems).toEqual([])
  })

  test('an Ask citation of a message opens the conversation at that message', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Ask', exact: true }).click()
    await page.getByLabel(/Your question/).fill('When did Caroline paint a sunrise over the lake?')
    await page.keyboard.press('Enter')
    await page.locator('.turn.answer.done').waitFor()
    const source = page.locator('.source-list li', { hasText: 'sunrise over the lake' }).first()
    await source.getByRole('link').click()
    await page.waitForURL(new RegExp(`/app/conversations/${threadId}\\?message=${messages[SUNRISE]!.id}$`))
    await settle(page)
    expect(await linkedAndVisible(page, SUNRISE)).toEqual({ inView: true, target: true, focused: true })
    expect(s.problems).toEqual([])
  })

  test('a message is text, never HTML: in the thread, the documents list and search', async () => {
    const { page } = s
    const raw = messages[HTML]!.body
    await s.go(`/app/documents/${messages[HTML]!.id}`) // any link to a message's page lands in its conversation
    await page.waitForURL(new RegExp(`/app/conversations/${threadId}\\?message=${messages[HTML]!.id}$`))
    await settle(page)
    expect(await item(page, HTML).locator('.message-text').innerText()).toBe(raw)
    expect(await page.locator('ol.messages img, ol.messages b, ol.messages script').count()).toBe(0)

    await s.go('/app/documents?kind=message&tag=code')
    const row = page.locator('table.doc-table tr', { has: page.getByRole('link', { name: await labelIn(page, HTML) }) })
    await row.waitFor()
    expect(await row.locator('.excerpt').innerText()).toContain('<img src=x onerror="alert(1)">')
    await s.go('/app/search?q=snippet+onerror')
    await page.locator('.result').first().waitFor()
    expect(await page.locator('.result').first().locator('.snippet').innerText()).toContain('<b>bold?</b>')
    expect(await page.locator('main img, main b, main script').count()).toBe(0)
    expect(s.problems).toEqual([]) // no alert ran
  })

  test('a message is archived from the thread: gone from it, and a link to it leads to where it can be restored', async () => {
    const { page } = s
    const id = messages[3]!.id
    await s.go(`/app/conversations/${threadId}`)
    await item(page, 3).getByRole('button', { name: 'Archive' }).click()
    await page.getByText(/Message archived/).waitFor()
    await item(page, 3).waitFor({ state: 'detached' })
    expect((await asPerson('GET', `/api/documents/${id}`)).body.status).toBe('archived')
    // Listed among the archived documents, it opens on its own page (the conversation no longer shows it).
    await s.go('/app/documents?kind=message&status=archived')
    await page.getByRole('link', { name: await labelIn(page, 3) }).click()
    await page.getByRole('button', { name: 'Restore' }).waitFor()
    // An older link to it (a search result, a citation) says so in the conversation, and leads back to that page.
    await s.go(`/app/conversations/${threadId}?message=${id}`)
    await page
      .getByRole('note')
      .getByText(/is archived/)
      .waitFor()
    await page.getByRole('link', { name: 'Open it to restore it' }).click()
    await page.getByRole('button', { name: 'Restore' }).click()
    await page.getByRole('button', { name: 'Archive' }).waitFor()
    await page.getByRole('link', { name: 'Read it in its conversation' }).click()
    await settle(page)
    expect(await linkedAndVisible(page, 3)).toEqual({ inView: true, target: true, focused: true })
    expect(s.problems).toEqual([])
  })

  test('drafts proposed from a conversation show the messages they rest on, each opening the thread at it', async () => {
    const { page } = s
    const evidence = [messages[SUNRISE]!.id, messages[SUNRISE + 1]!.id]
    const draft = await asAgent('POST', '/api/documents', {
      kind: 'fact',
      title: 'Caroline paints sunrises',
      body: 'Caroline painted a sunrise over the lake.',
      metadata: { evidence, thread_id: threadId, confidence: 0.8 },
    })
    expect([draft.status, draft.body.status]).toEqual([201, 'pending_approval'])
    await page.getByRole('link', { name: 'Review', exact: true }).click()
    const card = page.locator('article.draft', { has: page.getByRole('heading', { name: 'Caroline paints sunrises' }) })
    await card.locator('.evidence-messages li').nth(1).waitFor()
    expect(await card.locator('.evidence .compare-label').innerText()).toMatch(/Evidence: 2 messages/i)
    const first = card.locator('.evidence-messages li').first()
    expect(await first.getByRole('link').innerText()).toBe(await labelIn(page, SUNRISE))
    expect(await first.locator('.message-text').innerText()).toBe(messages[SUNRISE]!.body)
    expect(await card.locator('.evidence-messages li').nth(1).locator('.message-text').innerText()).toBe(messages[SUNRISE + 1]!.body)
    expect(await card.getByRole('link', { name: 'the conversation' }).getAttribute('href')).toBe(`/app/conversations/${threadId}`)
    await check('review-evidence')

    await card.locator('.evidence-messages li').nth(1).getByRole('link').click()
    await page.waitForURL(new RegExp(`message=${messages[SUNRISE + 1]!.id}$`))
    await settle(page)
    expect(await linkedAndVisible(page, SUNRISE + 1)).toEqual({ inView: true, target: true, focused: true })
  })

  test(
    'at 375 px a long conversation reads in one column, opened at the linked message',
    async () => {
      const narrow = await h.open({ width: 375, height: 760, colorScheme: 'dark' })
      await narrow.context.addCookies(await s.context.cookies())
      await narrow.go(`/app/conversations/${threadId}?message=${messages[SUNRISE]!.id}`)
      expect(await linkedAndVisible(narrow.page, SUNRISE)).toEqual({ inView: true, target: true, focused: true })
      expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
      await check('conversation-375-dark', narrow)
      await narrow.go('/app/conversations')
      expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
      await check('conversations-375-dark', narrow)
      await narrow.close()
    },
    LONG,
  )

  test('times read in the person’s own locale and time zone', async () => {
    const context = await h.browser.newContext({ locale: 'de-DE', timezoneId: 'Europe/Berlin', baseURL: h.server.url })
    await context.addCookies(await s.context.cookies())
    const page = await context.newPage()
    await page.goto(`/app/conversations/${threadId}`)
    await settle(page)
    // 13:00 UTC on 8 May 2023 is 15:00 in Berlin (summer time), written the German way.
    expect(await item(page, 0).locator('time').innerText()).toBe('08.05.2023, 15:00')
    await context.close()
  })

  test(
    'how the last proposing of learnings went is shown: drafts to review, or the failure and why',
    async () => {
      const { page } = s
      const record = (extraction: Record<string, unknown>) =>
        h.server.deps.db.update(threads).set({ extraction }).where(eq(threads.id, threadId))
      // What an extraction (on request, or the automatic one after new messages) stores on the thread.
      await record({ status: 'failed', at: '2023-06-01T10:00:00Z', error: 'the chat model answered malformed output twice' })
      await s.go(`/app/conversations/${threadId}`)
      expect(await page.locator('.learnings .extraction').innerText()).toMatch(
        /^The last proposing failed \(.+\): the chat model answered malformed output twice$/,
      )
      await record({ status: 'done', at: '2023-06-01T10:05:00Z', proposed: 3, skipped: 1 })
      await s.go(`/app/conversations/${threadId}`)
      expect(await page.locator('.learnings .extraction').innerText()).toMatch(/^Last proposed .+: 3 drafts, 1 set aside — review them$/)
      expect(await page.locator('.learnings').getByRole('link', { name: 'review them' }).getAttribute('href')).toBe('/app/review')
      await check('conversation-extraction')
    },
    LONG,
  )

  test('without a chat model, Propose learnings says so, naming CHAT_MODEL, and proposes nothing', async () => {
    const { page } = s
    await s.go(`/app/conversations/${threadId}`)
    await page.getByRole('button', { name: 'Propose learnings' }).click()
    const alert = page.locator('.learnings').getByRole('alert')
    await alert.waitFor()
    expect(await alert.innerText()).toContain('Error 503')
    expect(await alert.innerText()).toContain('CHAT_MODEL')
    expect(await page.locator('.learnings [role="status"]').count()).toBe(0)
    const drafts = await asPerson('GET', '/api/documents?status=pending_approval')
    expect(drafts.body.data.map((d: { title: string }) => d.title)).toEqual(['Caroline paints sunrises'])
    expect(s.problems).toEqual([])
  })

  test('a conversation is renamed, then deleted or forgotten only after confirming', async () => {
    const { page } = s
    const small = async (title: string) =>
      (
        await asAgent('POST', '/api/threads', {
          title,
          messages: [
            { role: 'user', content: `Remember this about ${title}.` },
            { role: 'assistant', content: 'Noted.' },
          ],
        })
      ).body
    const one = await small('Short chat')
    const two = await small('Another chat')
    await s.go(`/app/conversations/${one.id}`)
    await page.getByRole('button', { name: 'Rename' }).click()
    await page.getByLabel('Conversation title').fill('Short chat, renamed')
    await page.getByRole('button', { name: 'Save title' }).click()
    await page.getByRole('heading', { name: 'Short chat, renamed', level: 1 }).waitFor()
    expect((await asPerson('GET', `/api/threads/${one.id}`)).body.title).toBe('Short chat, renamed')

    await page.getByRole('button', { name: 'Forget…' }).click()
    const forget = page.getByRole('dialog', { name: 'Forget this conversation permanently?' })
    await forget.getByText('This is permanent: nothing can be recovered.').waitFor()
    await check('forget-conversation')
    await forget.getByRole('button', { name: 'Cancel' }).click()
    expect((await asPerson('GET', `/api/threads/${one.id}`)).status).toBe(200)
    await page.getByRole('button', { name: 'Forget…' }).click()
    await forget.getByRole('button', { name: 'Forget permanently' }).click()
    await page.waitForURL(/\/app\/conversations$/)
    expect((await asPerson('GET', `/api/threads/${one.id}`)).status).toBe(404)

    await page.getByRole('link', { name: 'Another chat' }).click()
    await page.getByRole('button', { name: 'Delete…' }).click()
    await page.getByRole('dialog', { name: 'Delete this conversation?' }).getByRole('button', { name: 'Delete conversation' }).click()
    await page.waitForURL(/\/app\/conversations$/)
    await settle(page)
    expect((await asPerson('GET', `/api/threads/${two.id}`)).status).toBe(404)
    expect(await page.getByRole('link', { name: 'Another chat' }).count()).toBe(0)
    await page.getByRole('link', { name: 'Caroline and Melanie' }).waitFor()
    expect(s.problems).toEqual([])
  })

  test('the first screen carries none of the Conversations code: it loads on first visit', async () => {
    const fresh = await h.open()
    await fresh.context.addCookies(await s.context.cookies())
    const scripts: string[] = []
    fresh.page.on('response', async (res) => {
      if (/\/app\/assets\/.*\.js$/.test(res.url())) scripts.push(await res.text())
    })
    await fresh.go('/app')
    await fresh.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()
    await settle(fresh.page)
    expect(scripts.length).toBeGreaterThan(0)
    expect(scripts.some((code) => code.includes('Load earlier messages'))).toBe(false)
    const before = scripts.length
    await fresh.page.getByRole('link', { name: 'Conversations', exact: true }).click()
    await fresh.page.getByRole('link', { name: 'Caroline and Melanie' }).waitFor()
    await fresh.page.getByRole('link', { name: 'Caroline and Melanie' }).click()
    await fresh.page.locator('ol.messages > li').first().waitFor()
    await settle(fresh.page)
    expect(scripts.length).toBeGreaterThan(before)
    expect(scripts.some((code) => code.includes('Load earlier messages'))).toBe(true)
    await fresh.close()
  })
})
