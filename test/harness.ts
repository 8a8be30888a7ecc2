// createTestApp(): a fresh service on an in-memory PGlite cloned from one migrated template per process (or,
// with TEST_DATABASE=postgres, on its own database of a real PostgreSQL, see test/pg/), with helpers to call
// it through app.handle the way a client would.
import type { PGlite } from '@electric-sql/pglite'
import { createDb, openPglite } from '../db/client'
import { runMigrations } from '../db/migrate'
import { createApp, type App } from '../src/app'
import { loadConfig, type Config } from '../src/config'
import { createDeps } from '../src/create-deps'
import type { Deps } from '../src/deps'
import { FakeClock } from './fakes/clock'
import { createTestDatabase, onPostgres, type TestDatabase } from './pg/databases'

let template: Promise<PGlite> | undefined

/** Migrations replay once per test process; each app gets a clone (~0.5 s instead of ~3 s). */
export function migratedTemplate(): Promise<PGlite> {
  template ??= (async () => {
    const pglite = await openPglite('memory://')
    await runMigrations(await createDb({ dataDir: 'memory://', databaseUrl: null }, { pglite }))
    return pglite
  })()
  return template
}

export const BASE = 'http://localhost:3000'

export interface RequestOptions {
  body?: unknown
  key?: string
  cookie?: string
  headers?: Record<string, string>
}

export interface TestUser {
  id: string
  email: string
  cookie: string
  key: string
}

export interface TestApp {
  app: App
  deps: Deps
  config: Config
  clock: FakeClock
  request(method: string, path: string, options?: RequestOptions): Promise<Response>
  json<T = any>(method: string, path: string, options?: RequestOptions): Promise<{ status: number; body: T; headers: Headers }>
  signUp(options?: { email?: string; withKey?: boolean; scopes?: string[] }): Promise<TestUser>
  close(): Promise<void>
}

let counter = 0

/** Tests are written against the free plan's caps (the default without billing is unlimited): `DEFAULT_PLAN: ''`
 * gives a test the service's own default. */
export const TEST_ENV = { DEFAULT_PLAN: 'free' }

/** `postgres`: on the real server (test/pg/), whatever TEST_DATABASE says; by default it decides. */
export async function createTestApp(options: { env?: Record<string, string>; deps?: Deps; postgres?: boolean } = {}): Promise<TestApp> {
  const server: TestDatabase | null = (options.postgres ?? onPostgres) && !options.deps ? await createTestDatabase() : null
  const env = server ? { DATABASE_URL: server.url, ENCRYPTION_KEY: 'ab'.repeat(32) } : {}
  const config = loadConfig({
    DATA_DIR: 'memory://',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    BASE_URL: BASE,
    ...env,
    ...TEST_ENV,
    ...options.env,
  })
  const clock = new FakeClock()
  const database = async () =>
    server ? createDb(config) : createDb(config, { pglite: (await (await migratedTemplate()).clone()) as PGlite })
  const deps = options.deps ?? (await createDeps(config, { database: await database(), clock }))
  const app = createApp(deps)

  const request = (method: string, path: string, { body, key, cookie, headers = {} }: RequestOptions = {}) => {
    const h: Record<string, string> = { ...headers }
    if (key) h.authorization = `Bearer ${key}`
    if (cookie) {
      h.cookie = cookie
      // A browser sends its Origin; tests that check the CSRF rule pass their own.
      if (method !== 'GET' && !('origin' in h)) h.origin = BASE
    }
    let payload: BodyInit | undefined
    if (body instanceof FormData || typeof body === 'string') payload = body
    else if (body !== undefined) {
      payload = JSON.stringify(body)
      h['content-type'] ??= 'application/json'
    }
    return app.handle(new Request(BASE + path, { method, headers: h, body: payload }))
  }

  const json = async (method: string, path: string, opts?: RequestOptions) => {
    const res = await request(method, path, opts)
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers }
  }

  /** `scopes`: the key's (default: what a key gets by default, read and write). */
  const signUp = async ({
    email,
    withKey = true,
    scopes,
  }: {
    email?: string
    withKey?: boolean
    scopes?: string[]
  } = {}): Promise<TestUser> => {
    const address = email ?? `user${++counter}-${crypto.randomUUID().slice(0, 8)}@example.com`
    const res = await request('POST', '/api/auth/sign-up', { body: { email: address, password: 'correct horse battery' } })
    if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`)
    const { user } = (await res.json()) as { user: { id: string } }
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!
    let key = ''
    if (withKey) {
      const created = await json('POST', '/api/keys', { cookie, body: { label: 'test', ...(scopes && { scopes }) } })
      if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${JSON.stringify(created.body)}`)
      key = created.body.key
    }
    return { id: user.id, email: address, cookie, key }
  }

  const close = async () => {
    await deps.close()
    await server?.drop()
  }
  return { app, deps, config, clock, request, json, signUp, close }
}
