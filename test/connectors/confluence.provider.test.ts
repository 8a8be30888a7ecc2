// The Confluence provider against the local Atlassian fake, through createProviderApi: identify, complete
// cursor listings, selection, storage → text, versions, removals, skips, 429 / 401 / failures; and the
// fake's OAuth endpoints themselves (authorize, code exchange in the body, rotating refresh tokens).
import { FILE_LIMITS } from './connectors.fixtures'
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import type { ConnectionAccount, RemoteItem, SyncContext } from '../../src/connectors/provider'
import { createProviderApi, ProviderError, SkipItem, type TokenSource } from '../../src/connectors/provider-api'
import { confluenceProvider } from '../../src/connectors/providers/confluence'
import { startConfluenceFake, type ConfluenceFake } from '../fakes/confluence'

const CALLBACK = 'http://localhost:3000/api/connectors/oauth/callback'
const MiB = 1024 * 1024

let fake: ConfluenceFake
beforeEach(() => {
  fake = startConfluenceFake({ callbackUrl: CALLBACK, maxLimit: 2 })
})
afterEach(() => fake.stop())

function authorizeUrl(params: Record<string, string> = {}): string {
  const url = new URL(fake.env.CONFLUENCE_AUTH_URL!)
  const all = {
    audience: 'api.atlassian.com',
    client_id: fake.clientId,
    scope: confluenceProvider.scopes.join(' '),
    redirect_uri: CALLBACK,
    state: 's-1',
    response_type: 'code',
    prompt: 'consent',
    ...params,
  }
  for (const [k, v] of Object.entries(all)) if (v !== '') url.searchParams.set(k, v)
  return url.toString()
}

async function authorize(params: Record<string, string> = {}): Promise<URL> {
  const res = await fetch(authorizeUrl(params), { redirect: 'manual' })
  expect(res.status).toBe(302)
  return new URL(res.headers.get('location')!)
}

const tokenRequest = (body: Record<string, string>, json = false) =>
  fetch(fake.env.CONFLUENCE_TOKEN_URL!, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json ? JSON.stringify(body) : new URLSearchParams(body),
  })

const client = () => ({ client_id: fake.clientId, client_secret: fake.clientSecret })

async function connect(scope = confluenceProvider.scopes.join(' ')) {
  const code = (await authorize({ scope })).searchParams.get('code')!
  const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...client() })
  expect(res.status).toBe(200)
  return (await res.json()) as { access_token: string; refresh_token?: string; scope: string; expires_in: number; token_type: string }
}

/** What the service's token store does: hand out the access token, refresh (rotating) after a 401. */
function tokenSource(tokens: { access_token: string; refresh_token?: string }) {
  const state = { ...tokens, refreshes: 0 }
  const source: TokenSource = {
    token: async () => state.access_token,
    refresh: async () => {
      state.refreshes++
      const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: state.refresh_token!, ...client() })
      if (!res.ok) return null
      Object.assign(state, await res.json())
      return state.access_token
    },
  }
  return { source, state }
}

async function setup(options: { scope?: string; spaces?: string[]; maxBodyBytes?: number } = {}) {
  const { source, state } = tokenSource(await connect(options.scope))
  const waits: number[] = []
  const api = createProviderApi({
    name: 'confluence',
    base: fake.env.CONFLUENCE_API_URL!,
    tokens: source,
    sleep: async (ms) => void waits.push(ms),
  })
  const account: ConnectionAccount = await confluenceProvider.identify(api, {})
  const ctx: SyncContext = {
    api,
    account,
    config: { spaces: options.spaces },
    maxBodyBytes: options.maxBodyBytes ?? MiB,
    files: FILE_LIMITS,
  }
  return { ctx, state, waits }
}

async function listAll(ctx: SyncContext): Promise<RemoteItem[]> {
  const items: RemoteItem[] = []
  for await (const item of confluenceProvider.list(ctx)) items.push(item)
  return items
}

const pagesOf = (path: RegExp) => fake.apiRequests().filter((r) => path.test(r.path))

/** ENG with five current pages plus an archived and a trashed one, OPS with three, HR with one. */
function seed() {
  fake.addSpace({ key: 'ENG', name: 'Engineering' })
  fake.addSpace({ key: 'OPS', name: 'Operations' })
  fake.addSpace({ key: 'HR', name: 'People', type: 'personal' })
  const eng = ['Architecture', 'Getting started', 'Runbook', 'Release process', 'Glossary'].map((title) => fake.addPage('ENG', { title }))
  fake.addPage('ENG', { title: 'Old plan', status: 'archived' })
  fake.removePage(fake.addPage('ENG', { title: 'Deleted draft' }).id)
  const ops = ['On-call', 'Incidents', 'Backups'].map((title) => fake.addPage('OPS', { title, parentId: undefined }))
  const hr = fake.addPage('HR', { title: 'Holidays' })
  return { eng, ops, hr }
}

describe('confluence provider', () => {
  test('identify reads the site from accessible-resources', async () => {
    const { ctx } = await setup()
    expect(ctx.account).toEqual({
      externalAccountId: fake.site.cloudId,
      accountName: 'acme',
      meta: { cloudId: fake.site.cloudId, siteUrl: 'https://acme.atlassian.net' },
    })
    expect(fake.apiRequests()[0]!.headers.authorization).toMatch(/^Bearer eyJ/)
  })

  test('lists every current page of every space across several pages of results', async () => {
    const { eng, ops, hr } = seed()
    const { ctx } = await setup()
    const items = await listAll(ctx)
    expect(items.map((i) => i.externalId).sort()).toEqual([...eng, ...ops, hr].map((p) => p.id).sort())
    const first = items.find((i) => i.externalId === eng[1]!.id)!
    expect(first).toEqual({
      externalId: eng[1]!.id,
      title: 'Getting started',
      version: '1',
      url: `https://acme.atlassian.net/wiki/spaces/ENG/pages/${eng[1]!.id}/Getting+started`,
      container: 'ENG',
    })
    // 3 spaces at 2 a page → 2 requests; ENG's 5 current pages → 3, OPS's 3 → 2, HR's 1 → 1.
    expect(pagesOf(/\/spaces$/)).toHaveLength(2)
    const pageRequests = pagesOf(/\/spaces\/\d+\/pages$/)
    expect(pageRequests).toHaveLength(6)
    for (const r of pageRequests) expect(r.query).toMatchObject({ limit: '250', status: 'current' })
    expect(pageRequests.filter((r) => r.query.cursor)).toHaveLength(3)
  })

  test('the selection lists only the chosen spaces, by key', async () => {
    const { ops } = seed()
    const { ctx } = await setup({ spaces: ['OPS', 'GONE'] })
    const items = await listAll(ctx)
    expect(items.map((i) => i.externalId).sort()).toEqual(ops.map((p) => p.id).sort())
    expect(items.every((i) => i.container === 'OPS')).toBe(true)
    expect(pagesOf(/\/spaces$/)[0]!.query.keys).toBe('OPS,GONE')
  })

  test('spaces() lists every space the token sees', async () => {
    seed()
    const { ctx } = await setup()
    const spaces = await confluenceProvider.spaces!(ctx)
    expect(spaces.map(({ key, name }) => ({ key, name }))).toEqual([
      { key: 'ENG', name: 'Engineering' },
      { key: 'OPS', name: 'Operations' },
      { key: 'HR', name: 'People' },
    ])
    expect(spaces.every((s) => /^\d+$/.test(s.id))).toBe(true)
  })

  test('content turns the storage body into plain text', async () => {
    fake.addSpace({ key: 'ENG' })
    const page = fake.addPage('ENG', {
      title: 'Runbook',
      body: '<h2>Restart</h2><p>Call the <strong>on-call</strong> &amp; wait&hellip;</p><ac:structured-macro ac:name="code"><ac:parameter ac:name="language">bash</ac:parameter><ac:plain-text-body><![CDATA[systemctl restart api\n  --force]]></ac:plain-text-body></ac:structured-macro><table><tr><td>Owner</td><td>Ana</td></tr></table><p><ac:image><ri:attachment ri:filename="graph.png" /></ac:image></p>',
    })
    const { ctx } = await setup()
    const [item] = await listAll(ctx)
    expect(await confluenceProvider.content(ctx, item!)).toBe(
      'Restart\n\nCall the on-call & wait…\n\nsystemctl restart api\n  --force\n\nOwner\nAna',
    )
    expect(pagesOf(new RegExp(`/pages/${page.id}$`))[0]!.query['body-format']).toBe('storage')
  })

  test('an edit changes the version; removed and archived pages leave the listing', async () => {
    const { eng } = seed()
    const { ctx } = await setup({ spaces: ['ENG'] })
    const before = await listAll(ctx)
    fake.editPage(eng[0]!.id, { body: '<p>New architecture</p>', title: 'Architecture v2' })
    fake.removePage(eng[1]!.id)
    fake.archivePage(eng[2]!.id)
    const after = await listAll(ctx)
    expect(after).toHaveLength(before.length - 2)
    expect(after.map((i) => i.externalId)).not.toContain(eng[1]!.id)
    expect(after.map((i) => i.externalId)).not.toContain(eng[2]!.id)
    const edited = after.find((i) => i.externalId === eng[0]!.id)!
    expect(edited.version).toBe('2')
    expect(edited.title).toBe('Architecture v2')
    expect(await confluenceProvider.content(ctx, edited)).toBe('New architecture')
  })

  test('too large, text-less and vanished pages are skipped', async () => {
    fake.addSpace({ key: 'ENG' })
    fake.addPage('ENG', { title: 'Big', body: `<p>${'x'.repeat(5000)}</p>` })
    fake.addPage('ENG', { title: 'Picture', body: '<p><ac:image><ri:attachment ri:filename="a.png" /></ac:image></p>' })
    const gone = fake.addPage('ENG', { title: 'Gone' })
    const { ctx } = await setup({ maxBodyBytes: 4000 })
    const [big, picture, vanished] = await listAll(ctx)
    fake.removePage(gone.id)
    await expect(confluenceProvider.content(ctx, big!)).rejects.toBeInstanceOf(SkipItem)
    await expect(confluenceProvider.content(ctx, picture!)).rejects.toThrow('no text')
    await expect(confluenceProvider.content(ctx, vanished!)).rejects.toBeInstanceOf(SkipItem)
  })

  test('429 is retried after Retry-After', async () => {
    seed()
    const { ctx, waits } = await setup()
    fake.rateLimitNext(2, 7)
    expect(await listAll(ctx)).toHaveLength(9)
    expect(waits).toEqual([7000, 7000])
  })

  test('a 401 after the tokens expire refreshes once (rotating the refresh token) and goes on', async () => {
    seed()
    const { ctx, state } = await setup()
    const oldRefresh = state.refresh_token!
    fake.expireAccessTokens()
    expect(await listAll(ctx)).toHaveLength(9)
    expect(state.refreshes).toBe(1)
    expect(state.refresh_token).not.toBe(oldRefresh)
    const reuse = await tokenRequest({ grant_type: 'refresh_token', refresh_token: oldRefresh, ...client() })
    expect(reuse.status).toBe(403)
  })

  test('a failure mid-listing throws instead of ending the listing early', async () => {
    seed()
    // One space, so the request that fails is a next page (a swallowed one would end the listing quietly).
    const { ctx } = await setup({ spaces: ['ENG'] })
    const items: RemoteItem[] = []
    const run = (async () => {
      for await (const item of confluenceProvider.list(ctx)) {
        items.push(item)
        if (items.length === 2) fake.failApi(403)
      }
    })()
    await expect(run).rejects.toBeInstanceOf(ProviderError)
    await run.catch(() => {})
    expect(items).toHaveLength(2)
  })

  test('a token without the granular page scope cannot list pages', async () => {
    seed()
    const { ctx } = await setup({ scope: 'read:space:confluence offline_access' })
    const error = await listAll(ctx).catch((e) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.status).toBe(401)
  })

  test('gateApi holds API answers until released', async () => {
    const { ctx } = await setup()
    let release!: () => void
    fake.gateApi(new Promise<void>((r) => (release = r)))
    let done = false
    const spaces = confluenceProvider.spaces!(ctx).then((s) => ((done = true), s))
    await Bun.sleep(50)
    expect(done).toBe(false)
    release()
    expect(await spaces).toEqual([])
  })
})

describe('confluence fake OAuth', () => {
  test('authorize consents at once and sends code and state back', async () => {
    const back = await authorize()
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK)
    expect(back.searchParams.get('state')).toBe('s-1')
    expect(back.searchParams.get('code')).toBeTruthy()
  })

  test('authorize refuses a bad client, audience, redirect_uri, response_type or missing scope', async () => {
    for (const bad of <Record<string, string>[]>[
      { client_id: 'nope' },
      { audience: '' },
      { redirect_uri: 'http://evil.test/cb' },
      { response_type: 'token' },
      { scope: '' },
    ]) {
      const res = await fetch(authorizeUrl(bad), { redirect: 'manual' })
      expect(res.status).toBe(400)
    }
  })

  test('a refused consent comes back as error=access_denied', async () => {
    fake.denyNextConsent()
    const back = await authorize()
    expect(back.searchParams.get('error')).toBe('access_denied')
    expect(back.searchParams.get('state')).toBe('s-1')
    expect(back.searchParams.get('code')).toBeNull()
    expect((await authorize()).searchParams.get('code')).toBeTruthy()
  })

  test('the code exchange takes the client in the body (form or JSON); codes are single use', async () => {
    const code = (await authorize()).searchParams.get('code')!
    const res = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...client() }, true)
    const tokens = await res.json()
    expect(tokens).toMatchObject({ expires_in: 3600, token_type: 'Bearer', scope: confluenceProvider.scopes.join(' ') })
    expect(tokens.refresh_token).toBeString()
    const again = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: CALLBACK, ...client() })
    expect(again.status).toBe(403)
    expect(await again.json()).toEqual({ error: 'invalid_grant', error_description: 'Invalid authorization code' })
  })

  test('bad client credentials, Basic auth and a wrong redirect_uri are refused in Atlassian error shapes', async () => {
    const code = () => authorize().then((u) => u.searchParams.get('code')!)
    const wrong = await tokenRequest({
      grant_type: 'authorization_code',
      code: await code(),
      redirect_uri: CALLBACK,
      client_id: fake.clientId,
      client_secret: 'nope',
    })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toEqual({ error: 'access_denied', error_description: 'Unauthorized' })
    const basic = await fetch(fake.env.CONFLUENCE_TOKEN_URL!, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${fake.clientId}:${fake.clientSecret}`)}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: await code(), redirect_uri: CALLBACK }),
    })
    expect(basic.status).toBe(401)
    expect((await basic.json()).error).toBe('unauthorized_client')
    const redirect = await tokenRequest({
      grant_type: 'authorization_code',
      code: await code(),
      redirect_uri: 'http://localhost:3000/other',
      ...client(),
    })
    expect((await redirect.json()).error).toBe('invalid_grant')
    expect((await tokenRequest({ grant_type: 'password', ...client() })).status).toBe(400)
  })

  test('refresh rotates the refresh token; without offline_access there is none', async () => {
    const first = await connect()
    const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, ...client() })
    const second = await res.json()
    expect(second.access_token).not.toBe(first.access_token)
    expect(second.refresh_token).not.toBe(first.refresh_token)
    const reused = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first.refresh_token!, ...client() })
    expect(await reused.json()).toEqual({ error: 'invalid_grant', error_description: 'Unknown or invalid refresh token.' })
    expect((await connect('read:space:confluence')).refresh_token).toBeUndefined()
  })

  test('expired access tokens get the gateway 401 until refreshed', async () => {
    const tokens = await connect()
    fake.expireAccessTokens()
    const res = await fetch(`${fake.baseUrl}/oauth/token/accessible-resources`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    })
    expect(res.status).toBe(401)
    expect(await res.json()).toEqual({ code: 401, message: 'Unauthorized' })
    const fresh = await (await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, ...client() })).json()
    const ok = await fetch(`${fake.baseUrl}/oauth/token/accessible-resources`, {
      headers: { authorization: `Bearer ${fresh.access_token}` },
    })
    expect(ok.status).toBe(200)
  })
})
