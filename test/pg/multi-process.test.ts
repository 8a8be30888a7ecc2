// Two API processes and two workers on one real PostgreSQL, as "run more processes" promises: credentials made
// on one work on the other and a revocation holds on both at once; a plan's caps and rates hold when one user
// races both; each job runs once; a keyword search on one sees a write made through the other.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { createTestDatabase, realServerOrReason, type TestDatabase } from './databases'
import { startApi, startWorkerProcess, type ServiceProcess } from './processes'

const { reason } = await realServerOrReason()
const DOCUMENTS = 10
const SEARCHES = 5
let database: TestDatabase
let sql: postgres.Sql
let a: ServiceProcess
let b: ServiceProcess
let workers: ServiceProcess[] = []

beforeAll(async () => {
  if (reason) return
  database = await createTestDatabase()
  sql = postgres(database.url, { max: 2, onnotice: () => {} })
  // Every user's keyword copy is held in memory (from one document on), and its loading is logged (debug).
  const env = {
    WORKER_IN_PROCESS: 'false',
    PLAN_FREE_DOCUMENTS: String(DOCUMENTS),
    PLAN_FREE_SEARCH_PER_MIN: String(SEARCHES),
    KEYWORD_MEMORY_MIN_DOCUMENTS: '1',
    LOG_LEVEL: 'debug',
  }
  ;[a, b] = await Promise.all([startApi(database.url, env), startApi(database.url, env)])
  workers = [startWorkerProcess(database.url), startWorkerProcess(database.url)]
}, 60_000)
afterAll(async () => {
  await Promise.all([a, b, ...workers].map((p) => p?.stop()))
  await sql?.end({ timeout: 5 })
  await database?.drop()
}, 30_000)

interface Call {
  key?: string
  cookie?: string
  body?: unknown
}

async function call(on: ServiceProcess, method: string, path: string, { key, cookie, body }: Call = {}) {
  const headers: Record<string, string> = {}
  if (key) headers.authorization = `Bearer ${key}`
  if (cookie) {
    headers.cookie = cookie
    headers.origin = on.url
  }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(on.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers }
}

async function signUp(on: ServiceProcess) {
  const res = await fetch(`${on.url}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `mp-${crypto.randomUUID().slice(0, 8)}@example.com`, password: 'correct horse battery' }),
  })
  expect(res.status).toBe(201)
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!
  const key = await call(on, 'POST', '/api/keys', { cookie, body: { label: 'mp' } })
  expect(key.status).toBe(201)
  return { id: ((await res.json()) as { user: { id: string } }).user.id, cookie, key: key.body.key as string, keyId: key.body.id as string }
}

/** Half of the calls through a, half through b, all at once. */
const raced = <T>(n: number, make: (on: ServiceProcess, i: number) => Promise<T>) =>
  Promise.all(Array.from({ length: n }, (_, i) => make(i % 2 ? b : a, i)))
const sortedStatuses = (results: { status: number }[]) => results.map((r) => r.status).sort()

describe.skipIf(reason !== null)(`two API processes and two workers on one server${reason ? ` (skipped: ${reason})` : ''}`, () => {
  test('a session and a key made on one process work on the other; revoking on one refuses on both at once', async () => {
    const u = await signUp(a)
    expect((await call(b, 'GET', '/api/auth/session', { cookie: u.cookie })).status).toBe(200)
    expect((await call(b, 'GET', '/api/auth/session', { key: u.key })).body).toMatchObject({ user: { id: u.id }, via: 'key' })
    expect((await call(b, 'DELETE', `/api/keys/${u.keyId}`, { cookie: u.cookie })).status).toBe(204)
    const [onA, onB] = await Promise.all([call(a, 'GET', '/api/keys', { key: u.key }), call(b, 'GET', '/api/keys', { key: u.key })])
    expect([onA.status, onB.status]).toEqual([401, 401])
    expect((await call(a, 'POST', '/api/auth/sign-out', { cookie: u.cookie })).status).toBe(204)
    expect((await call(b, 'GET', '/api/auth/session', { cookie: u.cookie })).status).toBe(401)
  })

  test('an account deleted through one process is refused on the other at once, by key and by session', async () => {
    const u = await signUp(a)
    // Both processes have served the credentials just before, so anything they kept of them would still be warm.
    for (const on of [a, b]) expect((await call(on, 'GET', '/api/usage', { key: u.key })).status).toBe(200)
    expect((await call(b, 'GET', '/api/auth/session', { cookie: u.cookie })).status).toBe(200)
    expect((await call(a, 'DELETE', '/api/account', { cookie: u.cookie, body: { confirm: 'DELETE' } })).status).toBe(204)
    const after = await Promise.all([
      call(a, 'GET', '/api/usage', { key: u.key }),
      call(b, 'GET', '/api/usage', { key: u.key }),
      call(b, 'GET', '/api/auth/session', { cookie: u.cookie }),
    ])
    expect(after.map((r) => r.status)).toEqual([401, 401, 401])
  })

  test('a plan change (a subscription the billing webhook stores) holds on both processes at once: limits and key tier', async () => {
    const u = await signUp(b)
    for (const on of [a, b]) expect((await call(on, 'GET', '/api/usage', { key: u.key })).body.plan).toBe('free')
    await sql`insert into subscriptions (user_id, plan, status, stripe_customer_id, stripe_subscription_id) values (${u.id}, 'pro', 'active', ${`cus_${u.id}`}, ${`sub_${u.id}`})`
    const [onA, onB] = await Promise.all([call(a, 'GET', '/api/usage', { key: u.key }), call(b, 'GET', '/api/keys', { cookie: u.cookie })])
    expect(onA.body.plan).toBe('pro')
    expect(onB.body.data.map((k: { tier: string }) => k.tier)).toEqual(['pro'])
  })

  test(`a ${DOCUMENTS}-document plan raced through both processes stores exactly ${DOCUMENTS}`, async () => {
    const u = await signUp(b)
    const results = await raced(DOCUMENTS + 6, (on, i) =>
      call(on, 'POST', '/api/documents', { key: u.key, body: { body: `raced document ${i} ${crypto.randomUUID()}` } }),
    )
    expect(sortedStatuses(results)).toEqual([...Array(DOCUMENTS).fill(201), ...Array(6).fill(402)])
    const [stored] = await sql`select count(*)::int as n from documents where user_id = ${u.id}`
    expect(stored!.n).toBe(DOCUMENTS)
    expect((await call(a, 'GET', '/api/usage', { key: u.key })).body.documents.used).toBe(DOCUMENTS)
  })

  test(`${SEARCHES} searches a minute, raced through both processes: exactly ${SEARCHES} answered`, async () => {
    // The window is the calendar minute: a burst that straddles two is tried again with a fresh user.
    for (let attempt = 0; attempt < 3; attempt++) {
      const u = await signUp(a)
      const minute = () => Math.floor(Date.now() / 60_000)
      const before = minute()
      const results = await raced(SEARCHES + 7, (on) => call(on, 'GET', '/api/search?q=anything', { key: u.key }))
      if (minute() !== before) continue
      expect(sortedStatuses(results)).toEqual([...Array(SEARCHES).fill(200), ...Array(7).fill(429)])
      return
    }
    throw new Error('every burst straddled a minute')
  })

  test('each embedding job runs once with two workers on the queue, and every document ends indexed', async () => {
    const u = await signUp(b)
    const ids = (
      await raced(DOCUMENTS, (on, i) =>
        call(on, 'POST', '/api/documents', { key: u.key, body: { body: `queued document ${i} ${crypto.randomUUID()}` } }),
      )
    ).map((r) => {
      expect(r.status).toBe(201)
      return r.body.id as string
    })
    const deadline = Date.now() + 30_000
    let jobs: { status: string; attempts: number; document_id: string }[] = []
    while (Date.now() < deadline) {
      jobs = [
        ...(await sql<
          typeof jobs
        >`select status, attempts, payload->>'document_id' as document_id from jobs where user_id = ${u.id} and kind = 'embed-document'`),
      ]
      if (jobs.length === ids.length && jobs.every((j) => j.status === 'succeeded')) break
      await Bun.sleep(100)
    }
    expect(jobs.map((j) => j.document_id).sort()).toEqual([...ids].sort())
    expect(jobs.every((j) => j.status === 'succeeded' && j.attempts === 1)).toBe(true)
    const statuses = await sql`select index_status, count(*)::int as n from documents where user_id = ${u.id} group by 1`
    expect([...statuses]).toEqual([{ index_status: 'indexed', n: DOCUMENTS }])
  }, 40_000)

  test('a keyword search on one process finds a document ingested through the other, at once', async () => {
    const u = await signUp(a)
    const word = `zq${crypto.randomUUID().replace(/-/g, '').slice(0, 10)}`
    await call(a, 'POST', '/api/documents', { key: u.key, body: { body: 'a first note about lighthouses' } })
    // a's first search ranks in SQL and loads the user's copy; once it is loaded, a ranks from memory.
    expect((await call(a, 'GET', '/api/search?q=lighthouses&mode=keyword', { key: u.key })).body.results).toHaveLength(1)
    const loaded = () => a.log.some((line) => line.includes('keyword index loaded in memory') && line.includes(u.id))
    for (let i = 0; i < 100 && !loaded(); i++) await Bun.sleep(50)
    expect(loaded()).toBe(true)
    expect((await call(a, 'GET', '/api/search?q=lighthouses&mode=keyword', { key: u.key })).body.results).toHaveLength(1)
    const doc = await call(b, 'POST', '/api/documents', { key: u.key, body: { body: `the keeper's word is ${word}` } })
    expect(doc.status).toBe(201)
    const found = await call(a, 'GET', `/api/search?q=${word}&mode=keyword`, { key: u.key })
    expect(found.body.results.map((r: { document: { id: string } }) => r.document.id)).toEqual([doc.body.id])
    // a's copy caught up with b's write from the log of changes: it was not loaded again.
    expect(a.log.filter((line) => line.includes('keyword index loaded in memory') && line.includes(u.id))).toHaveLength(1)
  })
})
