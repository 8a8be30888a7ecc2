// First run in a real Chromium: an empty account's Home is a checklist — a key made inline and shown once, a client
// picked and its configuration copied (HTTP first, stdio through npx mcp-remote, never a checkout), "connected" once
// the key's first request arrives, the extension's first save, a first document; each step from the account's real
// state. Dismissed, it stays away; an account holding ~150 documents never sees it. axe, 375 px, light and dark.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
})
afterAll(async () => {
  await h?.stop()
})

const cookieOf = async (s: Session) => (await s.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
async function call(s: Session, method: string, path: string, body?: unknown) {
  const res = await fetch(h.server.url + path, {
    method,
    headers: { cookie: await cookieOf(s), origin: h.server.url, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}
async function check(s: Session, name: string) {
  await settle(s.page)
  expect(await axeViolations(s.page)).toEqual([])
  expect(s.problems).toEqual([])
  expect(await s.page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(s.page.viewportSize()!.width)
  await s.shot(name)
}
const step = (s: Session, title: string) => s.page.locator('li.step', { has: s.page.getByRole('heading', { name: title }) })
async function stepDone(s: Session, title: string): Promise<boolean> {
  return (await step(s, title).locator('.step-status').innerText()) === 'Done'
}

describe.skipIf(!!missing)('first run', () => {
  test('an empty account is walked through key, client, connection, extension and a first document', async () => {
    const s = await h.open()
    await s.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.server.url })
    await signUpInBrowser(s)
    const { page } = s
    const checklist = page.getByRole('region', { name: 'Get started' })
    await checklist.waitFor()
    for (const title of ['Create a key', 'Connect your client', 'Install the browser extension', 'Add a first document'])
      expect(await stepDone(s, title)).toBe(false)
    await check(s, 'first-run-empty')

    // The key, made inline, is shown once and fills in the configuration.
    await checklist.getByLabel(/^Label/).fill('Claude Code')
    await checklist.getByRole('button', { name: 'Create key' }).click()
    const shown = checklist.getByLabel('The new API key')
    await shown.waitFor()
    const key = await shown.innerText()
    expect(key).toMatch(/^svc_[A-Za-z0-9]{40}$/)
    expect(await stepDone(s, 'Create a key')).toBe(true)
    await checklist.getByText('Waiting for the first request with your key…').waitFor()

    // Claude Desktop first: HTTP (the custom connector's URL), then stdio through npx mcp-remote, with no checkout.
    const desktop = await checklist.locator('pre').allInnerTexts()
    expect(desktop[0]).toBe(`${h.server.url}/mcp`)
    const stdio = JSON.parse(desktop[1]!)
    expect(stdio.mcpServers.memory).toEqual({
      command: 'npx',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder mcp-remote fills from the environment.
      args: ['-y', 'mcp-remote', `${h.server.url}/mcp`, '--header', 'Authorization:${AUTH_HEADER}'],
      env: { AUTH_HEADER: `Bearer ${key}` },
    })
    expect(desktop.join('\n')).not.toContain('/path/to/this/repo')

    await checklist.getByLabel('Claude Code').check()
    const code = checklist.locator('pre').first()
    expect(await code.innerText()).toBe(
      `claude mcp add --transport http memory ${h.server.url}/mcp --header "Authorization: Bearer ${key}"`,
    )
    await checklist.getByRole('button', { name: 'Copy the Claude Code over HTTP configuration' }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await code.innerText())
    expect(await checklist.locator('pre').nth(1).innerText()).toBe(
      `claude mcp add memory -- npx -y mcp-remote ${h.server.url}/mcp --header "Authorization: Bearer ${key}"`,
    )
    await checklist.getByLabel('Cursor').check()
    expect(JSON.parse(await checklist.locator('pre').first().innerText())).toEqual({
      mcpServers: { memory: { url: `${h.server.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
    })
    await checklist.getByLabel('OpenAI SDK').check()
    expect(await checklist.locator('pre').first().innerText()).toContain(`baseURL: '${h.server.url}/v1', apiKey: '${key}'`)
    await check(s, 'first-run-key-made')

    // The client's first request: the checklist reads the key's last use every few seconds and says so.
    const mcp = await fetch(`${h.server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(mcp.status).toBe(200)
    await checklist.getByText(/Connected: Claude Code made its first request/).waitFor({ timeout: 15_000 })
    expect(await stepDone(s, 'Connect your client')).toBe(true)

    // The extension saves with this session (source "extension"); coming back to the tab reads it.
    expect(
      (await call(s, 'POST', '/api/documents', { title: 'Saved page', body: 'A page the extension saved.', kind: 'webpage' })).status,
    ).toBe(201)
    expect(await stepDone(s, 'Add a first document')).toBe(false) // not read yet: nothing on Home changed
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')))
    await page.waitForFunction(() => document.querySelectorAll('li.step.done').length === 3)
    expect(await stepDone(s, 'Install the browser extension')).toBe(true)

    // A first document through quick capture: the checklist stays open, all four done.
    await page.getByLabel(/Quick capture/).fill('We deploy on Tuesdays.')
    await page.getByRole('button', { name: 'Save note' }).click()
    await page.waitForFunction(() => document.querySelectorAll('li.step.done').length === 4)
    await checklist.getByText('All set.').waitFor()
    await check(s, 'first-run-done')

    // The account holds documents now: Home is Home again.
    await s.go('/app')
    await page.getByRole('heading', { name: 'Recent documents' }).waitFor()
    expect(await checklist.count()).toBe(0)
    await s.close()
  })

  test('at 375 px in the dark it fits, and once dismissed it stays away', async () => {
    const s = await h.open({ width: 375, height: 800, colorScheme: 'dark' })
    await signUpInBrowser(s)
    const checklist = s.page.getByRole('region', { name: 'Get started' })
    await checklist.waitFor()
    await check(s, 'first-run-375-dark')
    await checklist.getByRole('button', { name: 'Dismiss the checklist' }).click()
    expect(await checklist.count()).toBe(0)
    await s.page.getByText(/Checklist dismissed/).waitFor()
    await s.go('/app')
    await s.page.getByRole('heading', { name: 'Recent documents' }).waitFor()
    expect(await checklist.count()).toBe(0)
    await s.close()
  })

  test('an account holding 150 documents sees Home, not the checklist', async () => {
    const s = await h.open()
    await signUpInBrowser(s)
    const documents = Array.from({ length: 150 }, (_, i) => ({ title: `Seeded ${i}`, body: `Seeded document number ${i}.`, kind: 'note' }))
    expect((await call(s, 'POST', '/api/documents/bulk', { documents })).status).toBe(200)
    await s.go('/app')
    await s.page.getByText('Documents: 150 documents', { exact: false }).waitFor()
    expect(await s.page.getByRole('region', { name: 'Get started' }).count()).toBe(0)
    await s.close()
  })
})
