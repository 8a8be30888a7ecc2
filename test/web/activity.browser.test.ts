// Activity, history and undo, in a real browser over an account of ~150 documents a key ingested and a dozen drafts
// it proposed: the Activity screen says who did what (the key by label and prefix, "You"), filters by action family
// and by who, pages with "Load more", and a key's row on the keys screen links to its activity; a document's page
// shows its versions, a word diff against the version before, restores one as a new version, and for a memory its
// supersede chain with "Take approval back"; approving in the review queue, rejecting, archiving and deleting each
// offer Undo in a toast, and a delete is sent only when the toast ends or the page is left. Light and dark, desktop
// and 375 px, axe, screenshots.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let key = ''
let keyId = ''
let keyPrefix = ''
const ids: Record<string, string> = {}

const TOPICS = ['billing', 'onboarding', 'incident', 'roadmap', 'hiring', 'security', 'design', 'support', 'release', 'budget']
const DRAFTS = [
  { kind: 'routine', title: 'Standup moved', body: 'Standup is at ten every weekday in room Blue.' },
  { kind: 'decision', title: 'Fridays deploys', body: 'No deploys on Fridays, ever.' },
  { kind: 'fact', title: 'Parking garage', body: 'Visitors park in the north garage, level 2.' },
  { kind: 'preference', title: 'Prefers tables', body: 'Summaries as a table, not prose.' },
  { kind: 'lesson', title: 'Cache warmup', body: 'Warm the cache before a release or the first hour is slow.' },
  { kind: 'fact', title: 'VPN endpoint', body: 'The VPN endpoint is vpn.example.com on port 443.' },
  { kind: 'routine', title: 'Invoice run', body: 'Invoices go out on the first working day of the month.' },
  { kind: 'decision', title: 'Postgres for analytics', body: 'Analytics moves to PostgreSQL with columnar storage.' },
  { kind: 'fact', title: 'Support hours', body: 'Support answers from 8:00 to 18:00 CET.' },
  { kind: 'lesson', title: 'Feature flags', body: 'Remove a feature flag within two weeks of full rollout.' },
  { kind: 'preference', title: 'Metric units', body: 'Use metric units in every report.' },
]

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  const created = (await asPerson('POST', '/api/keys', { label: 'agent' })).body
  key = created.key
  keyId = created.id
  keyPrefix = created.prefix
  const workspace = (await asPerson('GET', '/api/workspaces')).body.data[0].id
  const documents = Array.from({ length: 150 }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length]!
    return { kind: i % 3 ? 'note' : 'document', title: `${topic} notes ${i + 1}`, body: `Meeting notes on ${topic}, item ${i + 1}.` }
  })
  expect((await asAgent('POST', '/api/documents/bulk', { documents })).status).toBe(200)
  ids.coffee = (
    await asPerson('POST', '/api/documents', {
      kind: 'fact',
      title: 'Coffee machine',
      body: 'The coffee machine is on floor 3.',
      source: 'api',
    })
  ).body.id
  const batch = await asAgent('POST', '/api/memories/batch-draft', {
    workspace_id: workspace,
    learnings: [
      ...DRAFTS,
      { kind: 'fact', title: 'Coffee moved', body: 'The coffee machine moved to floor 4.', metadata: { supersedes: ids.coffee } },
    ],
  })
  expect(batch.status).toBe(201)
  for (const d of batch.body.data) ids[d.title] = d.id
  // A document the person wrote, then edited twice: three versions.
  ids.plan = (
    await asPerson('POST', '/api/documents', { title: 'Launch plan', body: 'We launch in May with three partners.', source: 'api' })
  ).body.id
  expect((await asPerson('PATCH', `/api/documents/${ids.plan}`, { body: 'We launch in June with four partners.' })).status).toBe(200)
  expect((await asPerson('PATCH', `/api/documents/${ids.plan}`, { title: 'Launch plan 2027' })).status).toBe(200)
}, 120_000)
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
  return { status: res.status, body: await res.json() }
}
const activity = async (query: string) =>
  (await asPerson('GET', `/api/activity?${query}`)).body.data as { action: string; object_id: string }[]

async function check(session: Session, name: string) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}
const rows = (session: Session) => session.page.locator('.activity-row')
const toast = (session: Session) => session.page.locator('.undo-toast')

describe.skipIf(!!missing)('activity, history and undo', () => {
  test('approving in the review queue offers Undo: the draft is back in the queue, and the activity says approval was taken back', async () => {
    const { page } = s
    await s.go('/app/review')
    await page.locator('article.draft').waitFor()
    const title = await page.locator('.queue-item.selected .queue-title').innerText()
    await page.locator('article.draft').getByRole('button', { name: 'Approve' }).click()
    await toast(s).getByText(`Approved: “${title}” is now a memory`).waitFor()
    expect(await page.locator('.queue-title').allInnerTexts()).not.toContain(title)
    // The next draft still takes the focus, not the toast.
    await page.waitForFunction(() => document.activeElement?.matches('article.draft'))
    await toast(s).getByRole('button', { name: 'Undo' }).click()
    await page.waitForFunction((t) => Array.from(document.querySelectorAll('.queue-title')).some((e) => e.textContent === t), title)
    expect(await toast(s).innerText()).toBe('')
    expect((await asPerson('GET', `/api/documents/${ids[title]}`)).body.status).toBe('pending_approval')
    expect((await activity(`object_id=${ids[title]}`)).map((e) => e.action)).toEqual(['memory.unapprove', 'memory.approve', 'memory.draft'])
  })

  test('rejecting offers Undo too: the draft comes back', async () => {
    const { page } = s
    const title = await page.locator('.queue-item.selected .queue-title').innerText()
    await page.locator('article.draft').getByRole('button', { name: 'Reject' }).click()
    await toast(s)
      .getByText(new RegExp(`Rejected: “${title}” is archived`))
      .waitFor()
    await toast(s).getByRole('button', { name: 'Undo' }).click()
    await page.waitForFunction((t) => Array.from(document.querySelectorAll('.queue-title')).some((e) => e.textContent === t), title)
    expect((await asPerson('GET', `/api/documents/${ids[title]}`)).body.status).toBe('pending_approval')
  })

  test('the Activity screen says who did what: the key by label and prefix, and you', async () => {
    const { page } = s
    await s.go('/app/activity')
    await rows(s).first().waitFor()
    // Newest first: the approval taken back and the rejection undone, by you, on the dashboard.
    const first = rows(s).first()
    expect(await first.locator('.actor').innerText()).toBe('You')
    expect(await first.locator('.surface').innerText()).toBe('dashboard')
    const texts = await rows(s).allInnerTexts()
    expect(texts.some((t) => t.includes('took back approval of memory'))).toBe(true)
    expect(texts.some((t) => t.includes('approved memory'))).toBe(true)
    // A title is a link to the document; the exact time is on hover.
    const link = rows(s).locator('.object a').first()
    expect(await link.getAttribute('href')).toMatch(/^\/app\/documents\/[0-9a-f-]{36}$/)
    expect(await first.locator('time').getAttribute('title')).toBeTruthy()
    expect(await rows(s).count()).toBe(50)
    await page.getByRole('button', { name: 'Load more' }).click()
    await page.waitForFunction(() => document.querySelectorAll('.activity-row').length === 100)
    // The key's ingest, named as the keys list names the key.
    await page.getByLabel('Who').selectOption('key')
    await page.waitForURL(/actor=key/)
    // The new first page replaces both pages shown before.
    await page.waitForFunction(() => document.querySelectorAll('.activity-row').length === 50)
    const who = await rows(s).locator('.actor').allInnerTexts()
    expect(who.length).toBe(50)
    expect(new Set(who)).toEqual(new Set([`key agent (${keyPrefix}…)`]))
    expect(await rows(s).first().locator('.surface').innerText()).toBe('REST API')
    expect(await rows(s).locator('.what').allInnerTexts()).toContain('proposed memory')
    // Memories only, by anyone.
    await page.getByLabel('What').selectOption('memory')
    await page.getByLabel('Who').selectOption('')
    await page.waitForURL((url) => url.search === '?action=memory')
    await page.waitForFunction(() => Array.from(document.querySelectorAll('.activity-row .actor')).some((e) => e.textContent === 'You'))
    const what = await rows(s).locator('.what').allInnerTexts()
    expect(what.length).toBeGreaterThan(12)
    expect(what.every((w) => w.includes('memory'))).toBe(true)
    await check(s, 'activity-desktop-light')
  })

  test("a key's Activity link on the keys screen shows that key's activity only", async () => {
    const { page } = s
    await s.go('/app/keys')
    await page.getByRole('link', { name: 'Activity of agent' }).click()
    await page.waitForURL((url) => url.pathname === '/app/activity' && url.searchParams.get('actor') === keyId)
    await settle(page)
    expect(await page.getByLabel('Who').inputValue()).toBe(keyId)
    expect(new Set(await rows(s).locator('.actor').allInnerTexts())).toEqual(new Set([`key agent (${keyPrefix}…)`]))
  })

  test("a document's history shows its versions and a word diff; restoring one makes a new version", async () => {
    const { page } = s
    await s.go(`/app/documents/${ids.plan}`)
    const history = page.locator('section.history')
    await history.locator('.versions li').nth(2).waitFor()
    expect(await history.locator('.versions .version').allInnerTexts()).toEqual(['Version 3 (current)', 'Version 2', 'Version 1'])
    expect(await history.locator('.versions li').allInnerTexts()).toEqual([
      expect.stringContaining('title'),
      expect.stringContaining('body'),
      expect.stringContaining('created'),
    ])
    expect(await history.locator('.versions li').first().innerText()).toContain('You')
    await history.getByRole('button', { name: 'Version 2' }).click()
    await history.locator('.version-diff del').first().waitFor()
    expect(await history.locator('.version-diff del').allTextContents()).toEqual(['removed', '[removed: May]', '[removed: three]'])
    expect(await history.locator('.version-diff ins').allTextContents()).toEqual(['added', '[added: June]', '[added: four]'])
    await check(s, 'history-desktop-light')
    await history.getByRole('button', { name: 'Restore this version' }).click()
    const dialog = page.getByRole('dialog', { name: 'Restore version 2?' })
    await dialog.getByRole('button', { name: 'Restore this version' }).click()
    await page.getByRole('heading', { name: 'Launch plan', level: 1, exact: true }).waitFor()
    await history.getByRole('button', { name: 'Version 4 (current)' }).waitFor()
    const now = (await asPerson('GET', `/api/documents/${ids.plan}`)).body
    expect([now.title, now.body]).toEqual(['Launch plan', 'We launch in June with four partners.'])
    expect((await activity(`object_id=${ids.plan}`))[0]!.action).toBe('document.version_restore')
  })

  test('delete on a document page: Undo keeps it; otherwise it is deleted when the toast ends, or when the page is left', async () => {
    const { page } = s
    const target = ids.plan!
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByText('“Launch plan” is deleted.').waitFor()
    await toast(s).getByText('Deleted “Launch plan”').waitFor()
    // Reachable by keyboard: the Undo button takes the focus like any other.
    await toast(s).getByRole('button', { name: 'Undo' }).focus()
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { name: 'Launch plan', level: 1 }).waitFor()
    expect((await asPerson('GET', `/api/documents/${target}`)).status).toBe(200)

    // Not undone: sent once the toast's time is up.
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await toast(s).getByText('Deleted “Launch plan”').waitFor()
    expect((await asPerson('GET', `/api/documents/${target}`)).status).toBe(200)
    await page.waitForFunction(() => !document.querySelector('.undo-toast-body'), undefined, { timeout: 20_000 })
    await settle(page)
    expect((await asPerson('GET', `/api/documents/${target}`)).status).toBe(404)

    // Left before the toast ended: the delete goes with the page (keepalive).
    const other = (await asPerson('POST', '/api/documents', { title: 'Scratch', body: 'Scratch notes.', source: 'api' })).body.id
    await s.go(`/app/documents/${other}`)
    await page.getByRole('button', { name: 'Delete', exact: true }).click()
    await toast(s).getByText('Deleted “Scratch”').waitFor()
    await page.goto('about:blank')
    let status = 200
    for (let i = 0; i < 50 && status !== 404; i++) {
      status = (await asPerson('GET', `/api/documents/${other}`)).status
      if (status !== 404) await Bun.sleep(100)
    }
    expect(status).toBe(404)
  })

  test("a memory's page shows its supersede chain; taking the approval back puts it back in the queue", async () => {
    const { page } = s
    expect((await asPerson('POST', `/api/documents/${ids['Coffee moved']}/approve`)).status).toBe(200)
    await s.go(`/app/documents/${ids['Coffee moved']}`)
    const chain = page.locator('.chain li')
    await chain.nth(1).waitFor()
    expect(await chain.nth(0).getByRole('link', { name: 'Coffee machine' }).getAttribute('href')).toBe(`/app/documents/${ids.coffee}`)
    expect(await chain.nth(1).innerText()).toContain('Coffee moved (this memory)')
    expect(await chain.nth(1).innerText()).toContain('replaced “Coffee machine”')
    expect(await chain.nth(1).innerText()).toContain('approved by You')
    await page.getByRole('button', { name: 'Take approval back' }).click()
    await page.getByRole('dialog', { name: 'Take the approval back?' }).getByRole('button', { name: 'Take approval back' }).click()
    await page.getByText(/Approval taken back/).waitFor()
    expect((await asPerson('GET', `/api/documents/${ids['Coffee moved']}`)).body.status).toBe('pending_approval')
    expect((await asPerson('GET', `/api/documents/${ids.coffee}`)).body.status).toBe('active')
    await page.getByRole('button', { name: 'Take approval back' }).waitFor({ state: 'detached' })
    await page.waitForFunction(() => document.querySelectorAll('.chain li')[1]?.textContent?.includes('waiting for approval'))
  })

  test('archive on a document page offers Undo', async () => {
    const { page } = s
    const id = (await asPerson('GET', '/api/documents?limit=1')).body.data[0].id
    await s.go(`/app/documents/${id}`)
    await page.getByRole('button', { name: 'Archive' }).click()
    await toast(s)
      .getByText(/^Archived/)
      .waitFor()
    await toast(s).getByRole('button', { name: 'Undo' }).click()
    await page.getByRole('button', { name: 'Archive' }).waitFor()
    expect((await asPerson('GET', `/api/documents/${id}`)).body.status).toBe('active')
  })

  for (const [width, colorScheme] of [
    [375, 'light'],
    [375, 'dark'],
    [1280, 'dark'],
  ] as const)
    test(`at ${width} px (${colorScheme}) the Activity screen and a history read well and nothing overflows`, async () => {
      const other = await h.open({ width, height: 800, colorScheme })
      await other.context.addCookies(await s.context.cookies())
      await other.go('/app/activity')
      await rows(other).first().waitFor()
      expect(await other.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
      await check(other, `activity-${width}-${colorScheme}`)
      await other.go(`/app/documents/${ids['Standup moved']}`)
      // A draft the key proposed: one version, shown whole as added.
      await other.page.getByRole('button', { name: 'Version 1' }).waitFor()
      await other.page.getByRole('button', { name: 'Version 1' }).click()
      await other.page.locator('.version-diff ins').first().waitFor()
      expect(await other.page.locator('.versions li').first().innerText()).toContain(`key agent (${keyPrefix}…)`)
      expect(await other.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width)
      await check(other, `history-${width}-${colorScheme}`)
      // The undo toast fits the screen and leaves room to scroll the page out from under it.
      const id = (await asPerson('GET', '/api/documents?limit=1')).body.data[0].id
      await other.go(`/app/documents/${id}`)
      await other.page.getByRole('button', { name: 'Archive' }).click()
      const shown = toast(other).locator('.undo-toast-body')
      await shown.waitFor()
      const box = (await shown.boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(0)
      expect(box.x + box.width).toBeLessThanOrEqual(width)
      await check(other, `toast-${width}-${colorScheme}`)
      await shown.getByRole('button', { name: 'Undo' }).click()
      await other.page.getByRole('button', { name: 'Archive' }).waitFor()
      await other.close()
    })
})
