// Connector syncs when things go wrong, end to end through the real HTTP flow and job worker against the
// provider fakes: a worker dying mid-sync, a plan limit reached halfway, tokens that expire, are refused or
// rotate, a provider failing or throttling, a disconnect with a sync queued, a connector removed, and a
// selection narrowed. Each story makes its own user and its own corner of the fake's workspace (a Notion root
// page, a Confluence space, a Drive folder), so one fake per provider serves every story.
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { connections, jobs, subscriptions } from '../../db/schema'
import { openAccessToken, openRefreshToken } from '../../src/connectors/connection-tokens'
import { drainJobs, runNextJob, STALE_AFTER_MS } from '../../src/jobs/worker'
import { startConfluenceFake, type ConfluenceFake } from '../fakes/confluence'
import { startGoogleDriveFake, type FakeGoogleDrive } from '../fakes/google-drive'
import { block, startNotionFake, type NotionFake } from '../fakes/notion'
import { createTestApp, type TestApp } from '../harness'
import { CALLBACK, connect, consent, lastRun, lockstep, runSyncs, storedDocuments, syncNow } from './resilience.helpers'

let t: TestApp
let notion: NotionFake
let confluence: ConfluenceFake
let drive: FakeGoogleDrive

beforeAll(async () => {
  notion = startNotionFake({ callbackUrl: CALLBACK, workspaceName: 'Acme Notion' })
  confluence = startConfluenceFake({ callbackUrl: CALLBACK, maxLimit: 2 })
  drive = startGoogleDriveFake({ callbackUrl: CALLBACK })
  t = await createTestApp({ env: { ...notion.env, ...confluence.env, ...drive.env, PLAN_FREE_CONNECTORS: '10' } })
})
afterAll(async () => {
  await t.close()
  await Promise.all([notion.stop(), confluence.stop(), drive.stop()])
})
// A story that fails halfway must not leave the next one a broken provider.
afterEach(() => {
  for (const fake of [notion, confluence, drive]) {
    fake.failApi(null)
    fake.gateApi(null)
    fake.rateLimitNext(0)
  }
})

/** A Notion root page with child pages, each body opening and closing with a phrase only it has. */
function notionTree(title: string, children: number, paragraph = (name: string) => `${name} notes`) {
  const page = (name: string, parent?: string) => ({
    title: name,
    id: notion.addPage({
      title: name,
      parent,
      blocks: [block('paragraph', `${name} begins here`), block('paragraph', paragraph(name)), block('paragraph', `${name} ends here`)],
    }),
  })
  const root = page(title)
  const pages = [root, ...Array.from({ length: children }, (_, i) => page(`${title} ${i + 1}`, root.id))]
  return { root: root.id, pages, config: { pages: [root.id] } }
}

const complete = (doc: { title: string; body: string }) =>
  doc.body.includes(`${doc.title} begins here`) && doc.body.includes(`${doc.title} ends here`)
const refreshes = (fake: { requests: { path: string; body: unknown }[] }, tokenPath: string) =>
  fake.requests.filter((r) => r.path === tokenPath && (r.body as Record<string, string> | undefined)?.grant_type === 'refresh_token')
const connectionRow = async (id: string) => (await t.deps.db.select().from(connections).where(eq(connections.id, id)))[0]!

describe('a worker that dies mid-sync', () => {
  test('is replaced once its claim is stale: the same run resumes and finishes, nothing lost or imported twice, and the dead worker writes nothing when it wakes', async () => {
    const user = await t.signUp()
    const tree = notionTree('Field Guide', 5)
    const c = await connect(t, user, 'notion', tree.config)

    // Worker A takes the sync; the fake answers it one request at a time until some pages are stored (contents
    // are fetched a few at a time, so "some" is a batch).
    const gate = lockstep(notion)
    const before = notion.requests.length
    const workerA = runNextJob(t.deps, 'worker-A', ['sync-connector'])
    await gate.arrived(before)
    while ((await storedDocuments(t, c.id)).length < 2) await gate.step()
    // A's next request is left hanging: A is as good as dead, still holding its claim.
    const hanging = gate.held()
    notion.gateApi(null)
    const storedByA = (await storedDocuments(t, c.id)).length
    expect(storedByA).toBeLessThan(tree.pages.length)
    expect(await lastRun(t, user, c.id)).toMatchObject({ id: c.runId, status: 'running', added: storedByA })

    // Before the claim is stale nobody else may take the job; after it, worker B does.
    expect(await drainJobs(t.deps, 'worker-B', ['sync-connector'])).toBe(0)
    t.clock.advance(STALE_AFTER_MS + 1_000)
    expect(await drainJobs(t.deps, 'worker-B', ['sync-connector'])).toBe(1)
    const finished = await lastRun(t, user, c.id)
    expect(finished).toMatchObject({ id: c.runId, status: 'succeeded', added: tree.pages.length, updated: 0, removed: 0, error: null })
    const stored = await storedDocuments(t, c.id)
    expect(stored.map((d) => d.external_id).sort()).toEqual(tree.pages.map((p) => p.id).sort())
    expect(stored.every(complete)).toBe(true)
    // B took over A's job (a second attempt), not a new one.
    const [job] = await t.deps.db.select().from(jobs).where(sql`${jobs.payload}->>'run_id' = ${c.runId}`)
    expect(job).toMatchObject({ status: 'succeeded', attempts: 2 })

    // A wakes up: its heartbeat finds the claim lost, so it stops without writing anything.
    hanging.open()
    expect(await workerA).toBe(true)
    expect(await storedDocuments(t, c.id)).toEqual(stored)
    expect(await lastRun(t, user, c.id)).toEqual(finished)
    expect((await t.deps.db.select().from(jobs).where(eq(jobs.id, job!.id)))[0]).toEqual(job!)
  })
})

describe('plan limits reached mid-sync', () => {
  let limited: TestApp
  beforeAll(async () => {
    // The same Notion fake behind an app whose free plan holds 3 documents and 20,000 bytes.
    limited = await createTestApp({ env: { ...notion.env, PLAN_FREE_DOCUMENTS: '3', PLAN_FREE_STORAGE_BYTES: '20000' } })
  })
  afterAll(() => limited.close())
  // An upgrade is a paying subscription (the plan stored with the account at sign-up is not read).
  const upgrade = (userId: string) => limited.deps.db.insert(subscriptions).values({ user_id: userId, plan: 'pro', status: 'active' })

  test('the document limit stops the run with a message naming it, the documents in are whole, and an upgrade brings in the rest', async () => {
    const user = await limited.signUp()
    const tree = notionTree('Recipes', 4)
    const c = await connect(limited, user, 'notion', tree.config)
    await runSyncs(limited)
    const run = await lastRun(limited, user, c.id)
    expect(run).toMatchObject({ status: 'failed', added: 3 })
    expect(run.error).toStartWith('stopped: document limit reached')
    const stored = await storedDocuments(limited, c.id)
    expect(stored).toHaveLength(3)
    expect(stored.every(complete)).toBe(true)

    await upgrade(user.id)
    expect(await syncNow(limited, user, c.id)).toMatchObject({ status: 'succeeded', added: 2, updated: 0, removed: 0 })
    expect((await storedDocuments(limited, c.id)).map((d) => d.external_id).sort()).toEqual(tree.pages.map((p) => p.id).sort())
  })

  test('the storage limit stops the run the same way', async () => {
    const user = await limited.signUp()
    // About 8 KB a page: two fit in 20,000 bytes, the third does not.
    const tree = notionTree('Atlas', 2, (name) => `${name} ${'survey '.repeat(1_150)}`)
    const c = await connect(limited, user, 'notion', tree.config)
    await runSyncs(limited)
    const run = await lastRun(limited, user, c.id)
    expect(run).toMatchObject({ status: 'failed', added: 2 })
    expect(run.error).toStartWith('stopped: storage limit reached')
    const stored = await storedDocuments(limited, c.id)
    expect(stored).toHaveLength(2)
    expect(stored.every(complete)).toBe(true)

    await upgrade(user.id)
    expect(await syncNow(limited, user, c.id)).toMatchObject({ status: 'succeeded', added: 1 })
    expect(await storedDocuments(limited, c.id)).toHaveLength(3)
  })
})

describe('an access token past its expiry', () => {
  // An app of its own: moving its clock two hours must not age the other stories' tokens.
  let later: TestApp
  beforeAll(async () => {
    later = await createTestApp({ env: drive.env })
  })
  afterAll(() => later.close())

  /** A Drive connector synced once, then two hours later (its token lasts one) a new file upstream. */
  async function twoHoursLater(folderName: string) {
    const user = await later.signUp()
    const folder = drive.addFolder(folderName)
    drive.addFile({ name: 'ferns.txt', content: 'Ferns like shade.', parents: [folder.id] })
    drive.addFile({ name: 'ivy.txt', content: 'Ivy climbs.', parents: [folder.id] })
    const c = await connect(later, user, 'google_drive', { folders: [folder.id] })
    expect(await drainJobs(later.deps, 'test-worker', ['sync-connector'])).toBe(1)
    const row = async () => (await later.deps.db.select().from(connections).where(eq(connections.id, c.connectionId)))[0]!
    const oldToken = openAccessToken(later.deps, await row())
    later.clock.advance(2 * 60 * 60_000)
    drive.addFile({ name: 'moss.txt', content: 'Moss likes damp.', parents: [folder.id] })
    const from = drive.requests.length
    expect(await syncNow(later, user, c.id)).toMatchObject({ status: 'succeeded', added: 1 })
    const seen = drive.requests.slice(from)
    return {
      seen,
      apiCalls: seen.filter((r) => r.path.startsWith('/drive/')),
      oldToken,
      newToken: openAccessToken(later.deps, await row()),
    }
  }

  test('is refreshed before the call: the expired token never reaches the API, and the new one is stored and used', async () => {
    const { seen, apiCalls, oldToken, newToken } = await twoHoursLater('Expiry Notes')
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/token', body: { grant_type: 'refresh_token' } })
    expect(newToken).not.toBe(oldToken)
    expect(apiCalls.length).toBeGreaterThan(0)
    expect(apiCalls.some((r) => r.headers.authorization === `Bearer ${oldToken}`)).toBe(false)
    expect(apiCalls.at(-1)!.headers.authorization).toBe(`Bearer ${newToken}`)
  })

  // Expiry is reckoned on the service's clock, so a refreshed token is good for its whole lifetime.
  test('once refreshed, the fresh token lasts the rest of the sync: one refresh, not one per call', async () => {
    const { seen, apiCalls, newToken } = await twoHoursLater('Expiry Ledger')
    expect(seen.filter((r) => r.path === '/token')).toHaveLength(1)
    expect(apiCalls.every((r) => r.headers.authorization === `Bearer ${newToken}`)).toBe(true)
  })
})

describe('tokens', () => {
  test('a token the provider stops accepting (401) is refreshed once and the sync goes on', async () => {
    const user = await t.signUp()
    const tree = notionTree('Garden', 1)
    const c = await connect(t, user, 'notion', tree.config)
    await runSyncs(t)
    const oldToken = openAccessToken(t.deps, await connectionRow(c.connectionId))

    notion.expireAccessTokens()
    notion.addPage({ title: 'Garden compost', parent: tree.root, blocks: [block('paragraph', 'Turn it weekly')] })
    const from = refreshes(notion, '/v1/oauth/token').length
    expect(await syncNow(t, user, c.id)).toMatchObject({ status: 'succeeded', added: 1 })
    expect(refreshes(notion, '/v1/oauth/token').length - from).toBe(1)
    expect(openAccessToken(t.deps, await connectionRow(c.connectionId))).not.toBe(oldToken)
  })

  test('Confluence rotates the refresh token on every refresh: the rotated one is stored, so refreshes keep working', async () => {
    const user = await t.signUp()
    confluence.addSpace({ key: 'ROT', name: 'Rotation' })
    const page = confluence.addPage('ROT', { title: 'Shift plan', body: '<p>Week one: the heron shift.</p>' })
    const c = await connect(t, user, 'confluence', { spaces: ['ROT'] })
    await runSyncs(t)

    const sent: string[] = []
    for (const week of ['two', 'three']) {
      confluence.expireAccessTokens()
      confluence.editPage(page.id, { body: `<p>Week ${week}: the heron shift.</p>` })
      const from = refreshes(confluence, '/oauth/token').length
      expect(await syncNow(t, user, c.id)).toMatchObject({ status: 'succeeded', updated: 1 })
      const made = refreshes(confluence, '/oauth/token').slice(from)
      expect(made).toHaveLength(1)
      sent.push((made[0]!.body as Record<string, string>).refresh_token!)
    }
    // Each refresh spent a different token, and what is stored now is the one the last refresh handed back.
    expect(sent[0]).not.toBe(sent[1])
    expect(openRefreshToken(t.deps, await connectionRow(c.connectionId))).not.toBe(sent[1])
    expect((await storedDocuments(t, c.id))[0]!.body).toContain('Week three')
  })

  test('a grant revoked at the provider fails the run with a message to reconnect, and removes nothing', async () => {
    const user = await t.signUp()
    const tree = notionTree('Orchard', 2)
    const c = await connect(t, user, 'notion', tree.config)
    await runSyncs(t)
    const stored = await storedDocuments(t, c.id)
    expect(stored).toHaveLength(3)

    // The user removes the integration in Notion: its grant ends, access and refresh token alike.
    const access = openAccessToken(t.deps, await connectionRow(c.connectionId))
    const revoked = await fetch(notion.env.NOTION_REVOKE_URL!, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa(`${notion.clientId}:${notion.clientSecret}`)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token: access }),
    })
    expect(revoked.status).toBe(200)
    notion.trashPage(tree.pages[2]!.id)

    const run = await syncNow(t, user, c.id)
    expect(run).toMatchObject({ status: 'failed', removed: 0 })
    expect(run.error).toContain('reconnect')
    expect(await storedDocuments(t, c.id)).toEqual(stored)
  })
})

describe('provider failures', () => {
  test('a provider answering 500 through every retry fails the run with its status and removes nothing; a throttled one is waited for', async () => {
    const user = await t.signUp()
    const tree = notionTree('Lab Book', 2)
    const c = await connect(t, user, 'notion', tree.config)
    await runSyncs(t)
    const stored = await storedDocuments(t, c.id)
    notion.trashPage(tree.pages[2]!.id)

    // The back-off waits are recorded, not slept: the schedule is the point, not the seconds.
    const sleep = spyOn(Bun, 'sleep').mockImplementation(async () => {})
    try {
      notion.failApi(500)
      const from = notion.requests.length
      const failed = await syncNow(t, user, c.id)
      expect(failed).toMatchObject({ status: 'failed', removed: 0, added: 0 })
      expect(failed.error).toContain('500')
      expect(notion.requests.slice(from).filter((r) => r.path === '/v1/search')).toHaveLength(5)
      expect(sleep.mock.calls.map(([ms]) => ms)).toEqual([500, 1_000, 2_000, 4_000])
      // An incomplete listing removes nothing, not even the page that really is gone.
      expect(await storedDocuments(t, c.id)).toEqual(stored)
    } finally {
      sleep.mockRestore()
    }

    notion.failApi(null)
    notion.rateLimitNext(2, 0)
    expect(await syncNow(t, user, c.id)).toMatchObject({ status: 'succeeded', removed: 1, error: null })
    expect((await storedDocuments(t, c.id)).map((d) => d.title)).toEqual(['Lab Book', 'Lab Book 1'])
  })
})

describe('disconnecting and reconnecting', () => {
  test('a disconnect fails the queued sync and its job does nothing; authorizing again makes the connector active and it syncs', async () => {
    const user = await t.signUp()
    const tree = notionTree('Ledger', 1)
    const c = await connect(t, user, 'notion', tree.config)
    expect((await t.json('DELETE', `/api/connectors/connections/${c.connectionId}`, { key: user.key })).status).toBe(204)
    expect(await lastRun(t, user, c.id)).toMatchObject({ id: c.runId, status: 'failed', error: 'the connection was disconnected' })

    const from = notion.requests.length
    expect(await runSyncs(t)).toBe(1)
    expect(notion.requests.length).toBe(from)
    expect(await lastRun(t, user, c.id)).toMatchObject({ id: c.runId, status: 'failed', added: 0 })
    expect(await storedDocuments(t, c.id)).toEqual([])

    const again = await t.json('POST', `/api/connectors/${c.id}/authorize`, { key: user.key, body: {} })
    expect(again.status).toBe(200)
    const back = await consent(t, again.body.authorization_url, user.cookie)
    expect(back.status).toBe(200)
    const reconnected = (await back.json()) as any
    expect(reconnected.connector).toMatchObject({ id: c.id, status: 'active' })
    expect(reconnected.connector.connection_id).toBeString()
    await runSyncs(t)
    expect(await lastRun(t, user, c.id)).toMatchObject({ id: reconnected.sync_run.id, status: 'succeeded', added: 2 })
  })

  test('connecting the same provider account for a second connector reuses its one connection', async () => {
    const user = await t.signUp()
    const first = await connect(t, user, 'notion', notionTree('Shelf A', 0).config)
    const second = await connect(t, user, 'notion', notionTree('Shelf B', 0).config)
    expect(second.connectionId).toBe(first.connectionId)
    const list = await t.json('GET', '/api/connectors/connections', { key: user.key })
    expect(list.body.data).toHaveLength(1)
    expect(list.body.data[0]).toMatchObject({ id: first.connectionId, provider: 'notion', connectors: 2 })
    // Both sync through it.
    await runSyncs(t)
    expect(await lastRun(t, user, first.id)).toMatchObject({ status: 'succeeded', added: 1 })
    expect(await lastRun(t, user, second.id)).toMatchObject({ status: 'succeeded', added: 1 })
  })
})

describe('removing a connector', () => {
  test('keeps the documents it brought by default, and deletes them with ?delete_documents=true', async () => {
    const user = await t.signUp()
    const tree = notionTree('Archive', 1)
    const kept = await connect(t, user, 'notion', tree.config)
    await runSyncs(t)
    const keptDocs = await storedDocuments(t, kept.id)
    expect(keptDocs).toHaveLength(2)
    expect((await t.json('DELETE', `/api/connectors/${kept.id}`, { key: user.key })).status).toBe(204)
    expect((await t.json('GET', `/api/connectors/${kept.id}`, { key: user.key })).status).toBe(404)
    for (const d of keptDocs) expect((await t.json('GET', `/api/documents/${d.id}`, { key: user.key })).status).toBe(200)

    const dropped = await connect(t, user, 'notion', tree.config)
    await runSyncs(t)
    const droppedDocs = await storedDocuments(t, dropped.id)
    expect(droppedDocs).toHaveLength(2)
    expect((await t.json('DELETE', `/api/connectors/${dropped.id}?delete_documents=true`, { key: user.key })).status).toBe(204)
    for (const d of droppedDocs) expect((await t.json('GET', `/api/documents/${d.id}`, { key: user.key })).status).toBe(404)
    // The first connector's documents are not its to delete.
    for (const d of keptDocs) expect((await t.json('GET', `/api/documents/${d.id}`, { key: user.key })).status).toBe(200)
  })
})

describe('changing the selection', () => {
  test('the next sync after narrowing it removes the documents of what was deselected', async () => {
    const user = await t.signUp()
    confluence.addSpace({ key: 'OPS', name: 'Operations' })
    confluence.addSpace({ key: 'SALES', name: 'Sales' })
    confluence.addPage('OPS', { title: 'On-call', body: '<p>The otter rota.</p>' })
    confluence.addPage('SALES', { title: 'Pricing', body: '<p>The lynx tier.</p>' })
    confluence.addPage('SALES', { title: 'Territories', body: '<p>The ibex region.</p>' })
    const c = await connect(t, user, 'confluence', { spaces: ['OPS', 'SALES'] })
    await runSyncs(t)
    expect((await storedDocuments(t, c.id)).map((d) => d.title)).toEqual(['On-call', 'Pricing', 'Territories'])

    const patched = await t.json('PATCH', `/api/connectors/${c.id}`, { key: user.key, body: { config: { spaces: ['OPS'] } } })
    expect(patched.status).toBe(200)
    expect(patched.body.config).toEqual({ spaces: ['OPS'] })
    expect(await syncNow(t, user, c.id)).toMatchObject({ status: 'succeeded', added: 0, removed: 2 })
    expect((await storedDocuments(t, c.id)).map((d) => d.title)).toEqual(['On-call'])
  })
})
