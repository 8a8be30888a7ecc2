// When Stripe, a sign-in provider or a connector's provider fails, the client learns which one failed, in words
// that stay the same whatever went wrong; the network's and the driver's own messages (hosts, ports, our key,
// SQL) go to the log with the request id, never into an answer or a sync run the user reads.
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import type { PGlite } from '@electric-sql/pglite'
import { createDb } from '../../db/client'
import { createProviderApi, ProviderError } from '../../src/connectors/provider-api'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { createLogger } from '../../src/log'
import { FakeClock } from '../fakes/clock'
import { startConfluenceFake, type ConfluenceFake } from '../fakes/confluence'
import { block, startNotionFake, type NotionFake } from '../fakes/notion'
import { startFakeGitHub, type FakeOAuthProvider } from '../fakes/oauth-provider'
import { startFakeStripe, type FakeStripe } from '../fakes/stripe'
import { BASE, createTestApp, migratedTemplate, TEST_ENV, type TestApp } from '../harness'
import { CALLBACK, connect, lastRun, runSyncs } from '../connectors/resilience.helpers'

/** A loopback port nothing listens on (taken, then let go). */
function closedPort(): number {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = server
  server.stop(true)
  return port
}

/** What a leaked network error would carry; none of it may reach the client. */
function expectNoInternals(text: string, port: number) {
  for (const secret of ['ECONNREFUSED', 'ConnectionRefused', 'Unable to connect', '127.0.0.1', 'localhost', String(port)])
    expect(text).not.toContain(secret)
}

/** An app whose warnings are kept, for what the operator is told. */
async function appWithLog(env: Record<string, string>) {
  const lines: Record<string, unknown>[] = []
  const log = createLogger('warn', (line) => lines.push(JSON.parse(line)))
  const config = loadConfig({ DATA_DIR: 'memory://', LOG_LEVEL: 'warn', BASE_URL: BASE, ...TEST_ENV, ...env })
  const database = await createDb(config, { pglite: (await (await migratedTemplate()).clone()) as PGlite })
  const t = await createTestApp({ deps: await createDeps(config, { database, clock: new FakeClock(), log }) })
  return { t, lines }
}

describe('Stripe', () => {
  const SECRET_KEY = 'sk_test_upstream_errors'
  const PRICE = 'price_pro_monthly'
  const env = (apiUrl: string, key = SECRET_KEY) => ({
    STRIPE_SECRET_KEY: key,
    STRIPE_WEBHOOK_SECRET: 'whsec_test_upstream',
    STRIPE_PRICE_PRO: PRICE,
    STRIPE_API_URL: apiUrl,
  })
  let fake: FakeStripe
  beforeAll(() => {
    fake = startFakeStripe({ secretKey: SECRET_KEY, prices: [PRICE] })
  })
  afterAll(() => fake.stop())

  test('Stripe unreachable: checkout answers 502 "Stripe could not be reached", the connection error goes to the log', async () => {
    const port = closedPort()
    const { t, lines } = await appWithLog(env(`http://127.0.0.1:${port}`))
    try {
      const u = await t.signUp()
      const res = await t.request('POST', '/api/billing/checkout', { cookie: u.cookie, body: {} })
      const text = await res.text()
      expect({ status: res.status, body: JSON.parse(text) }).toEqual({
        status: 502,
        body: { error: 'Stripe could not be reached', code: 'provider_error' },
      })
      expectNoInternals(text, port)
      const logged = lines.find((l) => l.message === 'upstream failed')
      expect(logged).toMatchObject({ request_id: res.headers.get('x-request-id'), error: 'Stripe could not be reached' })
      expect(String(logged!.cause)).toContain('ECONNREFUSED')
    } finally {
      await t.close()
    }
  })

  test("Stripe refusing our key: 502 naming Stripe's status, not its message (which quotes the key)", async () => {
    const { t, lines } = await appWithLog(env(fake.apiUrl, 'sk_test_wrong_key_1234'))
    try {
      const u = await t.signUp()
      const res = await t.request('POST', '/api/billing/checkout', { cookie: u.cookie, body: {} })
      const text = await res.text()
      expect({ status: res.status, body: JSON.parse(text) }).toEqual({
        status: 502,
        body: { error: 'Stripe answered 401', code: 'provider_error' },
      })
      expect(text).not.toContain('1234')
      expect(String(lines.find((l) => l.message === 'upstream failed')?.cause)).toContain('Invalid API Key')
    } finally {
      await t.close()
    }
  })
})

describe('signing in with GitHub', () => {
  let github: FakeOAuthProvider
  beforeAll(() => {
    github = startFakeGitHub({ callbackUrl: `${BASE}/api/auth/oauth/github/callback` })
  })
  afterAll(() => github.stop())

  test('its API unreachable: the callback answers 502 "github could not be reached", the error goes to the log', async () => {
    const port = closedPort()
    const { t, lines } = await appWithLog({ ...github.env, GITHUB_API_URL: `http://127.0.0.1:${port}` })
    try {
      github.signInAs({
        id: '4200001',
        login: 'octo',
        name: 'Octo',
        emails: [{ email: 'octo@example.com', verified: true, primary: true }],
      })
      const started = await t.request('GET', '/api/auth/oauth/github')
      const cookie = started.headers
        .getSetCookie()
        .find((c) => c.startsWith('oauth_state='))!
        .split(';')[0]!
      const atProvider = await fetch(started.headers.get('location')!, { redirect: 'manual' })
      const res = await t.app.handle(new Request(atProvider.headers.get('location')!, { headers: { cookie } }))
      const text = await res.text()
      expect({ status: res.status, body: JSON.parse(text) }).toEqual({
        status: 502,
        body: { error: 'github could not be reached', code: 'provider_error' },
      })
      expectNoInternals(text, port)
      expect(String(lines.find((l) => l.message === 'upstream failed')?.cause)).toContain('ECONNREFUSED')
    } finally {
      await t.close()
    }
  })
})

describe('connectors', () => {
  let confluence: ConfluenceFake
  let notion: NotionFake
  let t: TestApp
  let lines: Record<string, unknown>[]
  beforeAll(async () => {
    confluence = startConfluenceFake({ callbackUrl: CALLBACK })
    notion = startNotionFake({ callbackUrl: CALLBACK, workspaceName: 'Acme Notion' })
    ;({ t, lines } = await appWithLog({ ...confluence.env, ...notion.env, PLAN_FREE_CONNECTORS: '10' }))
  })
  afterAll(async () => {
    await t.close()
    await notion.stop()
  })

  test('a provider that cannot be reached: the client reads "confluence could not be reached", in the answer and in the failed sync', async () => {
    const u = await t.signUp()
    const { id } = await connect(t, u, 'confluence')
    const port = Number(new URL(confluence.baseUrl).port)
    await confluence.stop()
    // The back-off waits between attempts are skipped, not slept: what the client reads is the point.
    const sleep = spyOn(Bun, 'sleep').mockImplementation(async () => {})
    try {
      const res = await t.request('GET', `/api/connectors/${id}/confluence/spaces`, { key: u.key })
      const text = await res.text()
      expect({ status: res.status, body: JSON.parse(text) }).toEqual({
        status: 502,
        body: { error: 'confluence could not be reached', code: 'provider_error' },
      })
      expectNoInternals(text, port)

      await runSyncs(t)
      const run = await lastRun(t, u, id)
      expect(run).toMatchObject({ status: 'failed', error: 'confluence could not be reached' })
    } finally {
      sleep.mockRestore()
    }
    // The operator learns why, by run id.
    const logged = lines.find((l) => l.message === 'sync failed')
    expect(logged).toMatchObject({ error: 'confluence could not be reached' })
    expect(String(logged!.cause)).toContain('ECONNREFUSED')
  })

  test("a sync that fails inside the service shows 'internal error' in its run, not the database's message", async () => {
    const u = await t.signUp()
    // The database refuses this page's row (a trigger standing in for any failure of ours): the sync fails in
    // the service, not at the provider, and the database's message quotes the statement and its values.
    await t.deps.db.execute(
      sql.raw(`create function refuse_poison() returns trigger language plpgsql as $$
        begin if new.title = 'Poison' then raise exception 'poison row refused'; end if; return new; end $$`),
    )
    await t.deps.db.execute(
      sql.raw('create trigger refuse_poison before insert on documents for each row execute function refuse_poison()'),
    )
    const page = notion.addPage({ title: 'Poison', blocks: [block('paragraph', 'private notes of the lab')] })
    const c = await connect(t, u, 'notion', { pages: [page] })
    await runSyncs(t)
    const run = await lastRun(t, u, c.id)
    expect(run).toMatchObject({ status: 'failed', error: 'sync failed: internal error (logged under this run id)' })
    expect(String(lines.find((l) => l.message === 'sync failed' && l.run_id === run.id)?.error)).toContain('poison row refused')
  })

  test('the provider API engine: an unreachable API is a ProviderError with a stable message and the cause kept', async () => {
    const port = closedPort()
    const api = createProviderApi({
      name: 'notion',
      base: `http://127.0.0.1:${port}`,
      tokens: { token: async () => 'token', refresh: async () => null },
      attempts: 1,
    })
    const error = await api.json('/v1/search').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).message).toBe('notion could not be reached')
    expect(String((error as ProviderError).cause)).not.toBe('undefined')
  })
})
