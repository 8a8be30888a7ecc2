// Connectors, the parts no provider has to answer: what the consent URL asks each provider for, the plan's
// connector cap, validation, what a connector that is not yet authorized refuses, and another user's ids.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { BASE, createTestApp, type TestApp } from '../harness'

let t: TestApp
const APP_ORIGIN = 'https://app.example.com'
// Configured apps whose endpoints are never contacted here: only URLs are built.
const env = {
  CONFLUENCE_CLIENT_ID: 'conf-id',
  CONFLUENCE_CLIENT_SECRET: 'conf-secret',
  GOOGLE_CLIENT_ID: 'google-id',
  GOOGLE_CLIENT_SECRET: 'google-secret',
  NOTION_CLIENT_ID: 'notion-id',
  NOTION_CLIENT_SECRET: 'notion-secret',
  ALLOWED_ORIGINS: APP_ORIGIN,
}

beforeAll(async () => {
  t = await createTestApp({ env: { ...env, PLAN_FREE_CONNECTORS: '2' } })
})
afterAll(() => t.close())

async function create(key: string, body: Record<string, unknown>) {
  return t.json('POST', '/api/connectors', { key, body })
}

describe('creating a connector', () => {
  test("answers the connector, pending_auth, and the provider's consent URL with what that provider needs", async () => {
    const u = await t.signUp()
    const confluence = await create(u.key, { type: 'confluence', config: { spaces: ['ENG', 'ENG', 'OPS'] } })
    expect(confluence.status).toBe(201)
    expect(confluence.body.connector).toMatchObject({
      type: 'confluence',
      label: 'Confluence',
      status: 'pending_auth',
      connection_id: null,
      last_run: null,
      config: { spaces: ['ENG', 'OPS'] },
    })
    const c = new URL(confluence.body.authorization_url)
    expect(c.origin + c.pathname).toBe('https://auth.atlassian.com/authorize')
    expect(Object.fromEntries(c.searchParams)).toMatchObject({
      client_id: 'conf-id',
      response_type: 'code',
      audience: 'api.atlassian.com',
      prompt: 'consent',
      redirect_uri: `${BASE}/api/connectors/oauth/callback`,
    })
    expect(c.searchParams.get('scope')!.split(' ')).toContain('offline_access')
    expect(c.searchParams.get('state')!.length).toBeGreaterThan(20)

    const drive = await create(u.key, { type: 'google_drive', label: 'Team drive' })
    expect(drive.status).toBe(201)
    expect(drive.body.connector.label).toBe('Team drive')
    const g = new URL(drive.body.authorization_url)
    expect(Object.fromEntries(g.searchParams)).toMatchObject({ access_type: 'offline', prompt: 'consent', code_challenge_method: 'S256' })
    expect(g.searchParams.get('scope')).toContain('https://www.googleapis.com/auth/drive.readonly')
    // Each flow has its own state.
    expect(g.searchParams.get('state')).not.toBe(c.searchParams.get('state'))
  })

  test("the plan's connector cap is a 402 that names it, and nothing is stored", async () => {
    const u = await t.signUp()
    expect((await create(u.key, { type: 'notion' })).status).toBe(201)
    expect((await create(u.key, { type: 'notion' })).status).toBe(201)
    const third = await create(u.key, { type: 'notion' })
    expect(third.status).toBe(402)
    expect(third.body.error).toContain('connector limit reached')
    expect((await t.json('GET', '/api/connectors', { key: u.key })).body.data).toHaveLength(2)
  })

  test('bad input is a 400 naming what is wrong', async () => {
    const u = await t.signUp()
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'dropbox' }, 'type'],
      [{ type: 'notion', config: { spaces: ['X'] } }, 'config.spaces does not apply to a notion connector: it takes pages'],
      [{ type: 'notion', config: { tags: ['X'] } }, 'config'],
      [{ type: 'notion', redirect_to: 'https://evil.example.net/' }, 'redirect_to'],
      [{ type: 'notion', workspace_id: 'nope' }, 'workspace_id'],
    ]
    for (const [body, message] of cases) {
      const res = await create(u.key, body)
      expect(`${JSON.stringify(body)} → ${res.status}`).toBe(`${JSON.stringify(body)} → 400`)
      expect(res.body.error).toContain(message)
    }
    expect((await t.json('GET', '/api/connectors', { key: u.key })).body.data).toHaveLength(0)
  })

  test('a provider without a configured app is a 503 and nothing is stored', async () => {
    const bare = await createTestApp()
    try {
      const u = await bare.signUp()
      const res = await bare.json('POST', '/api/connectors', { key: u.key, body: { type: 'notion' } })
      expect(res.status).toBe(503)
      expect(res.body.error).toContain('notion is not configured')
      expect((await bare.json('GET', '/api/connectors', { key: u.key })).body.data).toHaveLength(0)
    } finally {
      await bare.close()
    }
  })

  test('without credentials it is a 401', async () => {
    expect((await t.json('GET', '/api/connectors', {})).status).toBe(401)
    expect((await t.json('POST', '/api/connectors', { body: { type: 'notion' } })).status).toBe(401)
  })
})

describe('a connector not yet authorized', () => {
  test('refuses to sync and to list spaces, and can be changed, re-authorized and deleted', async () => {
    const u = await t.signUp()
    const { body } = await create(u.key, { type: 'confluence' })
    const id = body.connector.id
    const sync = await t.json('POST', `/api/connectors/${id}/sync`, { key: u.key })
    expect(sync.status).toBe(409)
    expect(sync.body.error).toContain('authorize it first')
    expect((await t.json('GET', `/api/connectors/${id}/confluence/spaces`, { key: u.key })).status).toBe(409)

    const patched = await t.json('PATCH', `/api/connectors/${id}`, { key: u.key, body: { label: 'Wiki', config: { spaces: ['DOCS'] } } })
    expect(patched.status).toBe(200)
    expect(patched.body).toMatchObject({ label: 'Wiki', config: { spaces: ['DOCS'] } })
    const wrong = await t.json('PATCH', `/api/connectors/${id}`, { key: u.key, body: { config: { folders: ['x'] } } })
    expect(wrong.status).toBe(400)
    expect(wrong.body.error).toContain('takes spaces')
    expect((await t.json('PATCH', `/api/connectors/${id}`, { key: u.key, body: {} })).status).toBe(400)

    const again = await t.json('POST', `/api/connectors/${id}/authorize`, { key: u.key, body: {} })
    expect(again.status).toBe(200)
    expect(new URL(again.body.authorization_url).searchParams.get('state')).not.toBe(
      new URL(body.authorization_url).searchParams.get('state'),
    )

    const detail = await t.json('GET', `/api/connectors/${id}`, { key: u.key })
    expect(detail.body).toMatchObject({ id, label: 'Wiki', runs: [] })

    expect((await t.json('DELETE', `/api/connectors/${id}`, { key: u.key })).status).toBe(204)
    expect((await t.json('GET', `/api/connectors/${id}`, { key: u.key })).status).toBe(404)
  })

  test('spaces are for wiki connectors only', async () => {
    const u = await t.signUp()
    const { body } = await create(u.key, { type: 'notion' })
    const res = await t.json('GET', `/api/connectors/${body.connector.id}/confluence/spaces`, { key: u.key })
    expect(res.status).toBe(400)
    expect(res.body.error).toContain('only wiki connectors')
  })
})

describe('the OAuth return', () => {
  test('without a state, with an unknown one, or with one used already, is a 400 and connects nothing', async () => {
    const u = await t.signUp()
    const { body } = await create(u.key, { type: 'notion' })
    const state = new URL(body.authorization_url).searchParams.get('state')!
    expect((await t.json('GET', '/api/connectors/oauth/callback?code=abc', {})).body.error).toContain('state is missing')
    expect((await t.json('GET', '/api/connectors/oauth/callback?code=abc&state=forged', {})).body.error).toContain('state is unknown')
    // The user refused at the provider: the state is spent, the connector stays pending.
    const refused = await t.json('GET', `/api/connectors/oauth/callback?error=access_denied&state=${state}`, {})
    expect(refused.status).toBe(400)
    expect(refused.body.error).toContain('access_denied')
    expect((await t.json('GET', `/api/connectors/oauth/callback?code=abc&state=${state}`, {})).body.error).toContain('already used')
    expect((await t.json('GET', `/api/connectors/${body.connector.id}`, { key: u.key })).body.status).toBe('pending_auth')
  })

  test("a browser signed in as someone else cannot complete another account's authorization", async () => {
    const owner = await t.signUp()
    const other = await t.signUp()
    const { body } = await create(owner.key, { type: 'notion' })
    const state = new URL(body.authorization_url).searchParams.get('state')!
    const res = await t.json('GET', `/api/connectors/oauth/callback?code=abc&state=${state}`, { cookie: other.cookie })
    expect(res.status).toBe(403)
    expect(res.body.error).toContain('started by another account')
  })

  test('with redirect_to, a refusal sends the browser back there with the error', async () => {
    const u = await t.signUp()
    const { body } = await create(u.key, { type: 'notion', redirect_to: `${APP_ORIGIN}/connectors` })
    const state = new URL(body.authorization_url).searchParams.get('state')!
    const res = await t.request('GET', `/api/connectors/oauth/callback?error=access_denied&state=${state}`)
    expect(res.status).toBe(302)
    const to = new URL(res.headers.get('location')!)
    expect(to.origin + to.pathname).toBe(`${APP_ORIGIN}/connectors`)
    expect(Object.fromEntries(to.searchParams)).toEqual({ connector_id: body.connector.id, error: 'access_denied' })
  })
})

describe("another user's connector", () => {
  test('is a 404 on every route, exactly like a missing one', async () => {
    const owner = await t.signUp()
    const other = await t.signUp()
    const { body } = await create(owner.key, { type: 'confluence' })
    const id = body.connector.id
    for (const [method, path, b] of [
      ['GET', `/api/connectors/${id}`],
      ['PATCH', `/api/connectors/${id}`, { label: 'x' }],
      ['DELETE', `/api/connectors/${id}`],
      ['POST', `/api/connectors/${id}/sync`],
      ['POST', `/api/connectors/${id}/authorize`, {}],
      ['GET', `/api/connectors/${id}/confluence/spaces`],
    ] as [string, string, unknown?][]) {
      const res = await t.json(method, path, { key: other.key, body: b })
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 404`)
    }
    expect((await t.json('GET', '/api/connectors', { key: other.key })).body.data).toHaveLength(0)
    expect((await t.json('GET', `/api/connectors/${id}`, { key: owner.key })).status).toBe(200)
  })
})
