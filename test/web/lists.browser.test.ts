// Lists that show more (issue 28, story 7) in a real Chromium, over 150 documents and memories made by bulk
// ingest: Documents and Memories as dense tables (title, kind, source, updated as how long ago with the exact time
// on hover, links), sorted by title or updated, Markdown excerpts read as plain text, an inline filter, and on a
// 375 px phone a readable list with nothing wider than the screen; the context pack opens on the default workspace.
// axe-core and screenshots at desktop and phone, light and dark.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { axeViolations, chromiumMissing, screenshotDir, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let hub = ''

async function call(method: string, path: string, body?: unknown) {
  const cookie = (await s.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
  const res = await fetch(h.server.url + path, {
    method,
    headers: { cookie, origin: h.server.url, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

async function check(session: Session, name: string) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  expect(await session.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    await session.page.evaluate(() => window.innerWidth),
  )
  await session.shot(name)
  // The full page of 100 rows is very tall: the first screenful too, to look at.
  await session.page.evaluate(() => scrollTo(0, 0))
  await session.page.screenshot({ path: join(screenshotDir(), `${name}-top.png`) })
}

const rows = (session = s) => session.page.locator('table.doc-table tbody tr')
const titles = (session = s) => session.page.locator('table.doc-table tbody .doc-title').allInnerTexts()

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  const documents = Array.from({ length: 150 }, (_, i) => {
    const n = String(i).padStart(3, '0')
    if (i % 5 === 0)
      return { kind: 'fact', title: `Fact ${n}`, body: `**Fact** number ${n}: the office opens at ${8 + (i % 3)} am.`, tags: ['office'] }
    return {
      title: `Note ${n}`,
      body: `# Heading ${n}\n\nSome **bold** words about topic ${n}.\n\n| Region | Sales |\n|---|---|\n| North | ${i} |`,
      tags: i % 2 ? ['sales'] : [],
    }
  })
  documents.push({ title: 'Zebra crossing rules', body: 'Pedestrians have the right of way at a zebra crossing.', tags: [] })
  const made = await call('POST', '/api/documents/bulk', { documents })
  expect(made.status).toBe(200)
  const ids = made.body.results.map((r: { document: { id: string } }) => r.document.id)
  hub = ids[150]
  for (const target of ids.slice(1, 4)) expect((await call('POST', `/api/documents/${hub}/link`, { target_id: target })).status).toBe(201)
})
afterAll(async () => {
  await h?.stop()
})

describe.skipIf(!!missing)('lists that show more', () => {
  test('Documents is a dense table: kind, source, updated how long ago (exact on hover), links, plain excerpts', async () => {
    await s.go('/app/documents')
    expect(await rows().count()).toBe(100)
    const headers = await s.page.locator('table.doc-table thead th').allInnerTexts()
    expect(headers.map((t) => t.replace(/[↑↓↕]/g, '').trim())).toEqual(['', 'Title', 'Kind', 'Source', 'Updated', 'Links'])
    const zebra = rows().filter({ hasText: 'Zebra crossing rules' })
    expect(await zebra.locator('td').nth(2).innerText()).toBe('document')
    expect(await zebra.locator('td').nth(3).innerText()).toBe('extension') // what a signed-in browser's writes are recorded as
    expect(await zebra.locator('time').innerText()).toMatch(/^(just now|\d+ min ago)$/)
    expect(await zebra.locator('time').getAttribute('title')).toMatch(/\d/)
    expect(await zebra.locator('td').nth(5).innerText()).toBe('3')
    // Markdown in the excerpts reads as text: no heading marks, no emphasis marks, no table pipes.
    const excerpts = (await s.page.locator('table.doc-table .excerpt').allInnerTexts()).join('\n')
    expect(excerpts).toContain('Region · Sales · North')
    expect(excerpts).not.toMatch(/#|\*\*|\|/)
    await check(s, 'lists-documents')
  })

  test('sorting by title, and back to newest first; the sort is in the URL', async () => {
    await s.page.getByRole('button', { name: /^Title/ }).click()
    await s.page.waitForURL(/sort=title/)
    const sorted = await titles()
    expect(sorted).toEqual([...sorted].sort((a, b) => a.localeCompare(b)))
    expect(await s.page.locator('th[aria-sort="ascending"]').innerText()).toMatch(/^Title/)
    await s.page.getByRole('button', { name: /^Title/ }).click()
    await s.page.waitForURL(/sort=-title/)
    expect((await titles())[0]).toBe('Zebra crossing rules')
    await s.page.getByRole('button', { name: /^Updated/ }).click()
    await s.page.waitForURL(/sort=-updated/)
    expect(await s.page.locator('th[aria-sort="descending"]').innerText()).toMatch(/^Updated/)
  })

  test('the inline filter narrows the page as one types, by title or excerpt', async () => {
    const filter = s.page.getByLabel('Filter this page')
    await filter.fill('zebra')
    expect(await titles()).toEqual(['Zebra crossing rules'])
    await s.page.getByText('1 of 100 shown').waitFor()
    await filter.fill('office opens')
    expect((await titles()).every((t) => t.startsWith('Fact'))).toBe(true)
    expect(await rows().count()).toBeGreaterThan(5)
    await filter.fill('')
    expect(await rows().count()).toBe(100)
  })

  test('Memories: the same table per kind, filtered too', async () => {
    await s.go('/app/memories')
    await s.page.locator('#kind-fact').waitFor()
    expect(await rows().count()).toBe(30)
    await s.page.getByLabel('Filter this page').fill('Fact 145')
    expect(await titles()).toEqual(['Fact 145'])
    await check(s, 'lists-memories')
  })

  test('the context pack opens on the default workspace, not the newest one', async () => {
    const settings = await call('GET', '/api/settings')
    expect((await call('POST', '/api/workspaces', { name: 'Newer' })).status).toBe(201)
    await s.go('/app/memories')
    await s.page.getByText(/^About [\d,]+ tokens/).waitFor()
    expect(await s.page.locator('.context-pack select').inputValue()).toBe(settings.body.default_workspace_id)
    expect(await s.page.locator('.context-pack .meta').first().innerText()).toMatch(/151 documents/)
  })

  for (const colorScheme of ['light', 'dark'] as const)
    test(`at 375 px (${colorScheme}) the tables read as lists, nothing wider than the screen`, async () => {
      const phone = await h.open({ width: 375, height: 760, colorScheme })
      await phone.context.addCookies(await s.context.cookies())
      await phone.go('/app/documents')
      expect(await rows(phone).count()).toBe(100)
      // Each cell says what it is now that the column headings are gone.
      const zebra = rows(phone).filter({ hasText: 'Zebra crossing rules' })
      const box = await zebra.boundingBox()
      expect(box!.width).toBeLessThanOrEqual(375)
      await check(phone, `lists-documents-375-${colorScheme}`)
      await phone.go('/app/memories')
      await check(phone, `lists-memories-375-${colorScheme}`)
      await phone.close()
    })

  test('desktop dark', async () => {
    const dark = await h.open({ colorScheme: 'dark' })
    await dark.context.addCookies(await s.context.cookies())
    await dark.go('/app/documents?sort=title')
    await check(dark, 'lists-documents-dark')
    await dark.close()
  })
})
