// POST /api/documents/bulk refusals: a malformed request is one 400, a body past 32 MiB a 413 naming the limit,
// a batch past a plan cap one 402 with nothing written; Idempotency-Key replays a batch; usage counts one call.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { count, eq } from 'drizzle-orm'
import { events, jobs } from '../../db/schema'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { ingest, storedCount, uniqueBody } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { PLAN_FREE_DOCUMENTS: '5', PLAN_FREE_STORAGE_BYTES: '20000' } })
})
afterAll(() => t.close())

const bulk = (u: TestUser, body: unknown, headers?: Record<string, string>) =>
  t.json('POST', '/api/documents/bulk', { key: u.key, body, headers })
const docs = (n: number, size = 20) => Array.from({ length: n }, (_, i) => ({ body: `${uniqueBody(`doc ${i}`)} ${'z'.repeat(size)}` }))
const rowsOf = async (table: typeof jobs | typeof events, u: TestUser) =>
  (await t.deps.db.select({ n: count() }).from(table).where(eq(table.user_id, u.id)))[0]!.n

describe('malformed requests', () => {
  test('an empty list, more than 1,000 items, or no list at all is 400 and writes nothing', async () => {
    const u = await t.signUp()
    for (const body of [{ documents: [] }, { documents: docs(1001, 0) }, {}, { documents: 'many' }]) {
      const res = await bulk(u, body)
      expect(res.status).toBe(400)
      expect(res.body.error).toContain('documents')
    }
    expect(await storedCount(t, u)).toBe(0)
  })

  test('a body past 32 MiB is 413 naming the limit; the single route keeps its 2 MiB', async () => {
    const u = await t.signUp()
    const big = { documents: [{ body: 'a'.repeat(1000) }], pad: 'p'.repeat(32 * 1024 * 1024) }
    const res = await bulk(u, big)
    expect(res.status).toBe(413)
    expect(res.body.error).toContain(String(32 * 1024 * 1024))
    const single = await t.json('POST', '/api/documents', { key: u.key, body: { body: 'b'.repeat(3 * 1024 * 1024) } })
    expect(single.status).toBe(413)
    expect(single.body.error).toContain(String(2 * 1024 * 1024))
  })

  test('a batch larger than 2 MiB (one request) is accepted', async () => {
    const pro = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
    try {
      const p = await pro.signUp()
      const res = await pro.json('POST', '/api/documents/bulk', { key: p.key, body: { documents: docs(4, 700 * 1024) } })
      expect(res.status).toBe(200)
      expect(res.body.created).toBe(4)
    } finally {
      await pro.close()
    }
  })
})

describe('plan caps', () => {
  test('a batch that would pass the document cap is refused whole with 402: no document, job or event written', async () => {
    const u = await t.signUp()
    for (let i = 0; i < 3; i++) await ingest(t, u)
    const [jobsBefore, eventsBefore] = [await rowsOf(jobs, u), await rowsOf(events, u)]
    const res = await bulk(u, { documents: docs(3) })
    expect(res.status).toBe(402)
    expect(res.body.error).toContain('document limit reached')
    expect(res.body.error).toContain('3 documents to the 3 stored')
    expect(await storedCount(t, u)).toBe(3)
    expect([await rowsOf(jobs, u), await rowsOf(events, u)]).toEqual([jobsBefore, eventsBefore])
    // Up to the cap is fine, and duplicates in the batch do not count twice.
    const fits = await bulk(u, { documents: [...docs(1), { body: 'twice' }, { body: 'twice' }] })
    expect(fits.status).toBe(200)
    expect(fits.body).toMatchObject({ created: 2, deduplicated: 1 })
    expect(await storedCount(t, u)).toBe(5)
  })

  test('a batch that would pass the storage cap is refused whole with 402', async () => {
    const u = await t.signUp()
    const res = await bulk(u, { documents: docs(3, 8000) })
    expect(res.status).toBe(402)
    expect(res.body.error).toContain('storage')
    expect(await storedCount(t, u)).toBe(0)
  })
})

describe('HTTP conventions', () => {
  test('Idempotency-Key replays the first answer and writes nothing more', async () => {
    const u = await t.signUp()
    const body = { documents: docs(2) }
    const first = await bulk(u, body, { 'idempotency-key': 'batch-1' })
    const again = await bulk(u, body, { 'idempotency-key': 'batch-1' })
    expect(first.status).toBe(200)
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    expect(await storedCount(t, u)).toBe(2)
  })

  test('usage: one API call for the request, every document created counted', async () => {
    const u = await t.signUp()
    const before = (await t.json('GET', '/api/usage', { key: u.key })).body
    await bulk(u, { documents: docs(4) })
    const after = (await t.json('GET', '/api/usage', { key: u.key })).body
    // The GET /api/usage in between counts too.
    expect(after.api_calls.used - before.api_calls.used).toBe(2)
    expect(after.documents.used).toBe(4)
    expect(await rowsOf(events, u)).toBe(4)
  })
})
