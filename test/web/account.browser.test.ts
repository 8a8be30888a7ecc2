// Workspaces, API keys and integrations, usage, settings and profile, and account deletion in a real
// Chromium: each change made through the screen and read back through the API; axe-core and screenshots.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let email = ''
// A 2×2 PNG (red, green, blue, white), built by hand so the test needs no image library.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
)

async function cookie() {
  return (await s.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ')
}
async function call(method: string, path: string, auth?: { key: string }) {
  const headers: Record<string, string> = auth ? { authorization: `Bearer ${auth.key}` } : { cookie: await cookie(), origin: h.server.url }
  const res = await fetch(h.server.url + path, { method, headers })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}
async function check(name: string) {
  await settle(s.page)
  expect(await axeViolations(s.page)).toEqual([])
  expect(s.problems).toEqual([])
  await s.shot(name)
}

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await s.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.server.url })
  email = await signUpInBrowser(s)
})
afterAll(async () => {
  await h?.stop()
})

describe.skipIf(!!missing)('workspaces, keys, usage, settings and the account', () => {
  test('workspaces are created, renamed and deleted; the last one cannot be, and the plan cap is said', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Workspaces' }).click()
    await page.getByRole('heading', { name: 'Default', level: 2 }).waitFor()
    expect(await page.getByRole('button', { name: 'Delete Default' }).isDisabled()).toBe(true)
    await page.getByText('Your only workspace cannot be deleted', { exact: false }).waitFor()

    await page.getByLabel('Name', { exact: true }).fill('Research')
    await page.getByRole('button', { name: 'Create workspace' }).click()
    await page.getByRole('heading', { name: 'Research', level: 2 }).waitFor()
    expect(await page.getByRole('button', { name: 'Delete Default' }).isDisabled()).toBe(false)
    // The top bar's switcher knows it at once.
    expect(await page.locator('.switcher option').allInnerTexts()).toContain('Research')

    await page.getByLabel('Name', { exact: true }).fill('Third')
    await page.getByRole('button', { name: 'Create workspace' }).click()
    await page
      .getByRole('alert')
      .getByText(/Error 402:.*workspace/)
      .waitFor()

    await page.getByRole('button', { name: 'Rename Research' }).click()
    await page.getByRole('form', { name: 'Rename Research' }).getByLabel('Name').fill('Lab notes')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Lab notes', level: 2 }).waitFor()
    await check('workspaces')

    await page.getByRole('button', { name: 'Delete Lab notes' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete “Lab notes”?' })
    await dialog.getByText('This cannot be undone.').waitFor()
    await dialog.getByRole('button', { name: 'Delete workspace' }).click()
    await page.getByText('Deleted workspace Lab notes').waitFor()
    expect((await call('GET', '/api/workspaces')).body.data.map((w: { name: string }) => w.name)).toEqual(['Default'])
    expect(await page.getByRole('button', { name: 'Delete Default' }).isDisabled()).toBe(true)
  })

  test('a key is shown once with a copy button and filled-in client configuration, works, and is revoked', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'API keys' }).click()
    await page.getByText('No keys yet.', { exact: false }).waitFor()
    await page.getByLabel(/^Label/).fill('Claude Desktop')
    await page.getByRole('button', { name: 'Create key' }).click()
    const shown = page.getByLabel('The new API key')
    await shown.waitFor()
    const key = await shown.innerText()
    expect(key).toMatch(/^svc_[A-Za-z0-9]{40}$/)
    await page.getByRole('button', { name: 'Copy key' }).click()
    await page.getByRole('button', { name: 'Copied', exact: true }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)
    // The configuration snippets of the client picked carry this service's address and the new key.
    const integrations = page.getByRole('region', { name: 'Integrations' })
    expect(await integrations.locator('pre', { hasText: 'AUTH_HEADER' }).innerText()).toContain(`"AUTH_HEADER": "Bearer ${key}"`)
    await integrations.getByLabel('Cursor').check()
    const http = await integrations.locator('pre').first().innerText()
    expect(JSON.parse(http)).toEqual({
      mcpServers: { memory: { url: `${h.server.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
    })
    await integrations.getByLabel('OpenAI SDK').check()
    expect(await page.locator('pre', { hasText: 'new OpenAI' }).innerText()).toContain(`baseURL: '${h.server.url}/v1', apiKey: '${key}'`)
    await check('keys-created')

    expect((await call('GET', '/api/auth/session', { key })).status).toBe(200)
    // Never shown again: a fresh visit lists the prefix only.
    await s.go('/app/keys')
    const row = page.locator('table.keys-table tbody tr')
    expect(await row.count()).toBe(1)
    // Made without a choice of scopes: read and write, the default.
    expect(await row.innerText()).toMatch(new RegExp(`Claude Desktop\\s+${key.slice(0, 16)}…\\s+read, write\\s+free`))
    expect(await row.innerText()).not.toContain('never') // last used: just now, by the call above
    expect(await page.content()).not.toContain(key)
    expect(await page.locator('pre', { hasText: 'AUTH_HEADER' }).innerText()).toContain('Bearer svc_…your key…')

    // The free plan holds one key: the API's 402 is shown.
    await page.getByRole('button', { name: 'Create key' }).click()
    await page
      .getByRole('alert')
      .getByText(/Error 402:.*key/i)
      .waitFor()

    await page.getByRole('button', { name: 'Revoke Claude Desktop' }).click()
    await page.getByRole('dialog', { name: 'Revoke “Claude Desktop”?' }).getByRole('button', { name: 'Revoke key' }).click()
    await page.getByText('No keys yet.', { exact: false }).waitFor()
    expect((await call('GET', '/api/auth/session', { key })).status).toBe(401)
  })

  test('usage shows the meters, that billing is not configured, and the history as a chart and a table', async () => {
    const { page } = s
    for (const q of ['deploys', 'tuesday']) expect((await call('GET', `/api/search?q=${q}`)).status).toBe(200)
    await page.getByRole('link', { name: 'Usage' }).click()
    await page.getByText('Plan: free').waitFor()
    await page.getByText('Billing is not configured on this service', { exact: false }).waitFor()
    await page.getByText(/^Documents: 0 documents of 1,000 documents$/).waitFor()
    const chart = page.getByRole('img', { name: 'Activity by day' })
    await chart.waitFor()
    expect(await page.locator('.chart-svg polyline').count()).toBe(3)
    // The table is there for screen readers; the button shows it on the screen.
    expect(await page.locator('table.history-table tbody tr').count()).toBe(30)
    await page.getByRole('button', { name: 'Show as a table' }).click()
    expect(await page.locator('table.history-table').isVisible()).toBe(true)
    await page.getByLabel('Period').selectOption('7')
    await page.waitForURL(/days=7/)
    await page.waitForFunction(() => document.querySelectorAll('table.history-table tbody tr').length === 7)
    // Today's row counts the two searches; the totals too.
    expect(await page.locator('table.history-table tbody tr').last().locator('td').allInnerTexts()).toEqual(['2', '0', '0'])
    expect(await page.locator('.totals div', { hasText: 'Searches' }).locator('dd').innerText()).toBe('2')
    await check('usage')
  })

  test('settings, profile and avatar are saved', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Settings' }).click()
    await page.getByRole('heading', { name: 'Preferences' }).waitFor()
    await page.getByLabel(/^Default workspace/).selectOption({ label: 'Default' })
    await page.getByRole('radio', { name: /^Keyword/ }).check()
    await page.getByRole('radio', { name: /^Detailed/ }).check()
    await page.getByRole('checkbox', { name: /^Remember conversations/ }).check()
    await page.getByRole('button', { name: 'Save preferences' }).click()
    await page.getByText('Settings saved').waitFor()
    const settings = (await call('GET', '/api/settings')).body
    const workspace = (await call('GET', '/api/workspaces')).body.data[0].id
    expect(settings).toEqual({
      default_workspace_id: workspace,
      search_mode: 'keyword',
      answer_style: 'detailed',
      remember_conversations: true,
    })

    await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace')
    await page.getByRole('button', { name: 'Save profile' }).click()
    await page.getByText('Profile saved').waitFor()
    await page.locator('.topbar').getByText('Ada Lovelace').waitFor()

    await page
      .locator('input[type=file][accept^="image"]')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') })
    await page.getByText('notes.txt: choose a PNG, JPEG, WebP or GIF image').waitFor()
    await page.locator('input[type=file][accept^="image"]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG })
    await page.getByText('Avatar updated').waitFor()
    const avatar = page.getByRole('img', { name: 'Your avatar' })
    await page.waitForFunction(() => (document.querySelector('img.avatar') as HTMLImageElement | null)?.naturalWidth === 2)
    expect(await avatar.getAttribute('src')).toMatch(/^\/api\/avatar\/[0-9a-f-]+\?v=\d+$/)
    expect((await call('GET', '/api/profile')).body).toMatchObject({ name: 'Ada Lovelace', email })
    await check('settings')
  })

  test('the account is deleted once DELETE is typed, and the session ends', async () => {
    const { page } = s
    const remove = page.getByRole('button', { name: 'Delete my account' })
    expect(await remove.isDisabled()).toBe(true)
    await page.getByLabel(/Type DELETE to confirm/).fill('delete')
    expect(await remove.isDisabled()).toBe(true)
    const before = await cookie()
    await page.getByLabel(/Type DELETE to confirm/).fill('DELETE')
    await remove.click()
    await page.waitForURL(/\/app\/sign-up$/)
    await page.getByRole('button', { name: 'Create account' }).waitFor()
    const gone = await fetch(`${h.server.url}/api/auth/session`, { headers: { cookie: before } })
    expect(gone.status).toBe(401)
    const signIn = await fetch(`${h.server.url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: h.server.url },
      body: JSON.stringify({ email, password: 'correct horse battery' }),
    })
    expect(signIn.status).toBe(401)
    expect(s.problems).toEqual([])
  })
})
