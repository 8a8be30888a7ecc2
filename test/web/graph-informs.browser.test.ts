// A graph that informs (issue 28, story 6) in a real Chromium, over 150 documents and memories made by bulk ingest,
// a hub linked to twelve of them, scored suggestions and a memory drafted from a thread: the graph opens on the
// default workspace (not the newest), nodes are coloured by kind or by tag with a legend, the memory is joined to
// its conversation, ?focus= (a document's "Show in graph") focuses a node and lists its neighbours, and every
// suggestion at or above a score is accepted in one action. axe-core and screenshots at desktop and 375 px,
// light and dark.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { links } from '../../db/schema'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let ids: string[] = []
let hub = ''
let defaultWorkspace = ''

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
}

const settled = (session = s) => session.page.waitForSelector('canvas.graph-canvas[data-settled="true"]', { timeout: 30_000 })

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  defaultWorkspace = (await call('GET', '/api/settings')).body.default_workspace_id
  const documents = Array.from({ length: 150 }, (_, i) => ({
    workspace_id: defaultWorkspace,
    kind: i % 6 === 0 ? 'fact' : i % 6 === 1 ? 'note' : 'document',
    title: i === 0 ? 'Hub of the project' : `Page ${i}`,
    body: `Page ${i} of the seeded workspace: ${crypto.randomUUID()}`,
    tags: [['alpha', 'beta', 'gamma'][i % 3]!],
  }))
  const made = await call('POST', '/api/documents/bulk', { documents })
  expect(made.status).toBe(200)
  ids = made.body.results.map((r: { document: { id: string } }) => r.document.id)
  hub = ids[0]!
  const me = (await call('GET', '/api/auth/session')).body.user.id
  // The hub linked to twelve; eight suggestions scored 0.55 to 0.9 along a chain elsewhere.
  const link = (source: string, target: string, score: number, status: string) => ({
    id: h.server.deps.ids.next(),
    user_id: me,
    source_id: source,
    target_id: target,
    score,
    status,
    origin: 'suggested',
  })
  await h.server.deps.db
    .insert(links)
    .values([
      ...ids.slice(1, 13).map((id) => link(hub, id, 0.7, 'completed')),
      ...Array.from({ length: 8 }, (_, i) => link(ids[20 + i]!, ids[40 + i]!, 0.55 + i * 0.05, 'pending')),
    ])
  // A memory drafted from a thread's message, approved.
  const thread = await call('POST', '/api/threads', {
    workspace_id: defaultWorkspace,
    title: 'Planning call',
    messages: [{ speaker: 'Ada', content: 'We agreed the hub page is the source of truth.' }],
  })
  expect(thread.status).toBe(201)
  const message = thread.body.results.results[0].document.id
  const draft = await call('POST', '/api/memories/batch-draft', {
    workspace_id: defaultWorkspace,
    learnings: [
      { kind: 'decision', title: 'The hub is the source of truth', body: 'Agreed on the planning call.', metadata: { evidence: message } },
    ],
  })
  expect(draft.status).toBe(201)
  expect((await call('POST', `/api/documents/${draft.body.data[0].id}/approve`)).status).toBe(200)
  // A newer workspace, listed first: the graph must still open on the default one.
  expect((await call('POST', '/api/workspaces', { name: 'Newer and empty' })).status).toBe(201)
})
afterAll(async () => {
  await h?.stop()
})

describe.skipIf(!!missing)('a graph that informs', () => {
  test('opens on the default workspace, coloured by kind with a legend, the memory joined to its conversation', async () => {
    await s.go('/app/graph')
    await settled()
    expect(await s.page.locator('.graph-screen select').first().inputValue()).toBe(defaultWorkspace)
    await s.page.getByText('151 documents, 12 links, 8 suggestions · memories drawn from 1 conversation').waitFor()
    const legendTexts = async () => (await s.page.locator('.graph-legend li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim())
    expect(await legendTexts()).toEqual(
      expect.arrayContaining(['document 100', 'note 25', 'fact 25', 'decision 1', 'evidence of a memory', 'conversation']),
    )
    await check(s, 'graph-informs-kind')
    await s.page.getByLabel('Colour by').selectOption('tag')
    expect(await legendTexts()).toEqual(expect.arrayContaining(['alpha 50', 'beta 50', 'gamma 50', 'other tags or none 1']))
    await check(s, 'graph-informs-tag')
  })

  test("a document's Show in graph focuses it: its neighbours listed, the rest faded, a link to open it", async () => {
    await s.go(`/app/documents/${hub}`)
    await s.page.getByRole('link', { name: 'Show in graph' }).click()
    await s.page.waitForURL(new RegExp(`/app/graph\\?workspace=${defaultWorkspace}&focus=${hub}$`))
    await settled()
    const panel = s.page.locator('.focus-panel')
    await panel.getByRole('heading', { name: 'Focused: Hub of the project' }).waitFor()
    await panel.getByText('12 neighbours').waitFor()
    expect(await panel.locator('.neighbours li').count()).toBe(12)
    expect(await panel.getByRole('link', { name: 'Open the document' }).getAttribute('href')).toBe(`/app/documents/${hub}`)
    await check(s, 'graph-informs-focus')
    // Focus moves to a neighbour from the keyboard; clearing it drops the panel and the URL's focus.
    await panel.getByRole('button', { name: 'Page 1', exact: true }).click()
    await panel.getByRole('heading', { name: 'Focused: Page 1' }).waitFor()
    await panel.getByRole('button', { name: 'Clear focus' }).click()
    expect(await s.page.locator('.focus-panel').count()).toBe(0)
    expect(new URL(s.page.url()).searchParams.get('focus')).toBeNull()
  })

  test('accepts every suggestion at or above the chosen score in one action', async () => {
    await s.go('/app/graph')
    await settled()
    await s.page.getByLabel('Minimum score').fill('0.75')
    await s.page.getByRole('button', { name: 'Accept 4 suggestions at or above 0.75' }).click()
    await s.page.getByText('Accepted 4 suggestions scoring 0.75 or more', { exact: false }).waitFor()
    await s.page.getByText('151 documents, 16 links, 4 suggestions').waitFor()
    const graph = await call('GET', `/api/graph?workspace_id=${defaultWorkspace}`)
    const pending = graph.body.edges.filter((e: { status: string }) => e.status === 'pending')
    expect(pending.every((e: { score: number }) => e.score < 0.75)).toBe(true)
    expect(pending).toHaveLength(4)
    await check(s, 'graph-informs-accepted')
  })

  for (const colorScheme of ['light', 'dark'] as const)
    test(`at 375 px (${colorScheme}) the graph, its legend and the focus panel fit`, async () => {
      const phone = await h.open({ width: 375, height: 760, colorScheme })
      await phone.context.addCookies(await s.context.cookies())
      await phone.go(`/app/graph?focus=${hub}`)
      await settled(phone)
      await phone.page.locator('.focus-panel').waitFor()
      await check(phone, `graph-informs-375-${colorScheme}`)
      await phone.close()
    })

  test('desktop dark', async () => {
    const dark = await h.open({ colorScheme: 'dark' })
    await dark.context.addCookies(await s.context.cookies())
    await dark.go(`/app/graph?focus=${hub}`)
    await settled(dark)
    await check(dark, 'graph-informs-dark')
    await dark.close()
  })
})
