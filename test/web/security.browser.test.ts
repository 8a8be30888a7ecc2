// Stored content is shown, never run: titles, bodies, tags, URLs and search snippets carrying <script>,
// <img onerror> and javascript: links render as the text they are on every screen that shows them —
// no dialog, no global set, no element made of them, no followable javascript: link.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let id = ''

const TITLE = `<script>alert('title');window.__pwned='title'</script><img src=x onerror="alert('title-img')">`
const TAG = `<img src=x onerror=alert('tag')>`
const BODY = [
  'Zebrafish notes <script>alert("body");window.__pwned="body"</script>',
  '',
  "<img src=x onerror=\"window.__pwned='img';alert('img')\"> and <a href=\"javascript:alert('raw')\">raw link</a>",
  '',
  "[click me](javascript:window.__pwned='link';alert('link')) and <javascript:alert('auto')> and [data](data:text/html,<script>alert(1)</script>)",
].join('\n')

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  // Stored through the API as any client could, with the session of the browser. A javascript: URL is refused
  // (only http(s) URLs are sources), so the document is stored without one.
  const refused = await s.page.request.post('/api/documents', {
    headers: { origin: h.server.url },
    data: { title: TITLE, body: BODY, tags: [TAG, 'ok'], url: "javascript:alert('url')" },
  })
  expect(refused.status()).toBe(400)
  const created = await (
    await s.page.request.post('/api/documents', {
      headers: { origin: h.server.url },
      data: { title: TITLE, body: BODY, tags: [TAG, 'ok'] },
    })
  ).json()
  id = created.id
  expect(id).toBeTruthy()
})
afterAll(async () => {
  await h?.stop()
})

/** Nothing ran, nothing became an element, and the hostile text is on screen as text. */
async function assertInert(visible: string[]) {
  const { page } = s
  await settle(page)
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined()
  expect(s.problems).toEqual([])
  expect(await page.locator('#app script, #app img, #app iframe, #app [onerror]').count()).toBe(0)
  expect(await page.locator('a[href^="javascript:" i], a[href^="data:" i]').count()).toBe(0)
  const text = await page.locator('#app').innerText()
  for (const piece of visible) expect(text).toContain(piece)
}

describe.skipIf(!!missing)('hostile content renders as text', () => {
  test('on Home (recent documents) and the Documents list', async () => {
    await s.go('/app')
    await assertInert([TITLE, TAG])
    await s.go('/app/documents')
    await assertInert([TITLE, TAG])
    expect(await axeViolations(s.page)).toEqual([])
  })

  test('on the document page: body as safe Markdown, javascript: links as words, the URL as text', async () => {
    await s.go(`/app/documents/${id}`)
    await assertInert([
      TITLE,
      TAG,
      '<script>alert("body");window.__pwned="body"</script>',
      '<img src=x onerror=',
      'click me',
      '<a href="javascript:alert(\'raw\')">raw link</a>',
    ])
    // The unsafe link's words are a span: clicking them goes nowhere and runs nothing.
    const before = s.page.url()
    await s.page.getByText('click me').click()
    await settle(s.page)
    expect(s.page.url()).toBe(before)
    await assertInert(['click me'])
    await s.shot('security-document')
  })

  test('in search results: snippet and title as text, the words still marked', async () => {
    await s.go('/app/search?q=zebrafish')
    await assertInert([TITLE, 'Zebrafish notes'])
    expect(await s.page.locator('.result mark').first().innerText()).toBe('Zebrafish')
    await s.go(`/app/search?q=${encodeURIComponent("<script>alert('q')</script>")}`)
    await assertInert(["<script>alert('q')</script>"])
    expect(await axeViolations(s.page)).toEqual([])
  })

  test('in the edit form: the values are the text, as typed', async () => {
    await s.go(`/app/documents/${id}`)
    await s.page.getByRole('button', { name: 'Edit' }).click()
    expect(await s.page.getByLabel(/^Title/).inputValue()).toBe(TITLE)
    expect(await s.page.getByLabel(/^Body/).inputValue()).toBe(BODY)
    await assertInert([])
  })
})
