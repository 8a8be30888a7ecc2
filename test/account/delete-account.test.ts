// DELETE /api/account: only with { "confirm": "DELETE" }; then the account is gone at once — every key and
// session fails, the password no longer signs in, the address is free again — and not one row of the person's
// data is left in any table of the database, while everybody else's data is untouched. The tables are
// discovered from the catalog, so a table added later is checked too.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { identities, oauthStates, subscriptions } from '../../db/schema'
import { drainJobs } from '../../src/jobs/worker'
import { flushEvents } from '../../src/modules/usage/events.buffer'
import { startNotionFake, type NotionFake } from '../fakes/notion'
import { BASE, createTestApp, type TestApp, type TestUser } from '../harness'
import { connectConnector, CONNECTOR_CALLBACK } from '../connectors/connect'
import { ask, createWorkspace, IMAGES, ingest, pathOf, uploadAvatar, workspaceIds } from './account.fixtures'

setDefaultTimeout(30_000)

const PASSWORD = 'correct horse battery'

let t: TestApp
let notion: NotionFake
beforeAll(async () => {
  notion = startNotionFake({ callbackUrl: CONNECTOR_CALLBACK })
  // pro: room for a second API key and workspace; hash embeddings: chunks get embedded and links suggested.
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', DEFAULT_PLAN: 'pro', ...notion.env } })
})
afterAll(async () => {
  await t.close()
  await notion.stop()
})

const deleteAccount = (options: { key?: string; cookie?: string; body?: unknown; headers?: Record<string, string> }) =>
  t.request('DELETE', '/api/account', options)
const signIn = (email: string) => t.request('POST', '/api/auth/sign-in', { body: { email, password: PASSWORD } })
const cookieOf = (res: Response) => res.headers.get('set-cookie')!.split(';')[0]!
const documentCount = async (u: TestUser) => (await t.json('GET', '/api/documents?limit=100', { key: u.key })).body.data.length as number

// ---- Counting a user's rows in every table --------------------------------------------------------------

/** Tables that hold no user data and so have no user column. Anything else without one fails the test. */
const GLOBAL_TABLES = new Set([
  'drizzle.__drizzle_migrations', // the migrations drizzle has applied
  'public.processed_webhook_events', // payment-provider event ids already applied (no personal data)
  'public.oauth_clients', // MCP clients' anonymous registrations (RFC 7591): software names and redirect URIs, nobody's data
  'public.sign_in_failures', // failed sign-ins by hashed address or client address, forgotten within the hour
])

interface Table {
  name: string
  /** Columns that name a user: `user_id`, any column with a foreign key to users, and users.id itself. */
  userColumns: string[]
}

/** Every table of the database, with the columns that say whose a row is. */
async function discoverTables(): Promise<Table[]> {
  const rows = await queryRows<{ name: string; columns: string[] | null }>(
    t.deps.db,
    sql`select format('%I.%I', n.nspname, c.relname) as name,
               array(
                 select a.attname::text from pg_attribute a
                 where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                   and (a.attname = 'user_id'
                        or (c.oid = 'public.users'::regclass and a.attname = 'id')
                        or exists (select 1 from pg_constraint f
                                   where f.conrelid = c.oid and f.contype = 'f' and f.confrelid = 'public.users'::regclass
                                     and a.attnum = any (f.conkey)))
                 order by a.attnum
               ) as columns
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\_%'
        order by 1`,
  )
  return rows.map((r) => ({ name: r.name, userColumns: r.columns ?? [] }))
}

/** The user's rows per table (tables with no user column are left out: they are checked to be global). */
async function rowsOf(tables: Table[], userId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const table of tables) {
    if (table.userColumns.length === 0) continue
    const where = sql.join(
      table.userColumns.map((col) => sql`${sql.identifier(col)} = ${userId}`),
      sql` or `,
    )
    const [row] = await queryRows<{ n: number }>(t.deps.db, sql`select count(*)::int as n from ${sql.raw(table.name)} where ${where}`)
    out[table.name] = Number(row!.n)
  }
  return out
}

// ---- A user with data everywhere ---------------------------------------------------------------------

/**
 * Rows that only an outside provider can make through the API (a GitHub sign-in identity and its state, a
 * connection with a connector and a sync run, a Stripe subscription): planted straight into the database,
 * so the cascade is proven for those tables too without faking three providers here.
 */
async function plantIntegrationRows(userId: string) {
  const db = t.deps.db
  const now = t.clock.now()
  await db.insert(identities).values({ id: Bun.randomUUIDv7(), user_id: userId, provider: 'github', provider_user_id: `gh-${userId}` })
  await db
    .insert(oauthStates)
    .values({ id: `state-${userId}`, user_id: userId, provider: 'github', expires_at: new Date(now.getTime() + 600_000) })
  await db.insert(subscriptions).values({ user_id: userId, plan: 'pro', status: 'active' })
}

/** A user with rows in every table a person can fill through the API, plus the planted ones. */
async function populatedUser(label: string): Promise<TestUser & { cookies: string[]; keys: string[]; avatarPath: string }> {
  const u = await t.signUp()
  const second = await t.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'second' } })
  expect(second.status).toBe(201)
  const signedIn = await signIn(u.email)
  expect(signedIn.status).toBe(200)

  const [inbox] = await workspaceIds(t, u)
  const projects = await createWorkspace(t, u, `${label} projects`)
  await t.json('PATCH', '/api/settings', { key: u.key, body: { search_mode: 'keyword', answer_style: 'detailed' } })
  await t.json('PATCH', '/api/profile', { cookie: u.cookie, body: { name: `${label} person` } })
  const avatar = await uploadAvatar(t, u, IMAGES.png.bytes, { type: 'image/png' })
  expect(avatar.status).toBe(200)

  // Documents (chunks, postings, keyword_stats, events, jobs), two near-duplicates for a suggested link,
  // a manual link, a forgotten document (tombstone), an archived one and drafts.
  const a = await ingest(t, u, {
    title: `${label} watering`,
    body: `${label}: the tomatoes are watered every morning at seven with the drip line.`,
  })
  await ingest(t, u, {
    title: `${label} watering`,
    body: `${label}: the tomatoes are watered every morning at seven with the drip line, except when it rains.`,
  })
  const fact = await ingest(t, u, { workspace_id: projects.id, kind: 'fact', body: `${label}: the staging cluster runs in Frankfurt.` })
  const gone = await ingest(t, u, { workspace_id: projects.id, body: `${label}: a secret that must be forgotten.` })
  const old = await ingest(t, u, { body: `${label}: an old roadmap for the shop.` })
  expect((await t.request('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: fact.id } })).status).toBe(201)
  expect((await t.request('POST', `/api/documents/${gone.id}/forget`, { key: u.key })).status).toBe(204)
  expect((await t.request('POST', `/api/documents/${old.id}/archive`, { key: u.key })).status).toBe(200)
  const drafts = await t.json('POST', '/api/memories/batch-draft', {
    key: u.key,
    body: { workspace_id: projects.id, learnings: [{ kind: 'lesson', title: 'Deploys', body: `${label}: no deploys on Fridays.` }] },
  })
  expect(drafts.status).toBe(201)
  await drainJobs(t.deps)
  // Searches and answers: events, rate-limit counters, conversations and messages.
  expect((await t.json('GET', '/api/search?q=tomatoes', { key: u.key })).status).toBe(200)
  await ask(t, u, { question: 'When are the tomatoes watered?' })
  // A stored /v1 response (v1_responses).
  expect(
    (await t.json('POST', '/v1/responses', { key: u.key, body: { model: 'service-rag', input: 'When are the tomatoes watered?' } })).status,
  ).toBe(200)
  // A document still waiting for its embedding job.
  await ingest(t, u, { workspace_id: inbox, body: `${label}: queued for embedding.` })

  // A Notion connector connected through its OAuth flow and synced once (connections, connectors, sync_runs).
  notion.addPage({
    title: `${label} notes`,
    blocks: [
      {
        type: 'paragraph',
        paragraph: {
          rich_text: [{ type: 'text', text: { content: `${label}: synced from Notion.` }, plain_text: `${label}: synced from Notion.` }],
        },
      },
    ],
  })
  await connectConnector(t, u, { type: 'notion', workspace_id: projects.id })
  await drainJobs(t.deps, 'populate', ['sync-connector'])
  await plantIntegrationRows(u.id)
  // Statistics events are written a second behind their request (usage/events.buffer.ts): all of them now.
  await flushEvents(t.deps)
  return { ...u, cookies: [u.cookie, cookieOf(signedIn)], keys: [u.key, second.body.key], avatarPath: pathOf(avatar.body.avatar_url) }
}

// ---- Tests ----------------------------------------------------------------------------------------------

describe('confirmation', () => {
  const refusals: [string, unknown][] = [
    ['no body', undefined],
    ['an empty object', {}],
    ['confirm in lower case', { confirm: 'delete' }],
    ['another word', { confirm: 'yes' }],
    ['confirm: true', { confirm: true }],
    ['" DELETE " with spaces', { confirm: ' DELETE ' }],
  ]
  for (const [what, body] of refusals) {
    test(`${what} → 400; the account and its data stay`, async () => {
      const u = await t.signUp()
      await ingest(t, u, { body: 'Still here after a refused deletion.' })
      const res = await t.json('DELETE', '/api/account', { cookie: u.cookie, body })
      expect(res.status).toBe(400)
      expect(typeof res.body.error).toBe('string')
      if (body !== undefined) expect(res.body.error).toContain('confirm')
      expect(res.headers.get('set-cookie')).toBeNull()

      expect(await documentCount(u)).toBe(1)
      expect((await t.json('GET', '/api/profile', { cookie: u.cookie })).status).toBe(200)
    })
  }

  test('without credentials → 401', async () => {
    expect((await deleteAccount({ body: { confirm: 'DELETE' } })).status).toBe(401)
  })

  test('by cookie without the Origin of the dashboard → 403 and nothing is deleted (a cross-site form cannot delete an account)', async () => {
    const u = await t.signUp()
    const bare = await t.app.handle(
      new Request(`${BASE}/api/account`, {
        method: 'DELETE',
        headers: { cookie: u.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ confirm: 'DELETE' }),
      }),
    )
    expect(bare.status).toBe(403)
    expect(
      (await deleteAccount({ cookie: u.cookie, headers: { origin: 'https://evil.example' }, body: { confirm: 'DELETE' } })).status,
    ).toBe(403)
    expect((await t.json('GET', '/api/profile', { cookie: u.cookie })).status).toBe(200)
  })
})

describe('deleting', () => {
  test('204 with no body; the session cookie is cleared; every key and every session fails at once', async () => {
    const u = await t.signUp()
    const second = (await t.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 'second' } })).body.key as string
    const otherSession = cookieOf(await signIn(u.email))

    const res = await deleteAccount({ cookie: u.cookie, body: { confirm: 'DELETE' } })
    expect(res.status).toBe(204)
    expect(await res.text()).toBe('')
    const cleared = res.headers.get('set-cookie')!
    expect(cleared).toStartWith('session=;')
    expect(cleared).toContain('Max-Age=0')
    expect(cleared).toContain('Path=/')

    for (const key of [u.key, second]) {
      const r = await t.json('GET', '/api/documents', { key })
      expect(r.status).toBe(401)
    }
    for (const cookie of [u.cookie, otherSession]) expect((await t.json('GET', '/api/auth/session', { cookie })).status).toBe(401)
    // Deleting again with a dead key is a 401, not a second deletion.
    expect((await deleteAccount({ key: u.key, body: { confirm: 'DELETE' } })).status).toBe(401)
  })

  test('the old password no longer signs in (the same 401 as an unknown address); the address is free for a new, empty account', async () => {
    const u = await t.signUp()
    await ingest(t, u, { body: 'Something of the old account.' })
    expect((await deleteAccount({ cookie: u.cookie, body: { confirm: 'DELETE' } })).status).toBe(204)

    const old = await t.json('POST', '/api/auth/sign-in', { body: { email: u.email, password: PASSWORD } })
    const unknown = await t.json('POST', '/api/auth/sign-in', {
      body: { email: `nobody-${crypto.randomUUID()}@example.com`, password: PASSWORD },
    })
    expect(old.status).toBe(401)
    expect(old.body).toEqual(unknown.body)

    const again = await t.signUp({ email: u.email })
    expect(again.id).not.toBe(u.id)
    expect(await documentCount(again)).toBe(0)
    expect((await t.json('GET', '/api/stats', { key: again.key })).body.documents.total).toBe(0)
  })

  test('not one row of the user is left in any table; another user keeps every row', async () => {
    const tables = await discoverTables()
    // Every table either says whose its rows are or is known to hold no user data.
    const unaccounted = tables
      .filter((table) => table.userColumns.length === 0 && !GLOBAL_TABLES.has(table.name))
      .map((table) => table.name)
    expect({ 'tables with no user column that are not known to be global': unaccounted }).toEqual({
      'tables with no user column that are not known to be global': [],
    })
    expect(tables.map((table) => table.name)).toContain('public.users')

    const doomed = await populatedUser('doomed')
    const bystander = await populatedUser('bystander')
    const before = await rowsOf(tables, doomed.id)
    const bystanderBefore = await rowsOf(tables, bystander.id)

    // The fixture reaches every table of the schema as it stands today (a table added later is still
    // counted below — it must be empty after the deletion — and should be filled here too).
    const KNOWN = [
      'users',
      'sessions',
      'api_keys',
      'identities',
      'settings',
      'workspaces',
      'documents',
      'chunks',
      'term_blocks',
      'keyword_stats',
      'links',
      'tombstones',
      'conversations',
      'messages',
      'events',
      'usage_counters',
      'rate_limit_counters',
      'jobs',
      'connections',
      'connectors',
      'sync_runs',
      'oauth_states',
      'subscriptions',
      'v1_responses',
    ].map((name) => `public.${name}`)
    const empty = KNOWN.filter((name) => !(before[name]! > 0))
    expect({ 'tables the fixture left empty': empty }).toEqual({ 'tables the fixture left empty': [] })
    expect(before['public.sessions']).toBe(2)
    expect(before['public.api_keys']).toBe(2)
    expect(before['public.workspaces']).toBe(2)

    const revokedBefore = notion.revokedTokens.length
    const res = await deleteAccount({ cookie: doomed.cookies[1], body: { confirm: 'DELETE' } })
    expect(res.status).toBe(204)
    // The Notion grant of the deleted account was revoked at Notion (and only that one).
    expect(notion.revokedTokens.length).toBe(revokedBefore + 1)

    const after = await rowsOf(tables, doomed.id)
    const left = Object.fromEntries(Object.entries(after).filter(([, n]) => n > 0))
    expect({ 'rows of the deleted user still stored': left }).toEqual({ 'rows of the deleted user still stored': {} })
    expect(await rowsOf(tables, bystander.id)).toEqual(bystanderBefore)

    // Through the API: the bystander still has everything, and can still use it.
    for (const key of doomed.keys) expect((await t.json('GET', '/api/profile', { key })).status).toBe(401)
    for (const cookie of doomed.cookies) expect((await t.json('GET', '/api/profile', { cookie })).status).toBe(401)
    for (const key of bystander.keys) expect((await t.json('GET', '/api/profile', { key })).status).toBe(200)
    expect((await t.json('GET', '/api/profile', { cookie: bystander.cookies[1] })).status).toBe(200)
    const avatar = await t.request('GET', bystander.avatarPath, { key: bystander.key })
    expect(new Uint8Array(await avatar.arrayBuffer())).toEqual(IMAGES.png.bytes)
    expect((await t.request('GET', doomed.avatarPath, { key: bystander.key })).status).toBe(404)
    const search = await t.json('GET', '/api/search?q=tomatoes&mode=keyword', { key: bystander.key })
    expect(search.body.results.length).toBeGreaterThan(0)
    for (const r of search.body.results) expect(r.document.title).toStartWith('bystander')
  })
})
