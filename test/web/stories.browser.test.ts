// A person's first session in the dashboard, in a real Chromium against a real listening service: sign up,
// capture a note, add documents by paste, upload and drop, search, open a result, edit, pin, rate, archive,
// restore, forget; the list's filters and bulk actions. axe-core on every screen; screenshots of each.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { drainJobs } from '../../src/jobs/worker'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
})
afterAll(async () => {
  await h?.stop()
})

/** The screen is accessible (no serious or critical axe violations), nothing went wrong, and it is pictured. */
async function check(name: string) {
  await settle(s.page)
  expect(await axeViolations(s.page)).toEqual([])
  expect(s.problems).toEqual([])
  await s.shot(name)
}

describe.skipIf(!!missing)('a first session', () => {
  test('sign up lands on Home, with usage against the plan and nothing waiting', async () => {
    await s.go('/app')
    expect(new URL(s.page.url()).pathname).toBe('/app/sign-in')
    await check('sign-in')
    await signUpInBrowser(s)
    await s.page.getByText('Plan: free').waitFor()
    await s.page.getByText('0 drafts from your agents').waitFor()
    await check('home-empty')
  })

  test('quick capture saves a note that shows in recent documents', async () => {
    const { page } = s
    await page.getByLabel(/Quick capture/).fill('We deploy on Tuesdays after the standup.')
    await page.getByRole('button', { name: 'Save note' }).click()
    await page
      .locator('.doc-list')
      .getByRole('link', { name: /We deploy on Tuesdays/ })
      .waitFor()
    await page.getByLabel(/Quick capture/).fill('https://example.com/runbook')
    await expect(page.getByRole('button', { name: 'Save link' }).isVisible()).resolves.toBe(true)
    await page.getByRole('button', { name: 'Save link' }).click()
    await page.locator('.doc-list').getByRole('link', { name: 'https://example.com/runbook' }).waitFor()
    await check('home')
  })

  test('new documents by paste, by choosing files and by dropping them', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Documents', exact: true }).click()
    await page.getByRole('link', { name: 'New document' }).click()
    await page.getByRole('heading', { name: 'New document', level: 1 }).waitFor()
    await check('new-document')
    await page.locator('input[type=file]').setInputFiles([
      {
        name: 'incidents.md',
        mimeType: 'text/markdown',
        buffer: Buffer.from('# Incident review\n\nPostmortems are **blameless** and due within 5 days.\n'),
      },
      { name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex') },
    ])
    // The service reads a file in the background (no worker runs in tests: the test runs its jobs), and says why it
    // refuses one: an image is not a document.
    await page.locator('.upload', { hasText: 'incidents.md' }).getByText('Reading…').waitFor()
    await page
      .locator('.upload', { hasText: 'photo.png' })
      .getByText(/^images are not read/)
      .waitFor()
    const dropped = await page.evaluateHandle(() => {
      const data = new DataTransfer()
      data.items.add(new File(['Coffee machine is on floor 3.'], 'office.txt', { type: 'text/plain' }))
      return data
    })
    await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: dropped })
    await page.locator('.upload', { hasText: 'office.txt' }).getByText('Reading…').waitFor()
    await drainJobs(h.server.deps, 'test-worker', ['extract-file'])
    await page.locator('.uploads').getByRole('link', { name: 'Incident review' }).waitFor()
    await page.locator('.uploads').getByRole('link', { name: 'office' }).waitFor()

    await page.getByLabel(/^Title/).fill('Release checklist')
    await page.getByLabel(/^Tags/).fill('ops, releases')
    await page
      .getByLabel(/^Body/)
      .fill('## Steps\n\n1. Freeze the **main** branch\n2. Run `bun test`\n\nSee [the wiki](https://wiki.example.com/releases).')
    await page.getByRole('button', { name: 'Save document' }).click()
    await page.getByRole('heading', { name: 'Release checklist', level: 1 }).waitFor()
    // The body is Markdown made into elements: a heading, an ordered list, bold, code, a safe external link.
    await page.getByRole('heading', { name: 'Steps', level: 3 }).waitFor()
    expect(await page.locator('.markdown ol li').count()).toBe(2)
    expect(await page.locator('.markdown strong').innerText()).toBe('main')
    expect(await page.locator('.markdown code').innerText()).toBe('bun test')
    expect(await page.getByRole('link', { name: 'the wiki' }).getAttribute('href')).toBe('https://wiki.example.com/releases')
    expect(await page.getByRole('link', { name: 'the wiki' }).getAttribute('rel')).toContain('noopener')
    await check('document')
  })

  test('search finds it, marks the words and says why', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Search', exact: true }).click()
    await page.getByRole('searchbox', { name: 'Search your memory' }).fill('blameless postmortems')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.waitForURL(/\/app\/search\?q=blameless\+postmortems/)
    const result = page.locator('.result').first()
    await result.getByRole('link', { name: 'Incident review' }).waitFor()
    expect(await result.locator('mark').allInnerTexts()).toEqual(expect.arrayContaining(['blameless', 'Postmortems']))
    // "Why" lists the very words marked, in words; the ranks and scores are its tooltip.
    expect(await result.locator('.why').innerText()).toMatch(/^Why: Matched .*“blameless”, “postmortems”.*\(2 of 2 words\)/)
    expect(await result.locator('.why').getAttribute('title')).toMatch(/^keyword #1 \(.+\) · .*2 of 2 words in the document/)
    await check('search')
    // The extension opens /app/search?q=… directly: the same screen, from the URL.
    await s.go('/app/search?q=coffee')
    await page.locator('.result').getByRole('link', { name: 'office' }).waitFor()
    await s.go('/app/search?q=zzzqqq')
    await page.getByText(/Nothing found for “zzzqqq”/).waitFor()
    expect(s.problems).toEqual([])
  })

  test('a document is edited, pinned, rated, archived, restored and forgotten', async () => {
    const { page } = s
    await s.go('/app/search?q=incident')
    await page.locator('.result').getByRole('link', { name: 'Incident review' }).click()
    await page.getByRole('heading', { name: 'Incident review', level: 1 }).waitFor()
    const id = new URL(page.url()).pathname.split('/').pop()!

    await page.getByRole('button', { name: 'Edit' }).click()
    await page.getByLabel(/^Title/).fill('Incident reviews')
    await page.getByLabel(/^Tags/).fill('ops, people')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Incident reviews', level: 1 }).waitFor()
    expect(await page.locator('.tags').first().innerText()).toContain('people')

    await page.getByRole('button', { name: 'Pin' }).click()
    await page.getByRole('button', { name: 'Unpin' }).waitFor()
    await page.getByRole('button', { name: 'Useful', exact: true }).click()
    await page.waitForFunction(() => document.querySelector('.rating button')?.getAttribute('aria-pressed') === 'true')

    await page.getByRole('button', { name: 'Archive' }).click()
    await page.getByRole('button', { name: 'Restore' }).waitFor()
    expect(await page.locator('.meta .status').first().innerText()).toBe('archived')
    await page.getByRole('button', { name: 'Restore' }).click()
    await page.getByRole('button', { name: 'Archive' }).waitFor()

    const api = await h.server.app.handle(new Request(`${h.server.url}/api/documents/${id}`, { headers: { cookie: await cookieHeader() } }))
    const stored = await api.json()
    expect([stored.title, stored.tags, stored.pinned, stored.rating, stored.status]).toEqual([
      'Incident reviews',
      ['ops', 'people'],
      true,
      1,
      'active',
    ])

    await page.getByRole('button', { name: 'Forget…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Forget this document permanently?' })
    await dialog.getByText('This is permanent: it cannot be recovered.').waitFor()
    await check('forget-confirm')
    await dialog.getByRole('button', { name: 'Forget permanently' }).click()
    await page.waitForURL(/\/app\/documents$/)
    await page.getByText('Forgotten: permanently deleted').waitFor()
    const gone = await h.server.app.handle(
      new Request(`${h.server.url}/api/documents/${id}`, { headers: { cookie: await cookieHeader() } }),
    )
    expect(gone.status).toBe(404)
  })

  test('the list filters by kind and status and archives in bulk', async () => {
    const { page } = s
    await s.go('/app/documents?kind=note')
    await rows(page, (n) => n === 1)
    await s.go('/app/documents')
    await check('documents')
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check()
    await page.getByRole('button', { name: 'Archive' }).click()
    await page.getByText(/Archived \d+ documents/).waitFor()
    await page.getByText('No documents match these filters.').or(page.getByText('No documents yet.')).waitFor()
    await page.getByLabel('Status').selectOption('archived')
    await page.waitForURL(/status=archived/)
    await settle(page) // the archived list loads after the URL changes
    await rows(page, (n) => n >= 4)
  })

  test('at 375 px the menu opens from the top bar; dark mode follows the system', async () => {
    const narrow = await h.open({ width: 375, height: 760, colorScheme: 'dark' })
    await narrow.context.addCookies(await s.context.cookies())
    await narrow.go('/app')
    const nav = narrow.page.getByRole('navigation', { name: 'Screens' })
    expect(await nav.isVisible()).toBe(false)
    await narrow.shot('home-375-dark')
    await narrow.page.getByRole('button', { name: 'Menu' }).click()
    expect(await nav.isVisible()).toBe(true)
    await narrow.page.getByRole('link', { name: 'Workspaces' }).click()
    await narrow.page.getByRole('heading', { name: 'Workspaces', level: 1 }).waitFor()
    expect(await nav.isVisible()).toBe(false)
    const background = await narrow.page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    expect(background).toBe('rgb(15, 19, 24)')
    expect(await axeViolations(narrow.page)).toEqual([])
    await narrow.shot('workspaces-375-dark')
    expect(narrow.problems).toEqual([])
    await narrow.close()
  })
})

/** Waits (up to 10 s) until the documents table has a row count that passes `ok`: lists load after navigation. */
async function rows(page: Page, ok: (n: number) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  let n = -1
  while (Date.now() < deadline) {
    n = await page.locator('table.doc-table tbody tr').count()
    if (ok(n)) return
    await Bun.sleep(50)
  }
  throw new Error(`the documents table has ${n} rows: not what was expected`)
}

async function cookieHeader(): Promise<string> {
  return (await s.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
}
