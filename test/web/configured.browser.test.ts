// Saying what is configured and why, in a real browser over an account of ~150 documents on a server with no
// connector app: each connector not configured names the settings that enable it (Connect stays disabled, so no
// click ends in a 503); Ask's sources panel shows the sources the answer cites, with a toggle for all it was given;
// search's "why" lists exactly the words each result marks, in words, the ranks and scores in its tooltip. Light and
// dark, desktop and 375 px, axe, screenshots.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session

const TOPICS = ['billing', 'onboarding', 'incident', 'roadmap', 'hiring', 'security', 'design', 'support', 'release', 'budget']

beforeAll(async () => {
  if (missing) return
  // No *_CLIENT_ID / *_CLIENT_SECRET: no connector can be connected here.
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  const documents = [
    ...Array.from({ length: 146 }, (_, i) => {
      const topic = TOPICS[i % TOPICS.length]!
      return { kind: 'note', title: `${topic} notes ${i + 1}`, body: `Meeting notes on ${topic}, item ${i + 1}: owners and next steps.` }
    }),
    { kind: 'document', title: 'Backup policy', body: 'Backups run nightly at 02:00 UTC. Backups are kept for 30 days, then deleted.' },
    { kind: 'document', title: 'Backup restore drill', body: 'Every quarter a backup is restored to staging to prove the backups work.' },
    { kind: 'note', title: 'Retention of logs', body: 'Application logs have a retention of 14 days; audit logs are kept a year.' },
    { kind: 'note', title: 'Office notes', body: 'The coffee machine is on floor 3. Visitors sign in at the front desk.' },
  ]
  expect((await api('POST', '/api/documents/bulk', { documents })).status).toBe(200)
}, 120_000)
afterAll(async () => {
  await h?.stop()
})

async function api(method: string, path: string, data?: unknown) {
  const res = await s.page.request.fetch(path, { method, headers: { origin: h.server.url }, data })
  return { status: res.status(), body: res.status() === 204 ? null : await res.json() }
}

async function check(session: Session, name: string) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}

/** A second session of the same person at `width`, in `colorScheme`. */
async function another(width: number, colorScheme: 'light' | 'dark') {
  const other = await h.open({ width, height: 820, colorScheme })
  await other.context.addCookies(await s.context.cookies())
  return other
}

describe.skipIf(!!missing)('what is configured, and why', () => {
  test('a connector not configured names the settings that enable it, and Connect stays disabled', async () => {
    const { page } = s
    const creates: string[] = []
    page.on('request', (r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/connectors' && creates.push(r.url()))
    await page.getByRole('link', { name: 'Connectors', exact: true }).click()
    const notice = page.locator('#not-configured')
    await notice.waitFor()
    expect(await notice.innerText()).toMatch(
      /^Confluence is not configured on this server\. .*CONFLUENCE_CLIENT_ID and CONFLUENCE_CLIENT_SECRET/,
    )
    expect(await notice.innerText()).toContain(`${h.server.url}/api/connectors/oauth/callback`)
    const connect = page.getByRole('button', { name: 'Connect Confluence' })
    expect(await connect.isDisabled()).toBe(true)
    expect(await page.getByLabel('Provider').locator('option').allInnerTexts()).toEqual([
      'Confluence (not configured here)',
      'Google Drive (not configured here)',
      'Notion (not configured here)',
    ])
    await page.getByLabel('Provider').selectOption('google_drive')
    await page.getByText('GOOGLE_CLIENT_ID', { exact: true }).waitFor()
    expect(await notice.innerText()).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET')
    expect(await page.getByRole('button', { name: 'Connect Google Drive' }).isDisabled()).toBe(true)
    // Enter in the form submits nothing either (its submit button is disabled): no request that could only be a 503.
    await page.getByLabel(/^Label/).fill('Team drive')
    await page.getByLabel(/^Label/).press('Enter')
    await settle(page)
    expect(creates).toEqual([])
    await check(s, 'configured-connectors-desktop-light')

    const narrow = await another(375, 'dark')
    await narrow.go('/app/connectors')
    await narrow.page.locator('#not-configured').waitFor()
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await check(narrow, 'configured-connectors-375-dark')
    await narrow.close()
  })

  test('Ask shows the sources the answer cites; the others on request', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Ask', exact: true }).click()
    await page.getByLabel('Your question').fill('How long are backups kept?')
    await page.keyboard.press('Enter')
    const answer = page.locator('.turn.answer.done').last()
    await answer.waitFor()
    const text = await answer.innerText()
    expect(text).toContain('kept for 30 days')
    const given = (await api('GET', '/api/sources')).body.data[0]
    const cited = [...new Set([...text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))].sort((a, b) => a - b)
    expect(cited.length).toBeGreaterThan(0)
    const panel = page.locator('aside.sources')
    const shownNumbers = async () =>
      (await panel.locator('.source-list li').evaluateAll((items) => items.map((li) => Number(li.getAttribute('data-index'))))).sort(
        (a, b) => a - b,
      )
    expect(await shownNumbers()).toEqual(cited)
    const all = given.sources.length
    expect(all).toBeGreaterThan(cited.length) // the story needs an answer citing some of what it was given
    const toggle = panel.getByRole('button', { name: `Show all ${all} sources` })
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    await check(s, 'configured-ask-cited-desktop-light')
    await toggle.click()
    expect(await shownNumbers()).toEqual(Array.from({ length: all }, (_, i) => i + 1))
    await panel.getByRole('button', { name: `Show only the ${cited.length} cited` }).click()
    expect(await shownNumbers()).toEqual(cited)

    const dark = await another(1280, 'dark')
    await dark.go(new URL(page.url()).pathname)
    await dark.page.locator('aside.sources .source-list li').first().waitFor()
    await check(dark, 'configured-ask-cited-desktop-dark')
    await dark.close()
  })

  test('search says why each result is there, listing exactly the words it marks', async () => {
    const { page } = s
    await s.go('/app/search?q=backup%20retention%20kept')
    const results = page.locator('.result')
    await results.first().waitFor()
    const n = Math.min(await results.count(), 6)
    expect(n).toBeGreaterThan(1)
    for (let i = 0; i < n; i++) {
      const result = results.nth(i)
      const marked = new Set((await result.locator('mark').allInnerTexts()).map((m) => m.toLowerCase()))
      const why = await result.locator('.why').innerText()
      const listed = [...why.matchAll(/“([^”]+)”/g)].map((m) => m[1]!)
      // Every word listed is marked in the title or the snippet, and every marked word is listed.
      for (const word of listed) expect({ word, marked: [...marked].some((m) => m.startsWith(word)) }).toEqual({ word, marked: true })
      for (const m of marked) expect({ m, listed: listed.some((w) => m.startsWith(w)) }).toEqual({ m, listed: true })
      expect(await result.locator('.why').getAttribute('title')).toMatch(/score [\d.]+$/)
    }
    const first = await results.first().locator('.why').innerText()
    expect(first).toMatch(/^Why: Matched “/)
    expect(first).toMatch(/\(\d of 3 words\)/)
    await check(s, 'configured-search-desktop-light')

    const narrow = await another(375, 'dark')
    await narrow.go('/app/search?q=backup%20retention%20kept')
    await narrow.page.locator('.result .why').first().waitFor()
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await check(narrow, 'configured-search-375-dark')
    await narrow.close()
  })
})
