// The review queue in a real browser, with drafts an agent made through the API with its key (batch-draft,
// and an edit of an approved memory, which becomes a draft superseding it): metadata shown, the supersedes
// change as a word diff, similar memories, approve / edit-then-approve / reject by keyboard (not while typing),
// bulk approve; then Memories by kind and the context pack under an adjustable budget. axe and screenshots.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { axeViolations, chromiumMissing, settle, signUpInBrowser, startHarness, type Harness, type Session } from './browser'

const missing = chromiumMissing()
let h: Harness
let s: Session
let key = ''
let workspace = ''
const ids: Record<string, string> = {}

beforeAll(async () => {
  if (missing) return
  h = await startHarness()
  s = await h.open()
  await signUpInBrowser(s)
  key = (await asPerson('POST', '/api/keys', { label: 'agent' })).body.key
  workspace = (await asPerson('GET', '/api/workspaces')).body.data[0].id
  // Memories a person saved (active): one the agent will revise, one a draft will duplicate.
  ids.deploy = (
    await asPerson('POST', '/api/documents', { title: 'Deploy day', body: 'We deploy on Tuesdays.', kind: 'decision', source: 'api' })
  ).body.id
  ids.coffee = (
    await asPerson('POST', '/api/documents', {
      title: 'Coffee machine location',
      body: 'The coffee machine is on floor 3.',
      kind: 'fact',
      source: 'api',
    })
  ).body.id
  const batch = await asAgent('POST', '/api/memories/batch-draft', {
    workspace_id: workspace,
    learnings: [
      {
        kind: 'preference',
        title: 'Prefers short answers',
        body: 'Keep answers to **three sentences** or fewer.',
        metadata: { topic: 'style', confidence: 0.9, evidence: 'User: "keep it short, please"', conversation_id: crypto.randomUUID() },
      },
      {
        kind: 'fact',
        title: 'Coffee machine floor',
        body: 'The coffee machine is on floor 3, by the kitchen.',
        metadata: { confidence: 0.4 },
      },
      { kind: 'lesson', title: 'Friday deploys', body: 'Deploys on Fridays went badly.' },
      { kind: 'decision', title: 'Use MongoDB', body: 'We will move everything to MongoDB.' },
      { kind: 'routine', title: 'Standup at 9', body: 'Standup is at 09:00 every weekday.' },
      { kind: 'routine', title: 'Retro on Fridays', body: 'The team holds a retro every other Friday.' },
    ],
  })
  expect(batch.status).toBe(201)
  for (const d of batch.body.data) ids[d.title] = d.id
  // An agent's edit of an approved memory is a new draft that supersedes it.
  const revised = await asAgent('PATCH', `/api/documents/${ids.deploy}`, { body: 'We deploy on Thursdays, after the release review.' })
  expect(revised.status).toBe(202)
  ids.revised = revised.body.id
}, 60_000) // a server, a browser and the data a story starts from: more than the default 5 s under load
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
const statusOf = async (id: string) => (await asPerson('GET', `/api/documents/${id}`)).body

async function check(name: string) {
  await settle(s.page)
  expect(await axeViolations(s.page)).toEqual([])
  expect(s.problems).toEqual([])
  await s.shot(name)
}

const card = (title: string) => s.page.locator('article.draft', { has: s.page.getByRole('heading', { name: title, level: 2 }) })
const selectedTitle = () => s.page.locator('.queue-item.selected .queue-title').innerText()
/** Selects the draft titled `title` in the list; its detail shows beside it. */
async function pick(title: string) {
  await s.page.locator('.queue-pick', { hasText: title }).click()
  await card(title).waitFor()
}

/** Moves the selection with j/k to the draft titled `title`. */
async function goTo(title: string) {
  const titles = await s.page.locator('.queue-title').allInnerTexts()
  const from = titles.indexOf(await selectedTitle())
  const to = titles.indexOf(title)
  expect(to).toBeGreaterThanOrEqual(0)
  for (let i = from; i !== to; i += Math.sign(to - from)) await s.page.keyboard.press(to > from ? 'j' : 'k')
  expect(await selectedTitle()).toBe(title)
}

describe.skipIf(!!missing)('the review queue', () => {
  test('every draft is shown with what the agent said about it; a revision beside the memory it replaces', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Review', exact: true }).click()
    await page.getByRole('heading', { name: 'Review', level: 1 }).waitFor()
    await page.locator('article.draft').first().waitFor()
    expect(await page.locator('.queue-item').count()).toBe(7)
    await pick('Prefers short answers')
    const pref = card('Prefers short answers')
    const meta = await pref.locator('.meta').innerText()
    expect(meta).toContain('topic: style')
    expect(meta).toContain('confidence 90%')
    expect(meta).toContain('from agent')
    expect(await pref.locator('.evidence').innerText()).toContain('User: "keep it short, please"')
    expect(await pref.locator('.draft-body strong').innerText()).toBe('three sentences')
    expect(await pref.getByRole('link', { name: 'the conversation' }).getAttribute('href')).toMatch(/^\/app\/ask\/[0-9a-f-]{36}$/)

    await pick('Deploy day')
    const revision = card('Deploy day')
    // The revision as a word diff of the memory it replaces: the old day struck, the new words added.
    await revision.locator('.compare .diff-body').waitFor()
    expect(await revision.locator('.compare .diff-body del').allTextContents()).toEqual(['[removed: Tuesdays.]'])
    expect(await revision.locator('.compare .diff-body ins').allTextContents()).toEqual(['[added: Thursdays, after the release review.]'])
    await check('review')
  })

  test('similar memories are offered as possible duplicates', async () => {
    await s.page.locator('article.draft').first().click()
    await goTo('Coffee machine floor')
    const similar = card('Coffee machine floor').locator('.similar')
    await similar.getByRole('link', { name: 'Coffee machine location' }).waitFor()
  })

  test('keys approve, edit then approve, and reject — but not while typing in a field', async () => {
    const { page } = s
    await goTo('Deploy day')
    await page.keyboard.press('a')
    await page.getByText('Approved: “Deploy day” is now a memory').waitFor()
    expect(await page.locator('.queue-item').count()).toBe(6)
    expect((await statusOf(ids.revised!)).status).toBe('active')
    expect((await statusOf(ids.deploy!)).status).toBe('archived')

    await goTo('Friday deploys')
    await page.keyboard.press('e')
    const title = card('Friday deploys').getByLabel('Title')
    await title.waitFor()
    // Typing in the form is typing: j, k, a, r and e go into the field, nothing is approved or rejected.
    await title.fill('')
    await title.pressSequentially('No deploys on Fridays jk are')
    expect(await page.locator('.queue-item').count()).toBe(6)
    await card('Friday deploys').getByLabel(/^Body/).fill('Deploys on Fridays went badly twice: **deploy Monday to Thursday**.')
    await page.getByRole('button', { name: 'Save and approve' }).click()
    await page.getByText('Edited and approved: “No deploys on Fridays jk are” is now a memory').waitFor()
    const edited = await statusOf(ids['Friday deploys']!)
    expect([edited.status, edited.title, edited.body]).toEqual([
      'active',
      'No deploys on Fridays jk are',
      'Deploys on Fridays went badly twice: **deploy Monday to Thursday**.',
    ])

    await goTo('Use MongoDB')
    await page.keyboard.press('r')
    await page.getByText(/Rejected: “Use MongoDB” is archived/).waitFor()
    expect((await statusOf(ids['Use MongoDB']!)).status).toBe('archived')
    expect(await page.locator('.queue-item').count()).toBe(4)
    expect(s.problems).toEqual([])
  })

  test('bulk approve of the selected drafts, then the rest one by one', async () => {
    const { page } = s
    await page.getByRole('checkbox', { name: 'Select “Standup at 9”' }).check()
    await page.getByRole('checkbox', { name: 'Select “Retro on Fridays”' }).check()
    await page.getByRole('button', { name: 'Approve selected' }).click()
    await page.getByText('Approved 2 drafts').waitFor()
    expect((await statusOf(ids['Standup at 9']!)).status).toBe('active')
    expect((await statusOf(ids['Retro on Fridays']!)).status).toBe('active')
    await pick('Prefers short answers')
    await card('Prefers short answers').getByRole('button', { name: 'Approve' }).click()
    await page.getByText('Approved: “Prefers short answers” is now a memory').waitFor()
    await pick('Coffee machine floor')
    await card('Coffee machine floor').getByRole('button', { name: 'Reject', exact: true }).click()
    await page.getByText(/Nothing waiting for review/).waitFor()
    await check('review-empty')
  })

  test('Memories lists the active memories by kind', async () => {
    const { page } = s
    await page.getByRole('link', { name: 'Memories', exact: true }).click()
    await page.getByRole('heading', { name: 'Memories', level: 1 }).waitFor()
    const group = (kind: string) =>
      page.locator('.kind-group', { has: page.getByRole('heading', { name: new RegExp(`^${kind}`), level: 3 }) })
    await group('Decisions').getByRole('link', { name: 'Deploy day' }).waitFor()
    expect(await group('Routines').locator('.doc-title').allInnerTexts()).toEqual(
      expect.arrayContaining(['Standup at 9', 'Retro on Fridays']),
    )
    expect(await group('Facts').locator('.doc-title').allInnerTexts()).toEqual(['Coffee machine location'])
    // Rejected and superseded ones are not memories any more.
    expect(await page.getByRole('link', { name: 'Use MongoDB' }).count()).toBe(0)
    await page.getByLabel('Kind').selectOption('routine')
    await page.waitForURL(/kind=routine/)
    // The URL changes before the filtered list is fetched, so network idle can come before the new list: wait for
    // the one group (a timeout here is the failure), then check which it is.
    await page.waitForFunction(() => document.querySelectorAll('.kind-group').length === 1, undefined, { timeout: 10_000 })
    await settle(page)
    expect(await page.locator('.kind-group').count()).toBe(1)
    expect(await group('Routines').count()).toBe(1)
    await s.go('/app/memories')
  })

  test('the context pack is what an agent gets, trimmed to the budget chosen', async () => {
    const { page } = s
    const pack = page.locator('.context-pack')
    await pack.getByText(/About [\d,]+ tokens of a 2,000 budget · nothing left out/).waitFor()
    await pack.getByRole('heading', { name: /^Routines/ }).waitFor()
    await check('memories')
    await pack.getByRole('spinbutton', { name: 'Token budget', exact: true }).fill('50')
    await pack.getByRole('spinbutton', { name: 'Token budget', exact: true }).press('Tab')
    await pack.getByText(/of a 50 budget · trimmed: some items were left out to fit/).waitFor()
    // The JSON shown is the very JSON the API gives an agent with that budget.
    await pack.getByText(/The JSON an agent receives/).click()
    const shown = JSON.parse(await pack.locator('pre').innerText())
    const res = await fetch(`${h.server.url}/api/workspaces/${workspace}/context?max_tokens=50`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(shown).toEqual(await res.json())
    expect(shown.truncated).toBe(true)
    await pack.getByRole('checkbox', { name: /Token budget/ }).uncheck()
    await pack.getByText(/\(no budget\) · nothing left out/).waitFor()
    expect(await pack.locator('.pack-section').count()).toBeGreaterThanOrEqual(3)
    expect(s.problems).toEqual([])
  })

  test('at 375 px in the dark the queue and memories stay readable', async () => {
    await asAgent('POST', '/api/memories/batch-draft', {
      workspace_id: workspace,
      learnings: [{ kind: 'fact', title: 'Parking', body: 'Parking is in the basement.', metadata: { supersedes: ids.coffee } }],
    })
    const narrow = await h.open({ width: 375, height: 760, colorScheme: 'dark' })
    await narrow.context.addCookies(await s.context.cookies())
    await narrow.go('/app/review')
    await narrow.page.locator('.compare .diff-body del').first().waitFor()
    expect(await axeViolations(narrow.page)).toEqual([])
    await narrow.shot('review-375-dark')
    await narrow.go('/app/memories')
    expect(await axeViolations(narrow.page)).toEqual([])
    await narrow.shot('memories-375-dark')
    expect(narrow.problems).toEqual([])
    await narrow.close()
  })
})
