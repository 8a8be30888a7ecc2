// The Notion provider against the local Notion fake through createProviderApi: identify, listing (pages,
// selection, edits, trash), content as text, size limits, retries and token refresh; and the fake's own OAuth
// endpoints, so the end-to-end tests can trust them.
import { FILE_LIMITS } from './connectors.fixtures'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import type { RemoteItem, SyncContext } from '../../src/connectors/provider'
import { createProviderApi, type ProviderApi, ProviderError, SkipItem, type TokenSource } from '../../src/connectors/provider-api'
import { normalizeNotionId, notionProvider } from '../../src/connectors/providers/notion'
import { block, type NotionFake, notionText, startNotionFake } from '../fakes/notion'

const CALLBACK = 'http://localhost:3000/v1/connectors/oauth/notion/callback'
let fake: NotionFake
beforeEach(() => {
  fake = startNotionFake({ callbackUrl: CALLBACK })
})
afterEach(() => fake.stop())

const basic = () => `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`
const bare = (id: string) => id.replaceAll('-', '')

function authorizeUrl(params: Record<string, string | undefined> = {}): string {
  const all = { client_id: fake.clientId, response_type: 'code', owner: 'user', redirect_uri: CALLBACK, state: 'st-1', ...params }
  const url = new URL(fake.env.NOTION_AUTH_URL!)
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v)
  return url.toString()
}

async function authorize(params: Record<string, string | undefined> = {}): Promise<Response> {
  return fetch(authorizeUrl(params), { redirect: 'manual' })
}

/** POSTs to the token endpoint as arctic does (form body, HTTP Basic) unless told otherwise. */
async function tokenRequest(body: Record<string, string>, { auth = basic(), json = false } = {}): Promise<Response> {
  return fetch(fake.env.NOTION_TOKEN_URL!, {
    method: 'POST',
    headers: { ...(auth ? { authorization: auth } : {}), 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json ? JSON.stringify(body) : new URLSearchParams(body),
  })
}

async function connect(): Promise<Record<string, unknown>> {
  const code = new URL((await authorize()).headers.get('location')!).searchParams.get('code')!
  const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK })
  expect(res.status).toBe(200)
  return (await res.json()) as Record<string, unknown>
}

/** A connection's tokens as the service keeps them: refresh() calls the token endpoint (and keeps the rotated refresh token). */
function tokenSource(data: Record<string, unknown>) {
  const state = { access: data.access_token as string, refreshToken: data.refresh_token as string, refreshes: 0 }
  const tokens: TokenSource = {
    token: async () => state.access,
    refresh: async () => {
      state.refreshes++
      const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: state.refreshToken }, { json: true })
      if (!res.ok) return null
      const fresh = (await res.json()) as { access_token: string; refresh_token: string }
      state.access = fresh.access_token
      state.refreshToken = fresh.refresh_token
      return state.access
    },
  }
  return { tokens, state }
}

async function setup(options: { pages?: string[]; maxBodyBytes?: number } = {}) {
  const data = await connect()
  const { tokens, state } = tokenSource(data)
  const sleeps: number[] = []
  const api = createProviderApi({
    name: 'Notion',
    base: fake.env.NOTION_API_URL!,
    tokens,
    headers: notionProvider.headers,
    sleep: async (ms) => void sleeps.push(ms),
  })
  const account = await notionProvider.identify(api, data)
  const ctx: SyncContext = {
    api,
    account,
    config: { pages: options.pages ?? [] },
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    files: FILE_LIMITS,
  }
  return { ctx, state, sleeps, data }
}

async function listAll(ctx: SyncContext): Promise<RemoteItem[]> {
  const items: RemoteItem[] = []
  for await (const item of notionProvider.list(ctx)) items.push(item)
  return items
}
const byTitle = (items: RemoteItem[]) => Object.fromEntries(items.map((i) => [i.title, i]))
const apiRequests = () => fake.requests.filter((r) => !r.path.startsWith('/v1/oauth/'))

/** Engineering (with a nested page inside a toggle and a Tasks database), Marketing, and a top-level CRM database. */
function workspace() {
  const eng = fake.addPage({ title: 'Engineering', blocks: [block('paragraph', 'Team home')] })
  const runbooks = fake.addPage({ title: 'Runbooks', parent: eng })
  const [toggle] = fake.appendBlocks(runbooks, [block('toggle', 'Archive')])
  const old = fake.addPage({ title: 'Old runbook', parent: toggle! })
  const tasks = fake.addDatabase({ title: 'Tasks', parent: eng, inline: true })
  const status = (name: string) => ({ Status: { type: 'select', select: { name, color: 'green' } } })
  const task1 = fake.addPage({
    title: 'Fix login',
    parent: tasks,
    titleProperty: 'Task',
    properties: status('Done'),
    blocks: [block('paragraph', 'Root cause: cookie path')],
  })
  const task2 = fake.addPage({ title: '', parent: tasks, titleProperty: 'Task', properties: status('Todo') })
  const marketing = fake.addPage({ title: 'Marketing' })
  const launch = fake.addPage({ title: 'Launch plan', parent: marketing })
  const crm = fake.addDatabase({ title: 'CRM' })
  const lead = fake.addPage({ title: 'Acme Corp', parent: crm })
  return { eng, runbooks, toggle: toggle!, old, tasks, task1, task2, marketing, launch, crm, lead }
}

describe('identify', () => {
  test('reads the workspace from the token response, without an API call', async () => {
    const { ctx, data } = await setup()
    expect(ctx.account).toEqual({ externalAccountId: fake.workspace.id, accountName: 'Acme HQ', meta: { bot_id: data.bot_id } })
    expect(apiRequests()).toHaveLength(0)
  })
})

describe('listing', () => {
  test('pages through search 100 at a time and lists every page once, with the Notion-Version header', async () => {
    const ids = Array.from({ length: 230 }, (_, i) => fake.addPage({ title: `Note ${i + 1}` }))
    const { ctx } = await setup()
    const items = await listAll(ctx)
    expect(items.map((i) => i.externalId).sort()).toEqual([...ids].sort())
    const searches = apiRequests().filter((r) => r.path === '/v1/search')
    expect(searches.map((r) => r.body)).toEqual([
      { filter: { property: 'object', value: 'page' }, page_size: 100 },
      { filter: { property: 'object', value: 'page' }, page_size: 100, start_cursor: ids[100] },
      { filter: { property: 'object', value: 'page' }, page_size: 100, start_cursor: ids[200] },
    ])
    expect(apiRequests().every((r) => r.headers['notion-version'] === '2022-06-28')).toBe(true)
    const first = items.find((i) => i.externalId === ids[0])!
    expect(first).toEqual({
      externalId: ids[0]!,
      title: 'Note 1',
      version: expect.stringMatching(/^2024-05-01T\d\d:\d\d:00\.000Z$/),
      url: `https://www.notion.so/Note-1-${bare(ids[0]!)}`,
      container: 'Acme HQ',
    })
  })

  test('with no selection lists every granted page, database rows titled from their own title property', async () => {
    workspace()
    const { ctx } = await setup()
    const items = byTitle(await listAll(ctx))
    expect(Object.keys(items).sort()).toEqual([
      'Acme Corp',
      'Engineering',
      'Fix login',
      'Launch plan',
      'Marketing',
      'Old runbook',
      'Runbooks',
      'Untitled',
    ])
    expect(items['Fix login']!.container).toBe('Tasks')
    expect(items['Launch plan']!.container).toBe('Marketing')
    expect(items['Acme Corp']!.container).toBe('CRM')
  })

  test('a selection keeps the chosen roots and everything under them, following parents through blocks and databases', async () => {
    const w = workspace()
    const { ctx } = await setup({ pages: [bare(w.eng)] })
    const items = byTitle(await listAll(ctx))
    expect(Object.keys(items).sort()).toEqual(['Engineering', 'Fix login', 'Old runbook', 'Runbooks', 'Untitled'])
    expect(items['Old runbook']!.container).toBe('Runbooks')
    expect(apiRequests().filter((r) => r.path === `/v1/blocks/${w.toggle}`)).toHaveLength(1)
    expect(
      apiRequests()
        .filter((r) => r.path === '/v1/search')
        .map((r) => (r.body as { filter: { value: string } }).filter.value),
    ).toEqual(['page', 'database'])
  })

  test('a database root selects its rows; ids match with or without dashes, in any case', async () => {
    const w = workspace()
    expect(Object.keys(byTitle(await listAll((await setup({ pages: [w.crm] })).ctx)))).toEqual(['Acme Corp'])
    const upper = bare(w.runbooks).toUpperCase()
    expect(Object.keys(byTitle(await listAll((await setup({ pages: [upper] })).ctx))).sort()).toEqual(['Old runbook', 'Runbooks'])
    expect(normalizeNotionId(`https://www.notion.so/Runbooks-${bare(w.runbooks)}`)).toBe(bare(w.runbooks))
  })

  test('an edit changes the page version (nested blocks too); other pages keep theirs', async () => {
    const w = workspace()
    const { ctx } = await setup()
    const before = byTitle(await listAll(ctx))
    fake.editPage(w.eng, { blocks: [block('paragraph', 'Team home, rewritten')] })
    fake.appendBlocks(w.toggle, [block('paragraph', 'note inside the toggle')])
    const after = byTitle(await listAll(ctx))
    expect(after.Engineering!.version).not.toBe(before.Engineering!.version)
    expect(after.Runbooks!.version).not.toBe(before.Runbooks!.version)
    expect(after.Marketing!.version).toBe(before.Marketing!.version)
  })

  test('trashed and deleted pages leave the listing, with what sits under them', async () => {
    const w = workspace()
    const { ctx, state } = await setup()
    fake.trashPage(w.marketing)
    fake.deletePage(w.lead)
    const titles = Object.keys(byTitle(await listAll(ctx)))
    expect(titles).not.toContain('Marketing')
    expect(titles).not.toContain('Launch plan')
    expect(titles).not.toContain('Acme Corp')
    expect(titles).toContain('Engineering')
    // Search still returns the trashed pages, flagged: the provider is the one leaving them out.
    const res = await fetch(`${fake.baseUrl}/v1/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${state.access}`, 'notion-version': '2022-06-28', 'content-type': 'application/json' },
      body: JSON.stringify({ filter: { property: 'object', value: 'page' } }),
    })
    const found = ((await res.json()) as { results: { id: string; in_trash: boolean }[] }).results.find((p) => p.id === w.marketing)
    expect(found?.in_trash).toBe(true)
  })

  test('a 429 is waited out for its Retry-After and the listing completes', async () => {
    Array.from({ length: 120 }, (_, i) => fake.addPage({ title: `P${i}` }))
    const { ctx, sleeps } = await setup()
    fake.rateLimitNext(2, 3)
    expect(await listAll(ctx)).toHaveLength(120)
    expect(sleeps).toEqual([3000, 3000])
    expect(apiRequests().filter((r) => r.path === '/v1/search')).toHaveLength(4)
  })

  test('a 401 after the tokens expire refreshes the token once and carries on', async () => {
    workspace()
    const { ctx, state } = await setup()
    const oldToken = state.access
    fake.expireAccessTokens()
    expect(await listAll(ctx)).toHaveLength(8)
    expect(state.refreshes).toBe(1)
    expect(state.access).not.toBe(oldToken)
    const searches = apiRequests().filter((r) => r.path === '/v1/search')
    expect(searches[0]!.headers.authorization).toBe(`Bearer ${oldToken}`)
    expect(searches.at(-1)!.headers.authorization).toBe(`Bearer ${state.access}`)
  })

  test('an API failure part-way throws instead of yielding a partial listing', async () => {
    Array.from({ length: 150 }, (_, i) => fake.addPage({ title: `P${i}` }))
    const { ctx } = await setup()
    let calls = 0
    const failing: ProviderApi = {
      base: ctx.api.base,
      text: ctx.api.text,
      bytes: ctx.api.bytes,
      async json<T>(path: string, request?: Parameters<ProviderApi['json']>[1]) {
        const result = await ctx.api.json<T>(path, request)
        if (++calls === 1) fake.failApi(500)
        return result
      },
    }
    const yielded: RemoteItem[] = []
    const run = async () => {
      for await (const item of notionProvider.list({ ...ctx, api: failing })) yielded.push(item)
    }
    const error = await run().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).status).toBe(500)
    expect(yielded).toHaveLength(0)
  })
})

describe('content', () => {
  test('renders a realistic page as text, all block pages fetched, child pages as a title line only', async () => {
    const long = Array.from({ length: 130 }, (_, i) => block('paragraph', `Line ${i + 1}`))
    const id = fake.addPage({
      title: 'Onboarding',
      blocks: [
        block('heading_1', 'Welcome'),
        block('paragraph', 'Read this first.'),
        block('numbered_list_item', 'Get a laptop'),
        {
          type: 'numbered_list_item',
          numbered_list_item: { rich_text: notionText('Install ', 'tools'), children: [block('bulleted_list_item', 'bun')] },
        },
        block('to_do', 'Sign the NDA', { checked: true }),
        { type: 'toggle', toggle: { rich_text: notionText('FAQ'), children: [block('paragraph', 'Ask in #help')] } },
        block('code', 'bun test', { language: 'shell', caption: [] }),
        {
          type: 'table',
          table: {
            table_width: 2,
            has_column_header: true,
            has_row_header: false,
            children: [
              { type: 'table_row', table_row: { cells: [notionText('Tool'), notionText('Owner')] } },
              { type: 'table_row', table_row: { cells: [notionText('CI'), notionText('Ada')] } },
            ],
          },
        },
        { type: 'column_list', column_list: { children: [{ type: 'column', column: { children: [block('quote', 'Ship small')] } }] } },
        block('callout', 'Be kind', { icon: { type: 'emoji', emoji: '💡' } }),
        { type: 'divider', divider: {} },
        { type: 'bookmark', bookmark: { url: 'https://example.com/handbook', caption: [] } },
        { type: 'image', image: { type: 'external', external: { url: 'https://example.com/x.png' }, caption: [] } },
        { type: 'equation', equation: { expression: 'a^2+b^2=c^2' } },
        ...long,
      ],
    })
    fake.addPage({ title: 'Sub page', parent: id, blocks: [block('paragraph', 'NOT in the parent text')] })
    const { ctx } = await setup()
    const item = (await listAll(ctx)).find((i) => i.externalId === id)!
    const text = await notionProvider.content(ctx, item)
    const head = [
      'Welcome',
      'Read this first.',
      '1. Get a laptop',
      '2. Install tools',
      '  - bun',
      '[x] Sign the NDA',
      'FAQ',
      '  Ask in #help',
      'bun test',
      'Tool | Owner',
      'CI | Ada',
      '> Ship small',
      '💡 Be kind',
      '---',
      'https://example.com/handbook',
      'a^2+b^2=c^2',
    ]
    expect(text).toBe([...head, ...long.map((_, i) => `Line ${i + 1}`), 'Sub page'].join('\n'))
    const children = apiRequests().filter((r) => r.path === `/v1/blocks/${id}/children`)
    expect(children.map((r) => r.query.start_cursor ?? null)).toEqual([null, expect.any(String)])
    expect(children.every((r) => r.query.page_size === '100')).toBe(true)
  })

  test('a database row starts with its properties; a fresh sync context reads them from the page itself', async () => {
    const w = workspace()
    const { ctx } = await setup()
    const item = (await listAll(ctx)).find((i) => i.externalId === w.task1)!
    expect(await notionProvider.content(ctx, item)).toBe('Status: Done\n\nRoot cause: cookie path')
    expect(apiRequests().filter((r) => r.path.startsWith('/v1/pages/'))).toHaveLength(0)
    expect(await notionProvider.content({ ...ctx }, item)).toBe('Status: Done\n\nRoot cause: cookie path')
    expect(apiRequests().filter((r) => r.path === `/v1/pages/${w.task1}`)).toHaveLength(1)
  })

  test('a page larger than maxBodyBytes is skipped, and fetching stops early', async () => {
    const big = fake.addPage({ title: 'Big', blocks: Array.from({ length: 250 }, (_, i) => block('paragraph', `${i} ${'x'.repeat(100)}`)) })
    fake.addPage({ title: 'Small', blocks: [block('paragraph', 'fits')] })
    const { ctx } = await setup({ maxBodyBytes: 2_000 })
    const items = byTitle(await listAll(ctx))
    await expect(notionProvider.content(ctx, items.Big!)).rejects.toBeInstanceOf(SkipItem)
    expect(apiRequests().filter((r) => r.path === `/v1/blocks/${big}/children`)).toHaveLength(1)
    expect(await notionProvider.content(ctx, items.Small!)).toBe('fits')
  })

  test('a page deleted after the listing is skipped, not an error', async () => {
    const id = fake.addPage({ title: 'Doomed', blocks: [block('paragraph', 'bye')] })
    const { ctx } = await setup()
    const [item] = await listAll(ctx)
    fake.deletePage(id)
    await expect(notionProvider.content(ctx, item!)).rejects.toBeInstanceOf(SkipItem)
  })
})

describe('the fake OAuth endpoints', () => {
  test('authorize consents at once: 302 to the redirect_uri with a code and the state', async () => {
    const res = await authorize()
    expect(res.status).toBe(302)
    const back = new URL(res.headers.get('location')!)
    expect(back.origin + back.pathname).toBe(CALLBACK)
    expect(back.searchParams.get('state')).toBe('st-1')
    expect(back.searchParams.get('code')).toMatch(/^[0-9a-f-]{36}$/)
  })

  test('authorize refuses a bad client, redirect_uri, response_type or owner; a refusal goes back as access_denied', async () => {
    expect((await authorize({ client_id: 'someone-else' })).status).toBe(400)
    expect((await authorize({ redirect_uri: 'https://evil.example/cb' })).status).toBe(400)
    expect((await authorize({ response_type: 'token' })).status).toBe(400)
    expect((await authorize({ owner: undefined })).status).toBe(400)
    fake.denyNextConsent()
    const back = new URL((await authorize()).headers.get('location')!)
    expect(Object.fromEntries(back.searchParams)).toEqual({ error: 'access_denied', state: 'st-1' })
    expect(new URL((await authorize()).headers.get('location')!).searchParams.get('code')).toBeTruthy()
  })

  test('the code exchange takes HTTP Basic client auth and a JSON or form body; a code works once', async () => {
    const codeOf = async () => new URL((await authorize()).headers.get('location')!).searchParams.get('code')!
    const code = await codeOf()
    const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, { json: true })
    expect(res.status).toBe(200)
    const data = (await res.json()) as Record<string, unknown>
    expect(data).toMatchObject({
      token_type: 'bearer',
      workspace_id: fake.workspace.id,
      workspace_name: 'Acme HQ',
      duplicated_template_id: null,
      owner: { type: 'user', user: { object: 'user' } },
    })
    expect(typeof data.access_token).toBe('string')
    expect(typeof data.refresh_token).toBe('string')
    expect(typeof data.bot_id).toBe('string')
    const again = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK })
    expect(again.status).toBe(400)
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' })
    const wrongRedirect = await tokenRequest({
      grant_type: 'authorization_code',
      code: await codeOf(),
      redirect_uri: 'http://localhost:3000/other',
    })
    expect(await wrongRedirect.json()).toMatchObject({ error: 'invalid_grant' })
  })

  test('a bad client answers 401 invalid_client, secrets in the body are not accepted', async () => {
    const code = new URL((await authorize()).headers.get('location')!).searchParams.get('code')!
    const wrong = `Basic ${Buffer.from(`${fake.clientId}:nope`).toString('base64')}`
    const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK }, { auth: wrong })
    expect(res.status).toBe(401)
    expect(await res.json()).toMatchObject({ error: 'invalid_client' })
    const post = await tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: fake.clientId, client_secret: fake.clientSecret },
      { auth: '' },
    )
    expect(post.status).toBe(401)
  })

  test('refresh rotates both tokens; the spent refresh token is refused', async () => {
    const data = await connect()
    const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: data.refresh_token as string })
    expect(res.status).toBe(200)
    const fresh = (await res.json()) as Record<string, unknown>
    expect(fresh.access_token).not.toBe(data.access_token)
    expect(fresh.refresh_token).not.toBe(data.refresh_token)
    expect(fresh.bot_id).toBe(data.bot_id)
    const reuse = await tokenRequest({ grant_type: 'refresh_token', refresh_token: data.refresh_token as string })
    expect(reuse.status).toBe(400)
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' })
    expect((await tokenRequest({ grant_type: 'password' })).status).toBe(400)
  })

  test('the API wants a valid Bearer token and Notion-Version; revoke ends the grant', async () => {
    const data = await connect()
    const call = (headers: Record<string, string>) =>
      fetch(`${fake.baseUrl}/v1/search`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' })
    const bearer = { authorization: `Bearer ${data.access_token}` }
    expect(await (await call(bearer)).json()).toMatchObject({ object: 'error', status: 400, code: 'missing_version' })
    expect((await call({ ...bearer, 'notion-version': '2022-06-28' })).status).toBe(200)
    const revoked = await fetch(fake.env.NOTION_REVOKE_URL!, {
      method: 'POST',
      headers: { authorization: basic(), 'content-type': 'application/json' },
      body: JSON.stringify({ token: data.access_token }),
    })
    expect(revoked.status).toBe(200)
    expect(fake.revokedTokens).toEqual([data.access_token as string])
    const after = await call({ ...bearer, 'notion-version': '2022-06-28' })
    expect(after.status).toBe(401)
    expect(await after.json()).toMatchObject({ object: 'error', status: 401, code: 'unauthorized' })
    expect((await tokenRequest({ grant_type: 'refresh_token', refresh_token: data.refresh_token as string })).status).toBe(400)
  })

  test('gateApi holds API requests until the gate opens', async () => {
    const data = await connect()
    let open!: () => void
    fake.gateApi(new Promise<void>((resolve) => (open = resolve)))
    let answered = false
    const pending = fetch(`${fake.baseUrl}/v1/blocks/x/children`, {
      headers: { authorization: `Bearer ${data.access_token}`, 'notion-version': '2022-06-28' },
    }).then((r) => {
      answered = true
      return r
    })
    await Bun.sleep(30)
    expect(answered).toBe(false)
    open()
    fake.gateApi(null)
    const res = await pending
    expect(res.status).toBe(404)
    expect(await res.json()).toMatchObject({ object: 'error', code: 'object_not_found' })
  })
})
