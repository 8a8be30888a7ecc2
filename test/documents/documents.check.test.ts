// GET /api/documents/check gives the verdict ingest gives, with the same reason text: for the body's size
// (1 MiB), the metadata's (16 KiB), the document cap and the storage cap — each asked side by side.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { storedCount, uniqueBody } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const MiB = 1024 * 1024
const check = (app: TestApp, u: TestUser, query: string) => app.json('GET', `/api/documents/check?${query}`, { key: u.key })
const ingest = (app: TestApp, u: TestUser, body: Record<string, unknown>) => app.json('POST', '/api/documents', { key: u.key, body })

/** Ingest refused with `status`, check not allowed with the same reason, nothing stored. */
async function expectSameRefusal(app: TestApp, u: TestUser, query: string, body: Record<string, unknown>, status: number) {
  const before = await storedCount(app, u)
  const refused = await ingest(app, u, body)
  expect(refused.status).toBe(status)
  const verdict = await check(app, u, query)
  expect(verdict.status).toBe(200)
  expect(verdict.body).toMatchObject({ allowed: false, reason: refused.body.error })
  expect(await storedCount(app, u)).toBe(before)
}

describe('check and ingest agree', () => {
  test('a body over 1 MiB: ingest 413, check not allowed with the same reason (1,100,000 bytes)', async () => {
    const u = await t.signUp()
    await expectSameRefusal(t, u, 'size_bytes=1100000', { body: 'x'.repeat(1_100_000) }, 413)
    await expectSameRefusal(t, u, `size_bytes=${MiB + 1}`, { body: 'x'.repeat(MiB + 1) }, 413)
  })

  test('a body of exactly 1 MiB: both allow it', async () => {
    const u = await t.signUp()
    expect((await check(t, u, `size_bytes=${MiB}`)).body).toMatchObject({ allowed: true })
    expect((await ingest(t, u, { body: 'y'.repeat(MiB) })).status).toBe(201)
  })

  test('metadata over 16 KiB: ingest 400, check (metadata_bytes) not allowed with the same reason', async () => {
    const u = await t.signUp()
    const metadata = { blob: 'x'.repeat(17 * 1024) }
    const bytes = Buffer.byteLength(JSON.stringify(metadata))
    await expectSameRefusal(t, u, `size_bytes=10&metadata_bytes=${bytes}`, { body: uniqueBody(), metadata }, 400)
    expect((await check(t, u, 'metadata_bytes=16384')).body.allowed).toBe(true)
  })

  test('at the document cap: ingest 402, check not allowed with the same reason', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_DOCUMENTS: '1' } })
    try {
      const u = await capped.signUp()
      expect((await ingest(capped, u, { body: uniqueBody() })).status).toBe(201)
      await expectSameRefusal(capped, u, 'size_bytes=10', { body: uniqueBody() }, 402)
    } finally {
      await capped.close()
    }
  })

  test('past the storage cap: ingest 402, check not allowed with the same reason', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_STORAGE_BYTES: '1000' } })
    try {
      const u = await capped.signUp()
      // Ingest counts title and excerpt too; a body this size passes the cap whatever they add.
      await expectSameRefusal(capped, u, 'size_bytes=2000', { body: 'z'.repeat(2000) }, 402)
    } finally {
      await capped.close()
    }
  })
})
