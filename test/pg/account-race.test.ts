// On a real server requests run side by side: an account deleted while one of its requests is in flight makes
// that request 401 (its credentials are gone), and a sign-up meeting another for its email 409 — never a 500.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { createTestApp, type TestApp } from '../harness'
import { realServerOrReason } from './databases'

const { reason } = await realServerOrReason()
let t: TestApp
let sql: postgres.Sql
beforeAll(async () => {
  if (reason) return
  t = await createTestApp({ postgres: true })
  sql = postgres(t.config.databaseUrl!, { max: 1, onnotice: () => {} })
})
afterAll(async () => {
  await sql?.end({ timeout: 5 })
  await t?.close()
})

describe.skipIf(reason !== null)(`an account deleted mid-request${reason ? ` (skipped: ${reason})` : ''}`, () => {
  test.each(['key', 'cookie'] as const)('a request by %s that was authenticated before the delete committed answers 401', async (via) => {
    const u = await t.signUp()
    // The delete holds the user's row until it commits; the request's own writes (its usage count) wait for it.
    let commit!: () => void
    const committed = new Promise<void>((resolve) => (commit = resolve))
    let deleting!: () => void
    const started = new Promise<void>((resolve) => (deleting = resolve))
    const deletion = sql.begin(async (tx) => {
      await tx`delete from users where id = ${u.id}`
      deleting()
      await committed
    })
    await started
    const pending = t.json('GET', '/api/workspaces', via === 'key' ? { key: u.key } : { cookie: u.cookie })
    await waitForLockWait()
    commit()
    await deletion
    const res = await pending
    expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { error: expect.any(String), code: 'unauthenticated' } })
    expect((await t.json('GET', '/api/workspaces', via === 'key' ? { key: u.key } : { cookie: u.cookie })).status).toBe(401)
  })
})

describe.skipIf(reason !== null)(`two sign-ups with one email${reason ? ` (skipped: ${reason})` : ''}`, () => {
  test('a sign-up that meets another one for the same email in flight answers 409, never a 500', async () => {
    const email = `race-${crypto.randomUUID().slice(0, 8)}@example.com`
    // The other sign-up has written its row and not committed yet: this one finds no account, then its
    // insert waits on the other's unique key.
    let commit!: () => void
    const committed = new Promise<void>((resolve) => (commit = resolve))
    let inserted!: () => void
    const started = new Promise<void>((resolve) => (inserted = resolve))
    const other = sql.begin(async (tx) => {
      await tx`insert into users (id, email, plan, created_at, updated_at) values (${crypto.randomUUID()}, ${email}, 'free', now(), now())`
      inserted()
      await committed
    })
    await started
    const pending = t.json('POST', '/api/auth/sign-up', { body: { email, password: 'correct horse battery' } })
    await waitForLockWait()
    commit()
    await other
    const res = await pending
    expect({ status: res.status, body: res.body }).toEqual({
      status: 409,
      body: { error: 'an account with this email already exists', code: 'conflict' },
    })
  })
})

/** Until some session of this database waits on a lock: the request has reached its first write. */
async function waitForLockWait(): Promise<void> {
  const admin = postgres(t.config.databaseUrl!, { max: 1, onnotice: () => {} })
  try {
    for (let i = 0; i < 200; i++) {
      const [row] =
        await admin`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
      if (row!.n > 0) return
      await Bun.sleep(10)
    }
    throw new Error('the request never waited for the deleting transaction')
  } finally {
    await admin.end({ timeout: 5 })
  }
}
