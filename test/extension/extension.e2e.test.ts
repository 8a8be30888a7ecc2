// The browser extension loaded unpacked into Debian's Chromium, saving a local article, a selection and a PDF that
// needs the site's cookie to a real listening service with the dashboard's session cookie; everything read back
// through the API.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { buildExtension } from '../../src/extension/build'
import { drainJobs } from '../../src/jobs/worker'
import { startServer, type E2EServer } from '../e2e/server'
import { ARTICLE_TITLE, BOILERPLATE, PARAGRAPHS, articleHtml } from './article'
import { chromiumMissing, launchWithExtension, screenshot, tabIdOf, type ExtensionBrowser } from './chromium'
import { makePdf } from '../files/fixtures'

setDefaultTimeout(60_000)

const SCREENSHOTS = join(import.meta.dir, '../../test-results/extension')
const skipReason = chromiumMissing()
if (skipReason) console.warn(`extension browser tests skipped: ${skipReason}`)

interface Account {
  cookie: string
  email: string
}

async function signUp(server: E2EServer): Promise<Account> {
  const email = `ext-${crypto.randomUUID().slice(0, 8)}@example.com`
  const res = await fetch(`${server.url}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  })
  if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`)
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!
  return { cookie, email }
}

describe.skipIf(skipReason !== null)('browser extension in Chromium', () => {
  let browser: ExtensionBrowser
  let allowed: E2EServer
  let refusing: E2EServer
  let articles: ReturnType<typeof Bun.serve>
  /** A journal's site: its PDFs only for a reader with its session cookie (journal_session=reader). */
  let journal: ReturnType<typeof Bun.serve>
  let journalUrl: string
  let articleUrl: string
  let account: Account
  let articleTab: Page

  /** The API as the dashboard's user: GETs with the cookie, writes with the service's own Origin. */
  const api = async (path: string, init: { method?: string; body?: unknown } = {}) => {
    const res = await fetch(allowed.url + path, {
      method: init.method ?? 'GET',
      headers: { cookie: account.cookie, origin: allowed.url, ...(init.body ? { 'content-type': 'application/json' } : {}) },
      body: init.body ? JSON.stringify(init.body) : undefined,
    })
    return { status: res.status, body: (await res.json()) as any }
  }

  const setServiceUrl = (url: string) =>
    browser.worker.evaluate((u) => (globalThis as any).chrome.storage.local.set({ serviceUrl: u }), url)

  /** The popup as a tab, aimed at the article's tab or another (a toolbar popup cannot be opened by a test). */
  async function openPopup(target = articleUrl): Promise<Page> {
    const page = await browser.context.newPage()
    await page.setViewportSize({ width: 380, height: 560 })
    await page.goto(`chrome-extension://${browser.extensionId}/popup.html?tab=${await tabIdOf(browser.worker, target)}`)
    return page
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true })
    console.log(`extension screenshots: ${SCREENSHOTS}`)
    const built = await buildExtension(join(tmpdir(), `extension-build-${process.pid}`))
    articles = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Response(articleHtml(), { headers: { 'content-type': 'text/html; charset=utf-8' } }),
    })
    articleUrl = `http://127.0.0.1:${articles.port}/science/tidal-locking`
    const paper = await makePdf(2, { title: 'Tidal Heating of Io' })
    const signIn = '<!doctype html><html><head><title>Sign in — Journal</title></head><body><form>Sign in</form></body></html>'
    journal = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) => {
        const reader = /(?:^|;\s*)journal_session=reader(?:;|$)/.test(request.headers.get('cookie') ?? '')
        const path = new URL(request.url).pathname
        if (reader && (path === '/paper.pdf' || path === '/preview.pdf'))
          return new Response(paper as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'application/pdf' } })
        // Without the cookie: /paper.pdf is refused, /preview.pdf answers its sign-in page (as many sites do, with a 200).
        if (path === '/paper.pdf') return new Response(signIn, { status: 403, headers: { 'content-type': 'text/html' } })
        return new Response(signIn, { headers: { 'content-type': 'text/html; charset=utf-8' } })
      },
    })
    // Another host than the service's (127.0.0.1): the journal's cookie is its own.
    journalUrl = `http://localhost:${journal.port}`
    browser = await launchWithExtension(built.dir)
    allowed = await startServer({ env: { ALLOWED_ORIGINS: `chrome-extension://${browser.extensionId}` } })
    refusing = await startServer()
    account = await signUp(allowed)
    await browser.context.addCookies([
      { name: 'session', value: account.cookie.split('=')[1]!, url: allowed.url, httpOnly: true, sameSite: 'Lax' },
    ])
    articleTab = await browser.context.newPage()
    await articleTab.goto(articleUrl)
  })

  afterAll(async () => {
    await browser?.close()
    articles?.stop(true)
    journal?.stop(true)
    await allowed?.stop()
    await refusing?.stop()
  })

  test('the options page stores the service address and checks the session', async () => {
    const page = await browser.context.newPage()
    await page.goto(`chrome-extension://${browser.extensionId}/options.html`)
    await page.waitForFunction(() => (document.getElementById('origin-setting')?.textContent ?? '') !== '')
    expect(await page.inputValue('#service-url')).toBe('http://localhost:3000')
    expect(await page.textContent('#origin-setting')).toBe(`ALLOWED_ORIGINS=chrome-extension://${browser.extensionId}`)
    await page.fill('#service-url', 'ftp://example.com')
    await page.click('button[type=submit]')
    await page.waitForSelector('#status.error')
    expect(await page.textContent('#status')).toBe('The address must start with http:// or https://')
    expect(await browser.worker.evaluate(() => (globalThis as any).chrome.storage.local.get(['serviceUrl']))).toEqual({})
    await page.fill('#service-url', `${allowed.url}/`)
    await page.click('button[type=submit]')
    await page.waitForSelector('#status.ok')
    expect(await page.textContent('#status')).toBe(`Saved. Signed in as ${account.email}.`)
    expect(await browser.worker.evaluate(() => (globalThis as any).chrome.storage.local.get(['serviceUrl']))).toEqual({
      serviceUrl: allowed.url,
    })
    await screenshot(page, SCREENSHOTS, 'options')
    await page.close()
  })

  test('the popup saves the readable article with its URL, tags and workspace; saving it again updates the same document', async () => {
    await setServiceUrl(allowed.url)
    const reading = await api('/api/workspaces', { method: 'POST', body: { name: 'Reading' } })
    expect(reading.status).toBe(201)
    const popup = await openPopup()
    await popup.waitForSelector('#save:not([hidden])')
    expect(await popup.textContent('#account')).toBe(account.email)
    expect(await popup.textContent('#page-title')).toBe(`${ARTICLE_TITLE} | Example Science`)
    await popup.selectOption('#workspace', { label: 'Reading' })
    await popup.fill('#tags', 'astronomy, moons , astronomy')
    await screenshot(popup, SCREENSHOTS, 'popup-signed-in')
    await popup.click('#save-page')
    await popup.waitForSelector('#save-status.ok')
    expect(await popup.textContent('#save-status')).toBe(`Saved: ${ARTICLE_TITLE}`)
    await screenshot(popup, SCREENSHOTS, 'popup-saved')

    const listed = await api(`/api/documents?source=extension&workspace_id=${reading.body.id}`)
    expect(listed.body.data).toHaveLength(1)
    const doc = (await api(`/api/documents/${listed.body.data[0].id}`)).body
    expect(doc).toMatchObject({
      title: ARTICLE_TITLE,
      url: articleUrl,
      source: 'extension',
      kind: 'webpage',
      tags: ['astronomy', 'moons'],
      workspace_id: reading.body.id,
    })
    for (const paragraph of PARAGRAPHS) expect(doc.body).toContain(paragraph)
    expect(doc.body).toContain("## Io's volcanoes")
    expect(doc.body).toContain('- Io: locked')
    for (const boilerplate of BOILERPLATE) expect(doc.body).not.toContain(boilerplate)
    // The link in the status opens the document in the dashboard.
    expect(await popup.getAttribute('#save-status a', 'href')).toBe(`${allowed.url}/app/documents/${doc.id}`)

    await popup.click('#save-page')
    await popup.waitForSelector('#save-status.ok >> text=Updated')
    expect(await popup.textContent('#save-status')).toBe(`Updated: ${ARTICLE_TITLE}`)
    const again = await api(`/api/documents?source=extension`)
    expect(again.body.data.filter((d: { url: string }) => d.url === articleUrl).map((d: { id: string }) => d.id)).toEqual([doc.id])
    await popup.close()
  })

  test('the popup saves the selection as its own note pointing at the passage, leaving the page document alone', async () => {
    await setServiceUrl(allowed.url)
    await articleTab.evaluate(() => {
      const range = document.createRange()
      range.selectNodeContents(document.getElementById('p1')!)
      getSelection()!.removeAllRanges()
      getSelection()!.addRange(range)
    })
    const popup = await openPopup()
    await popup.waitForSelector('#save-selection:not([disabled])')
    await popup.click('#save-selection')
    await popup.waitForSelector('#save-status.ok')
    expect(await popup.textContent('#save-status')).toStartWith(
      'Saved: “Tidal forces from the giant planet stretched each…” — Tidal Locking of the Galilean Moons | Example Science',
    )

    const notes = await api('/api/documents?source=extension&kind=note')
    expect(notes.body.data).toHaveLength(1)
    const note = (await api(`/api/documents/${notes.body.data[0].id}`)).body
    expect(note.body).toBe(PARAGRAPHS[1])
    expect(note).toMatchObject({ source: 'extension', kind: 'note', metadata: { page_url: articleUrl } })
    // A text fragment: the first and last four words, so the link opens scrolled to the passage.
    expect(note.url).toBe(`${articleUrl}#:~:text=Tidal%20forces%20from%20the,took%20exactly%20one%20orbit.`)
    const pages = await api('/api/documents?source=extension&kind=webpage')
    expect(pages.body.data.map((d: { url: string }) => d.url)).toEqual([articleUrl])
    await popup.close()
  })

  test('the popup searches the memory; results open in the dashboard and hostile titles render as text', async () => {
    await setServiceUrl(allowed.url)
    const hostile = '<img src=x onerror="window.__pwned=1">Volcano <script>window.__pwned=2</script> notes'
    const evil = await api('/api/documents', {
      method: 'POST',
      body: { title: hostile, body: 'Io volcano eruptions observed by <b>Galileo</b> <a href="javascript:alert(1)">probe</a>.' },
    })
    expect(evil.status).toBe(201)
    const popup = await openPopup()
    await popup.waitForSelector('#search:not([hidden])')
    await popup.fill('#q', 'volcano')
    await popup.press('#q', 'Enter')
    await popup.waitForSelector('#results li')
    const titles = await popup.locator('#results .result-title').allTextContents()
    expect(titles).toContain(hostile)
    expect(titles).toContain(ARTICLE_TITLE)
    expect(await popup.locator('#results img, #results script, #results b').count()).toBe(0)
    expect(await popup.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined()
    const evilLink = popup.locator('#results .result-title', { hasText: 'Volcano' })
    expect(await evilLink.getAttribute('href')).toBe(`${allowed.url}/app/documents/${evil.body.id}`)
    expect(await popup.getAttribute('#all-results', 'href')).toBe(`${allowed.url}/app/search?q=volcano`)
    await screenshot(popup, SCREENSHOTS, 'popup-search')
    await popup.emulateMedia({ colorScheme: 'dark' })
    await screenshot(popup, SCREENSHOTS, 'popup-search-dark')
    const [opened] = await Promise.all([browser.context.waitForEvent('page'), evilLink.click()])
    expect(opened.url()).toBe(`${allowed.url}/app/documents/${evil.body.id}`)
    await opened.close()
    await popup.close()
  })

  test("a PDF open in the browser is fetched with the site's cookie, uploaded with tags and workspace, then read by the service", async () => {
    await setServiceUrl(allowed.url)
    // The workspace the article went to (the free plan holds few): created here when this test runs alone.
    const workspaces = (await api('/api/workspaces')).body.data as { id: string; name: string }[]
    const reading =
      workspaces.find((w) => w.name === 'Reading') ?? (await api('/api/workspaces', { method: 'POST', body: { name: 'Reading' } })).body
    await browser.context.addCookies([{ name: 'journal_session', value: 'reader', url: journalUrl, sameSite: 'Lax' }])
    const pdfUrl = `${journalUrl}/paper.pdf`
    const pdfTab = await browser.context.newPage()
    await pdfTab.goto(pdfUrl)
    const popup = await openPopup(pdfUrl)
    await popup.waitForSelector('#save:not([hidden])')
    // The button is named once the popup has probed the tab, which may come after it shows (a loaded machine).
    await popup.waitForFunction(() => document.querySelector('#save-page')?.textContent === 'Save PDF', undefined, { timeout: 10_000 })
    expect(await popup.textContent('#save-page')).toBe('Save PDF')
    expect(await popup.isEnabled('#save-page')).toBe(true)
    await popup.selectOption('#workspace', { label: 'Reading' })
    await popup.fill('#tags', 'io, tides')
    await popup.click('#save-page')
    await popup.waitForSelector('#save-status >> text=Saved — reading the PDF…')

    const listed = await api(`/api/documents?source=extension&kind=document&workspace_id=${reading.id}`)
    expect(listed.body.data).toHaveLength(1)
    const id = listed.body.data[0].id
    expect((await api(`/api/documents/${id}`)).body.file).toMatchObject({ name: 'paper.pdf', format: 'pdf', status: 'processing' })
    // The service reads the file in its extract-file job; the popup, asking meanwhile, then says it is ready.
    expect(await drainJobs(allowed.deps, 'extension-e2e', ['extract-file'])).toBeGreaterThan(0)
    await popup.waitForSelector('#save-status.ok >> text=Ready')
    expect(await popup.textContent('#save-status')).toBe('Ready: Tidal Heating of Io')
    expect(await popup.getAttribute('#save-status a', 'href')).toBe(`${allowed.url}/app/documents/${id}`)
    await screenshot(popup, SCREENSHOTS, 'popup-pdf-saved')
    const doc = (await api(`/api/documents/${id}`)).body
    expect(doc).toMatchObject({
      title: 'Tidal Heating of Io',
      source: 'extension',
      workspace_id: reading.id,
      file: { name: 'paper.pdf', format: 'pdf', status: 'done', error: null, pages: 2 },
    })
    expect([...doc.tags].sort()).toEqual(['io', 'tides'])
    expect(doc.body).toContain('Line 0 of page 1: the quick brown fox jumps over the lazy dog.')
    expect(doc.body).toContain('Page 2 heading')

    // The same PDF again is the same document, unchanged.
    await popup.click('#save-page')
    await popup.waitForSelector('#save-status.ok >> text=Already saved')
    expect(await popup.textContent('#save-status')).toBe('Already saved: Tidal Heating of Io')
    expect((await api(`/api/documents?source=extension&kind=document&workspace_id=${reading.id}`)).body.data).toHaveLength(1)
    await popup.close()
    await pdfTab.close()
  })

  test("a PDF the site will not give without its cookie: the popup and the shortcut's path say why, and nothing is saved", async () => {
    await setServiceUrl(allowed.url)
    const before = (await api('/api/documents?source=extension&limit=100')).body.data.length
    // Both tabs show the PDF (opened while signed in to the journal); then the journal's session ends.
    await browser.context.addCookies([{ name: 'journal_session', value: 'reader', url: journalUrl, sameSite: 'Lax' }])
    const refusedUrl = `${journalUrl}/paper.pdf`
    const previewUrl = `${journalUrl}/preview.pdf`
    const tabs = [await browser.context.newPage(), await browser.context.newPage()]
    await tabs[0]!.goto(refusedUrl)
    await tabs[1]!.goto(previewUrl)
    await browser.context.clearCookies({ name: 'journal_session' })

    const popup = await openPopup(refusedUrl)
    await popup.waitForSelector('#save:not([hidden])')
    await popup.click('#save-page')
    await popup.waitForSelector('#save-status.error')
    expect(await popup.textContent('#save-status')).toBe(
      'The site did not give the PDF to the extension (status 403): download it and upload it in the dashboard.',
    )
    expect(await popup.isEnabled('#save-page')).toBe(true)
    await screenshot(popup, SCREENSHOTS, 'popup-pdf-refused')
    await popup.close()

    // The background's save (the context menu's and the shortcut's path): a sign-in page instead of the PDF.
    const options = await browser.context.newPage()
    await options.goto(`chrome-extension://${browser.extensionId}/options.html`)
    const reply = await options.evaluate(
      (tabId) => (globalThis as any).chrome.runtime.sendMessage({ type: 'save', what: 'page', tabId }),
      await tabIdOf(browser.worker, previewUrl),
    )
    expect(reply).toEqual({
      ok: false,
      problem: {
        kind: 'failed',
        status: 0,
        message:
          'The address did not give a PDF but text/html, a page titled “Sign in — Journal”: perhaps the site wants you to sign in. ' +
          'Open the PDF in the browser, download it and upload it in the dashboard.',
      },
    })
    await options.close()
    for (const tab of tabs) await tab.close()
    expect((await api('/api/documents?source=extension&limit=100')).body.data).toHaveLength(before)
  })

  test('without a session the popup offers the dashboard sign-in', async () => {
    // The refusing service on "localhost": a host with no session cookie in this browser.
    const service = refusing.url.replace('127.0.0.1', 'localhost')
    await setServiceUrl(service)
    const popup = await openPopup()
    await popup.waitForSelector('#problem:not([hidden])')
    expect(await popup.textContent('#problem-text')).toBe(
      `You are not signed in to ${service}. Sign in to its dashboard, then open this again.`,
    )
    expect(await popup.textContent('#problem-action')).toBe('Sign in')
    expect(await popup.isHidden('#save')).toBe(true)
    await screenshot(popup, SCREENSHOTS, 'popup-signed-out')
    const [opened] = await Promise.all([browser.context.waitForEvent('page'), popup.click('#problem-action')])
    expect(opened.url()).toBe(`${service}/app/sign-in`)
    await opened.close()
  })

  test('a service that does not allow the extension origin: the popup names the exact ALLOWED_ORIGINS line, and nothing is saved', async () => {
    const service = refusing.url.replace('127.0.0.1', 'localhost')
    await setServiceUrl(service)
    const other = await signUp(refusing)
    await browser.context.addCookies([
      { name: 'session', value: other.cookie.split('=')[1]!, url: service, httpOnly: true, sameSite: 'Lax' },
    ])
    const popup = await openPopup()
    await popup.waitForSelector('#problem:not([hidden])')
    const setting = `ALLOWED_ORIGINS=chrome-extension://${browser.extensionId}`
    expect(await popup.textContent('#problem-setting')).toBe(setting)
    expect(await popup.textContent('#problem-text')).toContain('Add this line to its environment')
    expect(await popup.isHidden('#save')).toBe(true)
    await screenshot(popup, SCREENSHOTS, 'popup-origin-refused')
    await popup.close()
    // The background refuses the same way when asked directly (the path of the context menu and the shortcut).
    const tabId = await tabIdOf(browser.worker, articleUrl)
    const options = await browser.context.newPage()
    await options.goto(`chrome-extension://${browser.extensionId}/options.html`)
    const reply = await options.evaluate(
      (id) => (globalThis as any).chrome.runtime.sendMessage({ type: 'save', what: 'page', tabId: id }),
      tabId,
    )
    expect(reply).toMatchObject({ ok: false, problem: { kind: 'origin-refused', setting } })
    await options.close()
    const res = await fetch(`${refusing.url}/api/documents`, { headers: { cookie: other.cookie } })
    expect((await res.json()).data).toEqual([])
  })

  test('with an API key pasted in the options, the service that refused the cookie takes the save: no line added, no restart', async () => {
    const service = refusing.url.replace('127.0.0.1', 'localhost')
    await setServiceUrl(service)
    const person = await signUp(refusing)
    const created = await fetch(`${refusing.url}/api/keys`, {
      method: 'POST',
      headers: { cookie: person.cookie, origin: refusing.url, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'browser extension' }),
    })
    const { key } = (await created.json()) as { key: string }
    const options = await browser.context.newPage()
    await options.goto(`chrome-extension://${browser.extensionId}/options.html`)
    await options.waitForFunction(() => (document.getElementById('origin-setting')?.textContent ?? '') !== '')
    // A wrong key is refused and not kept.
    await options.fill('#api-key', 'mem_not-a-real-key')
    await options.click('#key-form button[type=submit]')
    await options.waitForSelector('#key-status.error')
    expect(await options.textContent('#key-status')).toContain("refused the API key in the extension's options")
    expect(await browser.worker.evaluate(() => (globalThis as any).chrome.storage.local.get(['apiKey']))).toEqual({ apiKey: '' })
    await options.fill('#api-key', key)
    await options.click('#key-form button[type=submit]')
    await options.waitForSelector('#key-status.ok')
    expect(await options.textContent('#key-status')).toBe(`Key saved. Signed in to ${service} as ${person.email} with it.`)
    await screenshot(options, SCREENSHOTS, 'options-key')

    const popup = await openPopup()
    await popup.waitForSelector('#save:not([hidden])')
    expect(await popup.textContent('#account')).toBe(person.email)
    await popup.click('#save-page')
    await popup.waitForSelector('#save-status.ok')
    await popup.close()
    const res = await fetch(`${refusing.url}/api/documents?source=extension`, { headers: { cookie: person.cookie } })
    const saved = (await res.json()).data as { title: string; url: string; status: string }[]
    expect(saved.map((d) => [d.title, d.url, d.status])).toEqual([[ARTICLE_TITLE, articleUrl, 'active']])

    // Removed, the extension is back on the cookie, which this service still refuses.
    await options.click('#remove-key')
    await options.waitForSelector('#key-status.ok >> text=Key removed')
    expect(await browser.worker.evaluate(() => (globalThis as any).chrome.storage.local.get(['apiKey']))).toEqual({ apiKey: '' })
    await options.close()
  })
})
