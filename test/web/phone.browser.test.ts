// Phone and account in a real Chromium, on an account holding ~150 documents (some archived, drafts waiting, a
// conversation): at 375 px nothing scrolls sideways on API keys (Revoke in reach), Settings or Usage's chart; the menu
// lies over the screen and Escape closes it, focus back on its button; Home, Usage and the API agree on one document
// count, said for what it counts; Settings offers the password change and the sessions, one signed out from there;
// the dashboard has its favicon. Light and dark, 375 px and desktop; axe on each.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let cookie = ''
const STORED = 150 + 3 + 2 // seeded, drafts, the conversation's messages

async function call(method: string, path: string, body?: unknown, auth: Record<string, string> = { cookie, origin: h.server.url }) {
  const res = await fetch(h.server.url + path, {
    method,
    headers: { ...auth, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}
async function check(session: Session, name: string) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}
/** The page's own width: anything wider than the viewport scrolls the whole screen sideways. */
const pageWidth = (session: Session) => session.page.evaluate(() => document.scrollingElement!.scrollWidth)

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  cookie = (await s.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
  const documents = Array.from({ length: 150 }, (_, i) => ({
    title: `Field note ${i}: ${'a long title that runs on and on '.repeat(2)}`,
    body: `Seeded document number ${i} about herons and the river.`,
    tags: ['seeded', `batch-${i % 5}`],
  }))
  const bulk = await call('POST', '/api/documents/bulk', { documents })
  expect(bulk.status).toBe(200)
  const ids = (bulk.body.results as { document: { id: string } }[]).map((r) => r.document.id)
  for (const id of ids.slice(0, 2)) expect((await call('POST', `/api/documents/${id}/archive`)).status).toBe(200)
  const key = await call('POST', '/api/keys', { label: 'A key with a rather long label for a phone screen' })
  expect(key.status).toBe(201)
  const agent = { authorization: `Bearer ${key.body.key}` }
  const [workspace] = (await call('GET', '/api/workspaces')).body.data
  const drafts = await call(
    'POST',
    '/api/memories/batch-draft',
    { workspace_id: workspace.id, learnings: [1, 2, 3].map((n) => ({ kind: 'fact', title: `Fact ${n}`, body: `Heron fact ${n}.` })) },
    agent,
  )
  expect(drafts.status).toBe(201)
  const thread = await call(
    'POST',
    '/api/threads',
    {
      messages: [
        { speaker: 'Al', content: 'Herons nest in colonies.' },
        { speaker: 'Bo', content: 'In tall trees.' },
      ],
    },
    agent,
  )
  expect(thread.status).toBe(201)
  // Searches on several days' worth of history for the chart.
  for (const q of ['heron', 'river', 'colonies']) expect((await call('GET', `/api/search?q=${q}`)).status).toBe(200)
})
afterAll(async () => {
  await h?.stop()
})

describe.skipIf(!!missing)('phone and account', () => {
  test('Home, Usage and the API count the same documents, and say what they count', async () => {
    expect((await call('GET', '/api/usage')).body.documents.used).toBe(STORED)
    const stats = (await call('GET', '/api/stats')).body.documents
    expect(stats.stored).toBe(STORED)
    expect(stats.by_status).toEqual({ active: 150 - 2 + 2, pending_approval: 3, archived: 2 })

    await s.go('/app')
    const counted = `Documents: ${STORED} documents of 1,000 documents`
    await s.page.getByText(counted).waitFor()
    await s.page.getByText(/Counts every stored document: active, drafts waiting for review and archived/).waitFor()
    await check(s, 'phone-home-desktop')

    await s.go('/app/usage')
    await s.page.getByText(counted).waitFor()
    const totals = s.page.locator('.totals div', { has: s.page.getByText('Documents', { exact: true }) })
    expect(await totals.locator('dd').innerText()).toBe(`${STORED} (150 active, 3 drafts, 2 archived)`)
    await check(s, 'phone-usage-desktop')
  })

  for (const colorScheme of ['light', 'dark'] as const)
    test(`at 375 px (${colorScheme}) API keys, Settings and Usage fit, and Revoke is in reach`, async () => {
      const narrow = await h.open({ width: 375, height: 760, colorScheme })
      await narrow.context.addCookies(await s.context.cookies())
      const { page } = narrow

      await narrow.go('/app/keys')
      const revoke = page.getByRole('button', { name: /^Revoke A key with a rather long label/ })
      await revoke.waitFor()
      expect(await pageWidth(narrow)).toBeLessThanOrEqual(375)
      await revoke.scrollIntoViewIfNeeded()
      const box = (await revoke.boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(375)
      await check(narrow, `phone-keys-375-${colorScheme}`)
      await revoke.click() // clickable where it is: nothing lies over it
      await page
        .getByRole('dialog', { name: /^Revoke/ })
        .getByRole('button', { name: 'Cancel' })
        .click()

      await narrow.go('/app/settings')
      await page.getByRole('heading', { name: 'Password' }).waitFor()
      expect(await pageWidth(narrow)).toBeLessThanOrEqual(375)
      await check(narrow, `phone-settings-375-${colorScheme}`)

      await narrow.go('/app/usage')
      await page.getByRole('img', { name: /./ }).first().waitFor()
      expect(await pageWidth(narrow)).toBeLessThanOrEqual(375)
      await check(narrow, `phone-usage-375-${colorScheme}`)
      await narrow.close()
    })

  test('at 375 px the menu lies over the screen, and Escape closes it with focus back on its button', async () => {
    const narrow = await h.open({ width: 375, height: 760, colorScheme: 'dark' })
    await narrow.context.addCookies(await s.context.cookies())
    const { page } = narrow
    await narrow.go('/app/usage')
    const heading = page.getByRole('heading', { name: 'Usage', level: 1 })
    const before = (await heading.boundingBox())!.y
    const menu = page.getByRole('button', { name: 'Menu' })
    await menu.click()
    const nav = page.getByRole('navigation', { name: 'Screens' })
    expect(await nav.isVisible()).toBe(true)
    expect(await menu.getAttribute('aria-expanded')).toBe('true')
    // Over the content, not pushing it down.
    expect((await heading.boundingBox())!.y).toBe(before)
    const navBox = (await nav.boundingBox())!
    expect(navBox.x + navBox.width).toBeLessThanOrEqual(375)
    expect(await pageWidth(narrow)).toBeLessThanOrEqual(375)
    await check(narrow, 'phone-menu-375-dark')

    // Focus moves into the menu; Escape closes it from there and hands focus back to the button.
    expect(await page.evaluate(() => !!document.activeElement?.closest('nav#nav'))).toBe(true)
    await page.keyboard.press('Escape')
    expect(await nav.isVisible()).toBe(false)
    expect(await menu.getAttribute('aria-expanded')).toBe('false')
    expect(await page.evaluate(() => document.activeElement?.classList.contains('menu-toggle'))).toBe(true)

    // A click outside closes it too.
    await menu.click()
    await heading.click({ force: true, position: { x: 200, y: 5 } })
    expect(await nav.isVisible()).toBe(false)
    await narrow.close()
  })

  test('Settings offers the password change and the signed-in sessions; one is signed out from there at 375 px', async () => {
    // Another browser signed in to the account.
    const other = await h.open()
    await other.go('/app/sign-in')
    const email = (await call('GET', '/api/auth/session')).body.user.email
    await other.page.getByLabel('Email').fill(email)
    await other.page.getByLabel('Password').fill('correct horse battery')
    await other.page.getByRole('button', { name: 'Sign in' }).click()
    await other.page.getByRole('heading', { name: 'Home', level: 1 }).waitFor()

    const narrow = await h.open({ width: 375, height: 760 })
    await narrow.context.addCookies(await s.context.cookies())
    const { page } = narrow
    await narrow.go('/app')
    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()
    // The page says where sign-in and security are, and the link takes you there.
    await page.getByRole('link', { name: 'Password and sessions' }).click()
    await page.getByRole('form', { name: 'Password' }).getByLabel('Current password').waitFor()
    const sessions = page.getByRole('region', { name: 'Signed-in sessions' })
    await sessions.getByText('this session').waitFor()
    const signOut = sessions.getByRole('button', { name: /^Sign out .*signed in on/ })
    expect(await signOut.count()).toBe(1)
    await signOut.click()
    await page.getByText(/^Signed out /).waitFor()
    expect(await sessions.getByRole('button', { name: /^Sign out .*signed in on/ }).count()).toBe(0)
    expect(await pageWidth(narrow)).toBeLessThanOrEqual(375)
    await check(narrow, 'phone-settings-sessions-375')
    await narrow.close()
    await other.close()
  })

  test('the dashboard links its SVG favicon, served by the service', async () => {
    await s.go('/app')
    const href = await s.page.locator('link[rel="icon"]').getAttribute('href')
    expect(href).toBe('/favicon.svg')
    expect(await s.page.locator('link[rel="icon"]').getAttribute('type')).toBe('image/svg+xml')
    const res = await fetch(h.server.url + href)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toStartWith('image/svg+xml')
    expect(await res.text()).toStartWith('<svg')
  })
})
