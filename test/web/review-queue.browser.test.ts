// The review queue built for speed, in a real browser over an account of ~150 documents, a few memories and a dozen
// drafts an agent proposed: the compact list beside the selected draft (list then detail at 375 px), the count waiting
// beside Review in the navigation, a supersede shown as a word diff, "merge into" a similar memory (approved as its
// update, recorded as superseding it) and "reject as duplicate" (recorded on the draft), the next draft selected and
// focused after each verdict, the keys still working. Light and dark, desktop and 375 px, axe, screenshots.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let key = ''
const ids: Record<string, string> = {}

const TOPICS = ['billing', 'onboarding', 'incident', 'roadmap', 'hiring', 'security', 'design', 'support', 'release', 'budget']
const DRAFTS = [
  {
    kind: 'routine',
    title: 'Standup moved',
    body: 'Standup is at ten every weekday in room Blue.',
    metadata: { topic: 'team', confidence: 0.85 },
  },
  { kind: 'decision', title: 'Fridays deploys', body: 'No deploys on Fridays, ever.', metadata: { confidence: 0.6 } },
  { kind: 'fact', title: 'Parking garage', body: 'Visitors park in the north garage, level 2.' },
  {
    kind: 'preference',
    title: 'Prefers tables',
    body: 'Summaries as a **table**, not prose.',
    metadata: { topic: 'style', confidence: 0.9 },
  },
  { kind: 'lesson', title: 'Cache warmup', body: 'Warm the cache before a release or the first hour is slow.' },
  { kind: 'fact', title: 'VPN endpoint', body: 'The VPN endpoint is vpn.example.com on port 443.' },
  { kind: 'routine', title: 'Invoice run', body: 'Invoices go out on the first working day of the month.' },
  { kind: 'decision', title: 'Postgres for analytics', body: 'Analytics moves to PostgreSQL with columnar storage.' },
  { kind: 'fact', title: 'Support hours', body: 'Support answers from 8:00 to 18:00 CET.' },
  {
    kind: 'lesson',
    title: 'Feature flags',
    body: 'Remove a feature flag within two weeks of full rollout.',
    metadata: { confidence: 0.3 },
  },
  { kind: 'preference', title: 'Metric units', body: 'Use metric units in every report.' },
]

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  key = (await asPerson('POST', '/api/keys', { label: 'agent' })).body.key
  const workspace = (await asPerson('GET', '/api/workspaces')).body.data[0].id
  // ~150 documents, as an account in use has.
  const documents = Array.from({ length: 150 }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length]!
    return {
      kind: i % 3 ? 'note' : 'document',
      title: `${topic} notes ${i + 1}`,
      body: `Meeting notes on ${topic}, item ${i + 1}: owners and next steps.`,
    }
  })
  const bulk = await asAgent('POST', '/api/documents/bulk', { documents })
  expect(bulk.status).toBe(200)
  // Memories a person saved: one a draft updates, one a draft repeats, one a draft supersedes by its metadata.
  for (const [name, memory] of Object.entries({
    standup: { kind: 'routine', title: 'Standup time', body: 'Standup is at nine every weekday in room Blue.' },
    fridays: { kind: 'decision', title: 'Deploy freeze', body: 'No deploys on Fridays.' },
    coffee: { kind: 'fact', title: 'Coffee machine', body: 'The coffee machine is on floor 3.' },
  }))
    ids[name] = (await asPerson('POST', '/api/documents', { ...memory, source: 'api' })).body.id
  const batch = await asAgent('POST', '/api/memories/batch-draft', {
    workspace_id: workspace,
    learnings: [
      ...DRAFTS,
      {
        kind: 'fact',
        title: 'Coffee machine',
        body: 'The coffee machine moved to floor 4, by the kitchen.',
        metadata: { supersedes: ids.coffee },
      },
    ],
  })
  expect(batch.status).toBe(201)
  for (const d of batch.body.data) ids[d.title] = d.id
}, 120_000)
afterAll(async () => {
  await h?.stop()
})

async function asPerson(method: string, path: string, data?: unknown) {
  const res = await s.page.request.fetch(path, { method, headers: { origin: h.server.url }, data })
  return { status: res.status(), body: await res.json() }
}
async function asAgent(method: string, path: string, data?: unknown) {
  const res = await fetch(h.server.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: data ? JSON.stringify(data) : undefined,
  })
  return { status: res.status, body: await res.json() }
}
const doc = async (id: string) => (await asPerson('GET', `/api/documents/${id}`)).body

async function check(session: Session, name: string) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}

const detail = (session: Session, title: string) =>
  session.page.locator('article.draft', { has: session.page.getByRole('heading', { name: title, level: 2 }) })
const titles = () => s.page.locator('.queue-title').allInnerTexts()
const selected = () => s.page.locator('.queue-item.selected .queue-title').innerText()
/** The navigation's count of drafts waiting, once it says `n`. */
async function badgeSays(session: Session, n: number) {
  await session.page.waitForFunction((n) => document.querySelector('nav#nav .nav-count')?.textContent === String(n), n, { timeout: 10_000 })
  expect(await session.page.locator('#drafts-waiting').textContent()).toBe(`${n} drafts waiting`)
}
/** After a verdict: the draft that took the removed one's place is selected, and its detail has the focus. */
async function nextIsFocused(expected: string) {
  await s.page.waitForFunction(
    (title) => document.activeElement?.matches('article.draft') && document.activeElement.querySelector('h2')?.textContent === title,
    expected,
    { timeout: 10_000 },
  )
  expect(await selected()).toBe(expected)
}

describe.skipIf(!!missing)('the review queue, built for speed', () => {
  test('a compact list beside the selected draft, and the count waiting beside Review in the navigation', async () => {
    const { page } = s
    await s.go('/app')
    await badgeSays(s, 12)
    // The count is the link's description: its name stays "Review".
    await page.getByRole('link', { name: 'Review', exact: true }).click()
    await page.locator('article.draft').waitFor()
    expect(await page.locator('.queue-item').count()).toBe(12)
    expect((await titles()).sort()).toEqual([...DRAFTS.map((d) => d.title), 'Coffee machine'].sort())
    // One detail at a time, beside the list (two columns on a desktop).
    expect(await page.locator('article.draft').count()).toBe(1)
    const list = (await page.locator('.queue-list').boundingBox())!
    const card = (await page.locator('.queue-detail').boundingBox())!
    expect(list.x + list.width).toBeLessThanOrEqual(card.x)
    expect(Math.abs(list.y - card.y)).toBeLessThan(2)
    await check(s, 'review-queue-desktop-light')
  })

  test('a draft superseding a memory by its metadata shows what changes, word by word', async () => {
    const { page } = s
    await page.locator('.queue-pick', { hasText: 'Coffee machine' }).click()
    const card = detail(s, 'Coffee machine')
    await card.locator('.diff-body del').first().waitFor()
    expect(await card.locator('.diff-body del').allTextContents()).toEqual(['[removed: is on]', '[removed: 3.]'])
    expect(await card.locator('.diff-body ins').allTextContents()).toEqual(['[added: moved to]', '[added: 4, by the kitchen.]'])
    expect(await card.locator('.diff-body').innerText()).toContain('The coffee machine')
    expect(await card.locator('.compare').getByRole('link', { name: 'Coffee machine' }).getAttribute('href')).toBe(
      `/app/documents/${ids.coffee}`,
    )
  })

  test('merge into a similar memory: compared first, approved as its update, recorded as superseding it; the next draft is focused', async () => {
    const { page } = s
    await page.locator('.queue-pick', { hasText: 'Standup moved' }).click()
    const card = detail(s, 'Standup moved')
    await card.getByRole('link', { name: 'Standup time' }).waitFor()
    await card.getByRole('button', { name: 'Compare with “Standup time”' }).click()
    const compare = card.locator('.similar .compare')
    await compare.locator('.diff-body del').first().waitFor()
    expect(await compare.locator('.diff-body del').allTextContents()).toEqual(['[removed: nine]'])
    expect(await compare.locator('.diff-body ins').allTextContents()).toEqual(['[added: ten]'])
    await check(s, 'review-queue-merge-compare')

    const before = await titles()
    // The one after it takes its place (the one before, when it was the last).
    const after = before[before.indexOf('Standup moved') + 1] ?? before[before.indexOf('Standup moved') - 1]!
    await card.getByRole('button', { name: 'Merge into “Standup time”' }).click()
    await page.getByText('Merged: “Standup moved” now replaces “Standup time”, which is archived').waitFor()
    const merged = await doc(ids['Standup moved']!)
    expect([merged.status, merged.metadata.supersedes]).toEqual(['active', ids.standup])
    expect((await doc(ids.standup!)).status).toBe('archived')
    await nextIsFocused(after)
    await badgeSays(s, 11)
  })

  test('reject as a duplicate records which memory it repeats; the memory stays', async () => {
    const { page } = s
    await page.locator('.queue-pick', { hasText: 'Fridays deploys' }).click()
    const card = detail(s, 'Fridays deploys')
    await card.getByRole('link', { name: 'Deploy freeze' }).waitFor()
    const before = await titles()
    const after = before[before.indexOf('Fridays deploys') + 1] ?? before[before.indexOf('Fridays deploys') - 1]!
    await card.getByRole('button', { name: 'Reject as duplicate of “Deploy freeze”' }).click()
    await page.getByText('Rejected as a duplicate of “Deploy freeze”: “Fridays deploys” is archived').waitFor()
    const rejected = await doc(ids['Fridays deploys']!)
    expect([rejected.status, rejected.metadata.duplicate_of]).toEqual(['archived', ids.fridays])
    expect((await doc(ids.fridays!)).status).toBe('active')
    await nextIsFocused(after)
    await badgeSays(s, 10)
  })

  test('the keys still work from the focused draft: j moves, a approves and focuses the next', async () => {
    const { page } = s
    const list = await titles()
    const from = list.indexOf(await selected())
    const target = list[Math.min(from + 1, list.length - 1)]!
    await page.keyboard.press('j')
    await nextIsFocused(target)
    const next = (await titles())[list.indexOf(target) + 1] ?? list[list.indexOf(target) - 1]!
    await page.keyboard.press('a')
    await page.getByText(`Approved: “${target}” is now a memory`).waitFor()
    expect((await doc(ids[target]!)).status).toBe('active')
    await nextIsFocused(next)
    await badgeSays(s, 9)
    expect(await page.locator('.queue-item').count()).toBe(9)
    await check(s, 'review-queue-after-verdicts')
  })

  for (const colorScheme of ['dark', 'light'] as const)
    test(`at 375 px (${colorScheme}) the list comes first, then the detail, and nothing overflows`, async () => {
      const narrow = await h.open({ width: 375, height: 800, colorScheme })
      await narrow.context.addCookies(await s.context.cookies())
      await narrow.go('/app/review')
      await narrow.page.locator('article.draft').waitFor()
      const list = (await narrow.page.locator('.queue-list').boundingBox())!
      const card = (await narrow.page.locator('.queue-detail').boundingBox())!
      expect(card.y).toBeGreaterThanOrEqual(list.y + list.height)
      expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
      // A pick takes the person to the detail below the list.
      await narrow.page.locator('.queue-pick', { hasText: 'Coffee machine' }).click()
      await detail(narrow, 'Coffee machine').locator('.diff-body del').first().waitFor()
      await narrow.page.waitForFunction(() => document.activeElement?.matches('article.draft'), undefined, { timeout: 10_000 })
      expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
      // The navigation is folded away at 375 px: the count shows on the Menu button too.
      expect(await narrow.page.locator('.menu-toggle .nav-count').textContent()).toBe('9')
      await narrow.page.getByRole('button', { name: 'Menu' }).click()
      await badgeSays(narrow, 9)
      await narrow.page.getByRole('button', { name: 'Menu' }).click()
      await check(narrow, `review-queue-375-${colorScheme}`)
      await narrow.close()
    })

  test('on a dark desktop the diff and the list read as well', async () => {
    const dark = await h.open({ colorScheme: 'dark' })
    await dark.context.addCookies(await s.context.cookies())
    await dark.go('/app/review')
    await dark.page.locator('.queue-pick', { hasText: 'Coffee machine' }).click()
    await detail(dark, 'Coffee machine').locator('.diff-body del').first().waitFor()
    await check(dark, 'review-queue-desktop-dark')
    await dark.close()
  })
})
