// On a real server an embedding job and a request writing the same document run side by side. Both touch
// the document's row and the user's keyword_stats row (its triggers); taken in opposite orders they deadlock,
// and Postgres kills one: a 500 for the request or a failed job. The job takes the document first, as a
// single UPDATE does, so they queue instead.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp } from '../harness'
import { EMBED, indexStatus, jobsFor } from '../jobs/jobs.fixtures'
import { realServerOrReason } from './databases'

const { reason } = await realServerOrReason()
let t: TestApp
let sql: postgres.Sql
beforeAll(async () => {
  if (reason) return
  t = await createTestApp({ postgres: true, env: { EMBEDDING_PROVIDER: 'hash', WORKER_IN_PROCESS: 'false' } })
  sql = postgres(t.config.databaseUrl!, { max: 2, onnotice: () => {} })
})
afterAll(async () => {
  await sql?.end({ timeout: 5 })
  await t?.close()
})

describe.skipIf(reason !== null)(`lock order${reason ? ` (skipped: ${reason})` : ''}`, () => {
  test.each([
    ['a rate', (id: string) => ({ path: `/api/documents/${id}/rate`, body: { rating: -1 } as unknown })],
    ['an archive', (id: string) => ({ path: `/api/documents/${id}/archive`, body: undefined as unknown })],
  ] as const)('%s request racing the embedding job of its document: both succeed, neither deadlocks', async (_, call) => {
    const u = await t.signUp()
    const created = await t.json('POST', '/api/documents', {
      key: u.key,
      body: { body: `gardens, rivers and bread ${crypto.randomUUID()}` },
    })
    expect(created.status).toBe(201)
    const id: string = created.body.id
    // Someone holds the document's row; the request queues for it first, then the job.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let holding!: () => void
    const held = new Promise<void>((resolve) => (holding = resolve))
    const holder = sql.begin(async (tx) => {
      await tx`select id from documents where id = ${id} for update`
      holding()
      await released
    })
    await held
    const { path, body } = call(id)
    const request = t.json('POST', path, { key: u.key, body })
    await waitersAtLeast(1)
    const job = drainJobs(t.deps, 'lock-order', EMBED)
    await waitersAtLeast(2)
    release()
    await holder
    const [res, ran] = await Promise.all([request, job])
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined })
    expect(ran).toBe(1)
    expect(await indexStatus(t.deps, id)).toBe('indexed')
    expect((await jobsFor(t.deps, id)).map((j) => ({ status: j.status, last_error: j.last_error }))).toEqual([
      { status: 'succeeded', last_error: null },
    ])
  })
})

describe.skipIf(reason !== null)(`lock order of approval${reason ? ` (skipped: ${reason})` : ''}`, () => {
  test('approving a draft that supersedes a document, while the draft is rated: both succeed, neither deadlocks', async () => {
    const u = await t.signUp()
    const input = { title: 'Notes', body: `gardens, rivers and bread ${crypto.randomUUID()}` }
    const doc = await t.json('POST', '/api/documents', { key: u.key, body: input })
    const draft = await t.json('POST', '/api/documents', { key: u.key, body: { ...input, kind: 'fact' } })
    expect(draft.body).toMatchObject({ status: 'pending_approval', metadata: { supersedes: doc.body.id } })
    const id: string = draft.body.id
    // Approval archives the superseded document (its trigger takes keyword_stats), then activates the draft.
    const [rated, approved] = await whileHeld(id, [
      () => t.json('POST', `/api/documents/${id}/rate`, { key: u.key, body: { rating: 1 } }),
      () => t.json('POST', `/api/documents/${id}/approve`, { cookie: u.cookie }),
    ])
    expect([rated!.status, approved!.status, approved!.body.error]).toEqual([200, 200, undefined])
    expect((await t.json('GET', `/api/documents/${id}`, { key: u.key })).body).toMatchObject({ status: 'active', rating: 1 })
    expect((await t.json('GET', `/api/documents/${doc.body.id}`, { key: u.key })).body).toMatchObject({ status: 'archived' })
  })
})

/** Runs `calls` one after another while another session holds the document's row, each queued on a lock
 * before the next starts, then lets the row go: they meet in that order. */
async function whileHeld<T>(id: string, calls: (() => Promise<T>)[]): Promise<T[]> {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let holding!: () => void
  const held = new Promise<void>((resolve) => (holding = resolve))
  const holder = sql.begin(async (tx) => {
    await tx`select id from documents where id = ${id} for update`
    holding()
    await released
  })
  await held
  const pending: Promise<T>[] = []
  for (const call of calls) {
    pending.push(call())
    await waitersAtLeast(pending.length)
  }
  release()
  await holder
  return Promise.all(pending)
}

/** Until this many sessions of the app's database wait on a lock. */
async function waitersAtLeast(n: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const [row] = await sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`
    if (row!.n >= n) return
    await Bun.sleep(10)
  }
  throw new Error(`fewer than ${n} sessions ever waited on a lock`)
}
