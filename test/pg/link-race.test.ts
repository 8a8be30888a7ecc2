// On a real server a manual link and a link suggestion (or two link requests) for one pair of documents can
// be in flight together: the one that loses the pair's unique key completes the other's link, never a 500.
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
  sql = postgres(t.config.databaseUrl!, { max: 2, onnotice: () => {} })
})
afterAll(async () => {
  await sql?.end({ timeout: 5 })
  await t?.close()
})

describe.skipIf(reason !== null)(`linking a pair that is being linked${reason ? ` (skipped: ${reason})` : ''}`, () => {
  test('a link request meeting an uncommitted suggestion for the same pair completes that link', async () => {
    const u = await t.signUp()
    const ids: string[] = []
    for (const body of ['tides and lighthouses', 'keepers and lamps'])
      ids.push((await t.json('POST', '/api/documents', { key: u.key, body: { body } })).body.id)
    const [a, b] = ids as [string, string]
    // The suggestion job has inserted the pair and not committed yet: the request finds no link, then its
    // insert waits on the pair's unique key.
    let commit!: () => void
    const committed = new Promise<void>((resolve) => (commit = resolve))
    let inserted!: () => void
    const started = new Promise<void>((resolve) => (inserted = resolve))
    const suggestion = crypto.randomUUID()
    const job = sql.begin(async (tx) => {
      await tx`insert into links (id, user_id, source_id, target_id, score, status, origin, created_at)
               values (${suggestion}, ${u.id}, ${b}, ${a}, 0.8, 'pending', 'suggested', now())`
      inserted()
      await committed
    })
    await started
    const pending = t.json('POST', `/api/documents/${a}/link`, { key: u.key, body: { target_id: b } })
    for (let i = 0; i < 500; i++) {
      const [row] =
        await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
      if (row!.n > 0) break
      await Bun.sleep(10)
    }
    commit()
    await job
    const res = await pending
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined })
    expect(res.body).toMatchObject({ id: suggestion, status: 'completed' })
    const rows = await sql`select id, status from links where user_id = ${u.id}`
    expect([...rows]).toEqual([{ id: suggestion, status: 'completed' }])
  })
})
