// The graph screen in a real Chromium: linked documents (made through the API, embedded with the hash
// embedder, suggested by the link job) drawn on the canvas; a suggestion accepted by clicking its edge, one
// dismissed from the keyboard list, a node focused and its document opened from the panel; and a workspace of 2,100 documents drawn
// truncated at the 2,000 the API gives, still clickable. axe-core and screenshots on each.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { documents, links } from '../../db/schema'
import { drainJobs } from '../../src/jobs/worker'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const PAIR_A = 'Measles vaccination of young children sharply reduces hospital admissions for measles in winter.'
const PAIR_B = 'Vaccination of young children against measles sharply reduces winter hospital admissions for measles.'
const PAIR_C = 'The sourdough starter needs feeding with rye flour and water every twelve hours at room temperature.'
const PAIR_D = 'Feed the sourdough starter rye flour and water every twelve hours, kept at room temperature.'
const OTHER = 'Quarterly tax filings are due on the fifteenth day after the quarter closes.'

const missing = chromiumMissing()
let h: Harness
let s: Session
const ids: Record<string, string> = {}

/** The API as the signed-in browser calls it (its cookie, its Origin). */
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

async function check(name: string, session = s) {
  await settle(session.page)
  expect(await axeViolations(session.page)).toEqual([])
  expect(session.problems).toEqual([])
  await session.shot(name)
}

const settled = (session = s) => session.page.waitForSelector('canvas.graph-canvas[data-settled="true"]', { timeout: 30_000 })

/** Where the canvas draws a node, in page coordinates. */
const pointOf = (id: string) =>
  s.page.evaluate((node) => {
    const canvas = document.querySelector('canvas.graph-canvas') as HTMLCanvasElement & { graphPoint(id: string): { x: number; y: number } }
    canvas.scrollIntoView({ block: 'center' })
    return canvas.graphPoint(node)
  }, id)

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  for (const [name, body] of Object.entries({ A: PAIR_A, B: PAIR_B, C: PAIR_C, D: PAIR_D, OTHER })) {
    const made = await call('POST', '/api/documents', { body, title: `${name}: ${body.slice(0, 30)}`, source: 'api' })
    expect(made.status).toBe(201)
    ids[name] = made.body.id
  }
  await drainJobs(h.server.deps) // embeds them; the link job suggests the near-duplicate pairs
})
afterAll(async () => {
  await h?.stop()
})

describe.skipIf(!!missing)('the graph', () => {
  test('draws the documents with the suggestions dashed and scored, and lists them for the keyboard', async () => {
    await s.go('/app/graph')
    await settled()
    await s.page.getByText('5 documents, 0 links, 2 suggestions').waitFor()
    const rows = s.page.locator('table.suggestions tbody tr')
    expect(await rows.count()).toBe(2)
    expect(await rows.first().locator('td').nth(1).innerText()).toMatch(/^0\.\d+|^1$/)
    await check('graph')
  })

  test('clicking a suggested edge offers to accept it; accepting links the two documents', async () => {
    const a = await pointOf(ids.A!)
    const b = await pointOf(ids.B!)
    await s.page.mouse.click((a.x + b.x) / 2, (a.y + b.y) / 2)
    const panel = s.page.locator('.edge-panel')
    await panel.getByRole('heading', { name: /Suggested link · score/ }).waitFor()
    await check('graph-edge-selected')
    await panel.getByRole('button', { name: 'Accept link' }).click()
    await s.page.getByText(/^Linked (A|B): .* and (A|B): /).waitFor()
    await s.page.getByText('5 documents, 1 link, 1 suggestion').waitFor()
    const stored = await call('GET', `/api/documents/${ids.A}/links`)
    expect(stored.body.data).toEqual([expect.objectContaining({ status: 'completed', document: expect.objectContaining({ id: ids.B }) })])
  })

  test('a suggestion is dismissed from the list with the keyboard, and stays dismissed', async () => {
    const dismiss = s.page.getByRole('button', { name: /^Dismiss the suggestion between (C|D): .* and (C|D): / })
    await dismiss.focus()
    await s.page.keyboard.press('Enter')
    await s.page.getByText('No pending suggestions', { exact: false }).waitFor()
    expect((await call('GET', `/api/documents/${ids.C}/links`)).body.data).toEqual([])
    await s.go('/app/graph')
    await settled()
    await s.page.getByText('5 documents, 1 link, 0 suggestions').waitFor()
    expect(s.problems).toEqual([])
  })

  test('clicking a node focuses it; its panel opens the document', async () => {
    const other = await pointOf(ids.OTHER!)
    await s.page.mouse.click(other.x, other.y)
    await s.page.locator('.focus-panel').getByRole('link', { name: 'Open the document' }).click()
    await s.page.waitForURL(new RegExp(`/app/documents/${ids.OTHER}$`))
    await s.page.getByRole('heading', { name: /^OTHER: /, level: 1 }).waitFor()
  })

  test('at 375 px in dark mode the graph and the API keys screen fit and stay accessible', async () => {
    const narrow = await h.open({ width: 375, height: 760, colorScheme: 'dark' })
    await narrow.context.addCookies(await s.context.cookies())
    await narrow.go('/app/graph')
    await settled(narrow)
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await check('graph-375-dark', narrow)
    await narrow.go('/app/keys')
    await narrow.page.getByRole('heading', { name: 'Integrations' }).waitFor()
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
    await check('keys-375-dark', narrow)
    await narrow.close()
  })

  test('a workspace of 2,100 documents is drawn truncated at 2,000 and stays usable', async () => {
    const { db } = h.server.deps
    const me = (await call('GET', '/api/auth/session')).body.user
    const workspace = (await call('POST', '/api/workspaces', { name: 'Big' })).body.id
    const now = Date.now()
    const rows = Array.from({ length: 2100 }, (_, i) => ({
      id: h.server.deps.ids.next(),
      user_id: me.id,
      workspace_id: workspace,
      title: `Note ${i}`,
      excerpt: `note ${i}`,
      body: `note ${i}`,
      kind: i % 5 === 0 ? 'fact' : 'note',
      status: 'active',
      source: 'api',
      content_hash: `hash-${i}`,
      size_bytes: 10,
      updated_at: new Date(now - i * 1000),
      created_at: new Date(now - i * 1000),
    }))
    for (let i = 0; i < rows.length; i += 500) await db.insert(documents).values(rows.slice(i, i + 500))
    // A chain through the first 1,500, every tenth one a suggestion.
    const chain = rows
      .slice(0, 1500)
      .slice(1)
      .map((row, i) => ({
        id: h.server.deps.ids.next(),
        user_id: me.id,
        source_id: rows[i]!.id,
        target_id: row.id,
        score: 0.5 + (i % 50) / 100,
        status: i % 10 === 0 ? 'pending' : 'completed',
        origin: 'suggested',
      }))
    for (let i = 0; i < chain.length; i += 500) await db.insert(links).values(chain.slice(i, i + 500))

    await s.go('/app/graph?limit=2000')
    await s.page.locator('.graph-screen select').first().selectOption({ label: 'Big' })
    await s.page.getByText(/^Truncated: showing the 2,000 most recently updated documents/).waitFor()
    await s.page.getByText('2,000 documents, 1,349 links, 150 suggestions').waitFor()
    await settled()
    await check('graph-2000')
    // The keyboard list pages: the first 50 suggestions, then all of them on request.
    expect(await s.page.locator('table.suggestions tbody tr').count()).toBe(50)
    await s.page.getByRole('button', { name: 'Show all 150' }).click()
    expect(await s.page.locator('table.suggestions tbody tr').count()).toBe(150)
    const node = await pointOf(rows[1234]!.id)
    await s.page.mouse.click(node.x, node.y)
    await s.page.locator('.focus-panel').getByRole('link', { name: 'Open the document' }).click()
    await s.page.waitForURL(/\/app\/documents\//)
    await s.page.getByRole('heading', { level: 1 }).waitFor()
  })
})
