// Files in the dashboard, in a real Chromium against a real listening service: a person drops a 3-page PDF, a Markdown
// note and a text file on the New document screen, watches each one upload (two at a time) and be read, finds a sentence of
// page 2 in search and in an answer's sources, both saying "p. 2", and opens the document at page 2; a PDF named
// .docx, chosen from the keyboard, shows the service's 415 in its row as text; the same file again is "Already here".
// The extract-file jobs run when the test drains them (no worker runs in tests), as a worker would. axe at desktop and
// 375 px; screenshots of each screen.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib'
import type { Locator, Page } from 'playwright-core'
import { drainJobs } from '../../src/jobs/worker'
import { makePdf } from '../files/fixtures'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session

const PAGES = [
  'The survey team met at the harbour office before dawn.',
  'Meltwater from the northern glacier floods the Kvarken basin every spring.',
  'The report closes with three recommendations for the coast guard.',
]

/** A 3-page PDF with a sentence of its own on each page (the fixtures' pages all say the same). */
async function threePagePdf(): Promise<number[]> {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  PAGES.forEach((text, i) => {
    const page = doc.addPage([595, 842])
    page.drawText(`Page ${i + 1} of the field report`, { x: 50, y: 780, size: 18, font })
    page.drawText(text, { x: 50, y: 740, size: 11, font })
  })
  return Array.from(await doc.save())
}
let pdf: number[] = []

beforeAll(async () => {
  if (missing) return
  pdf = await threePagePdf()
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
}, 60_000)
afterAll(async () => {
  await h?.stop()
})

const readFiles = () => drainJobs(h.server.deps, 'test-worker', ['extract-file'])
const row = (page: Page, name: string) => page.locator('.upload', { hasText: name })

async function check(session: Session, name: string) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}

/** The element is scrolled into the window, its top below the sticky top bar (not hidden under it). */
async function expectInView(page: Page, element: Locator) {
  const bar = (await page.locator('.topbar').boundingBox())!
  const box = (await element.boundingBox())!
  expect(box.y).toBeGreaterThanOrEqual(bar.y + bar.height)
  expect(box.y).toBeLessThan(page.viewportSize()!.height)
}

/** Files dropped on the drop zone as a person's drag would: a DataTransfer built in the page from the bytes. */
async function drop(page: Page, files: { name: string; type: string; bytes: number[] }[]) {
  const data = await page.evaluateHandle((files) => {
    const data = new DataTransfer()
    for (const f of files) data.items.add(new File([new Uint8Array(f.bytes)], f.name, { type: f.type }))
    return data
  }, files)
  await page.dispatchEvent('.dropzone', 'dragenter', { dataTransfer: data })
  await page.locator('.dropzone.dragging').getByText('Drop the files to upload them').waitFor()
  await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: data })
}

/** Records, from now on, every state each upload row shows and how many upload at once. */
async function watchRows(page: Page) {
  await page.evaluate(() => {
    const seen: Record<string, string[]> = {}
    let most = 0
    const look = () => {
      let uploading = 0
      for (const li of Array.from(document.querySelectorAll('.upload'))) {
        const name = li.querySelector('.upload-name')?.textContent ?? ''
        const state = li.querySelector('.upload-state')?.textContent?.trim() ?? ''
        seen[name] ??= []
        if (seen[name]!.at(-1) !== state) seen[name]!.push(state)
        if (li.classList.contains('uploading')) uploading++
      }
      most = Math.max(most, uploading)
    }
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
    ;(window as unknown as { rows: () => unknown }).rows = () => ({ seen, most })
  })
  return () => page.evaluate(() => (window as unknown as { rows: () => { seen: Record<string, string[]>; most: number } }).rows())
}

describe.skipIf(!!missing)('files in the dashboard', () => {
  test('three files dropped upload two at a time, each with its progress, are read and become Ready', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Documents', exact: true }).click()
    await page.getByRole('link', { name: 'New document' }).click()
    await page.getByRole('heading', { name: 'New document', level: 1 }).waitFor()
    const rows = await watchRows(page)
    await drop(page, [
      { name: 'field-report.pdf', type: 'application/pdf', bytes: pdf },
      {
        name: 'glacier-notes.md',
        type: 'text/markdown',
        bytes: Array.from(
          Buffer.from(
            '# Glacier notes\n\nThe ice retreats 30 m a year.\n\n| Year | Retreat |\n| --- | ---: |\n| 2023 | 31 m |\n\nنهر الجليد يتراجع.\n',
          ),
        ),
      },
      { name: 'crew.txt', type: 'text/plain', bytes: Array.from(Buffer.from('Ingrid flies the plane; Ola dives.\n')) },
    ])
    for (const name of ['field-report.pdf', 'glacier-notes.md', 'crew.txt']) await row(page, name).getByText('Reading…').waitFor()
    expect(await row(page, 'field-report.pdf').innerText()).toContain('KB') // its size

    await readFiles()
    for (const name of ['field-report.pdf', 'glacier-notes.md', 'crew.txt'])
      await row(page, name).getByText('Ready', { exact: true }).waitFor()
    await row(page, 'field-report.pdf').getByRole('link', { name: 'field-report' }).waitFor()
    // The note's first heading is its title; a text file is named after its file.
    await row(page, 'glacier-notes.md').getByRole('link', { name: 'Glacier notes' }).waitFor()
    await row(page, 'crew.txt').getByRole('link', { name: 'crew' }).waitFor()
    // The note's table reads as a table, its Arabic line right to left.
    await row(page, 'glacier-notes.md').getByRole('link', { name: 'Glacier notes' }).click()
    await page.getByRole('columnheader', { name: 'Retreat' }).waitFor()
    expect(await page.getByRole('cell', { name: '31 m' }).evaluate((td) => getComputedStyle(td).textAlign)).toBe('right')
    expect(await page.getByText('نهر الجليد يتراجع.').evaluate((p) => getComputedStyle(p).direction)).toBe('rtl')
    await page.goBack()

    const { seen, most } = await rows()
    for (const name of ['field-report.pdf', 'glacier-notes.md', 'crew.txt']) {
      expect(seen[name]!.some((state) => /^Uploading… \d+%$/.test(state))).toBe(true)
      expect(seen[name]!.some((state) => state.startsWith('Reading…'))).toBe(true)
      expect(seen[name]!.at(-1)).toMatch(/^Ready /)
    }
    expect(seen['crew.txt']![0]).toBe('Waiting to upload') // the third waits for one of the first two
    expect(most).toBeLessThanOrEqual(2)
    await check(s, 'files-uploaded')
  })

  test('a PDF named .docx, chosen from the keyboard, shows the 415 in its row as text', async () => {
    const { page } = s
    const name = '<b>minutes<b>.docx'
    const chooser = page.waitForEvent('filechooser')
    await page.getByRole('button', { name: 'Choose files…' }).focus()
    await page.keyboard.press('Enter')
    await (await chooser).setFiles({
      name,
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      buffer: Buffer.from(pdf),
    })
    const error = row(page, name).locator('.error-text')
    await error.waitFor()
    expect(await error.innerText()).toMatch(/not a DOCX.*its bytes are a PDF/i)
    expect(await row(page, name).locator('.upload-name').innerText()).toBe(name)
    expect(await page.locator('.uploads b').count()).toBe(0) // the name the service echoes stays text
    const answer = await page.request.fetch('/api/documents?limit=100', { headers: { origin: h.server.url } })
    expect(((await answer.json()) as { data: { title: string }[] }).data.map((d) => d.title).sort()).toEqual([
      'Glacier notes',
      'crew',
      'field-report',
    ])
    await check(s, 'files-refused')
  })

  test('search finds a sentence of page 2, says "p. 2", and opens the document at page 2', async () => {
    const { page } = s
    await s.go(`/app/search?q=${encodeURIComponent('meltwater Kvarken basin')}`)
    const result = page.locator('.result').first()
    await result.getByRole('link', { name: 'field-report' }).waitFor()
    expect(await result.locator('.location').innerText()).toBe('p. 2')
    await check(s, 'files-search')

    await result.getByRole('link', { name: 'field-report' }).click()
    await page.waitForURL(/\/app\/documents\/[0-9a-f-]{36}\?page=2$/)
    const target = page.locator('.file-part.target')
    await target.getByRole('heading', { name: /Page 2/ }).waitFor()
    expect(await target.innerText()).toContain(PAGES[1]!)
    await page.waitForFunction(() => document.activeElement?.classList.contains('target') ?? false, undefined, { timeout: 10_000 })
    await expectInView(page, target)
    expect(await page.locator('.file-part').count()).toBe(3)

    const file = page.locator('.file-details')
    expect(await file.innerText()).toMatch(/field-report\.pdf[\s\S]*PDF[\s\S]*3 pages[\s\S]*Yes/)
    const download = page.waitForEvent('download')
    await file.getByRole('link', { name: 'Download original' }).click()
    expect((await download).suggestedFilename()).toBe('field-report.pdf')
    await check(s, 'files-document-at-page')
  })

  test('an answer cites the PDF with "p. 2" and its source opens the document at page 2', async () => {
    const { page } = s
    await s.go('/app/ask')
    await page.getByLabel(/Your question/).fill('What floods the Kvarken basin every spring?')
    await page.keyboard.press('Enter')
    await page.locator('.turn.answer.done').waitFor()
    const source = page.locator('.source-list li', { hasText: 'field-report' }).first()
    expect(await source.locator('.location').innerText()).toBe('p. 2')
    expect(await source.getByRole('link', { name: 'field-report' }).getAttribute('href')).toMatch(
      /^\/app\/documents\/[0-9a-f-]{36}\?page=2$/,
    )
    await source.getByRole('link', { name: 'field-report' }).click()
    await page
      .locator('.file-part.target')
      .getByRole('heading', { name: /Page 2/ })
      .waitFor()
    expect(s.problems).toEqual([])
  })

  test('a file that cannot be read says why, in its row and on its page, which follows it while it is read', async () => {
    const { page } = s
    await s.go('/app/documents/new')
    await drop(page, [{ name: 'locked.pdf', type: 'application/pdf', bytes: Array.from(await makePdf(1, { password: 'secret' })) }])
    await row(page, 'locked.pdf').getByText('Reading…').waitFor()
    // Opened while it is being read, the document says so and asks again until it is read.
    await row(page, 'locked.pdf').getByRole('link', { name: 'locked' }).click()
    await page.locator('.file-details').getByText('Reading…').waitFor()
    await readFiles()
    const error = page.locator('.file-details .error-text')
    await error.waitFor()
    expect(await error.innerText()).toBe('encrypted PDF: remove the password and upload it again')
    await page.goBack()
    await page.getByRole('heading', { name: 'New document', level: 1 }).waitFor()
    // Sent again with other bytes (a new version of the same name), it is read again and the row says why it failed.
    await drop(page, [{ name: 'locked.pdf', type: 'application/pdf', bytes: Array.from(await makePdf(1, { password: 'other' })) }])
    await row(page, 'locked.pdf').getByText('Reading…').waitFor()
    await readFiles()
    await row(page, 'locked.pdf').getByText('encrypted PDF: remove the password and upload it again').waitFor()
    expect(s.problems).toEqual([])
  })

  test('at 375 px: the same PDF again is "Already here", and the document opens at its page', async () => {
    const narrow = await h.open({ width: 375, height: 800 })
    try {
      await narrow.context.addCookies(await s.context.cookies())
      await narrow.go('/app/documents/new')
      await drop(narrow.page, [{ name: 'field-report.pdf', type: 'application/pdf', bytes: pdf }])
      await row(narrow.page, 'field-report.pdf').getByText('Already here').waitFor()
      await check(narrow, 'files-uploaded-375')
      await narrow.go(`/app/search?q=${encodeURIComponent('recommendations coast guard')}`)
      await narrow.page.locator('.result .location', { hasText: 'p. 3' }).waitFor()
      await narrow.page.locator('.result').getByRole('link', { name: 'field-report' }).click()
      await narrow.page
        .locator('.file-part.target')
        .getByRole('heading', { name: /Page 3/ })
        .waitFor()
      await narrow.page.waitForFunction(() => document.activeElement?.classList.contains('target') ?? false, undefined, { timeout: 10_000 })
      await expectInView(narrow.page, narrow.page.locator('.file-part.target'))
      await check(narrow, 'files-document-at-page-375')
    } finally {
      await narrow.close()
    }
  })
})
