// Idempotency-Key: a retried POST replays the first response instead of creating a second object; another body
// under the same key is a 422; duplicates in flight wait for the first; the record holds across app instances
// sharing one database, expires after 24 hours, and is swept by the maintenance tick.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { and, count, eq } from 'drizzle-orm'
import { documents, idempotencyKeys, workspaces } from '../../db/schema'
import { createApp } from '../../src/app'
import { fingerprintValue, idempotencyTiming } from '../../src/http/idempotency'
import { KEEP_MS, sweepIdempotencyKeys } from '../../src/http/idempotency.store'
import { createTestApp, BASE, type TestApp, type TestUser } from '../harness'

setDefaultTimeout(30_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())
afterEach(() => Object.assign(idempotencyTiming, { waitMs: 10_000, pollMs: 25 }))

const post = (user: TestUser, path: string, body: unknown, key: string | null, method = 'POST') =>
  t.json(method, path, { key: user.key, body, headers: key === null ? {} : { 'idempotency-key': key } })

const workspaceCount = async (user: TestUser) =>
  (await t.deps.db.select({ n: count() }).from(workspaces).where(eq(workspaces.user_id, user.id)))[0]!.n
const documentCount = async (user: TestUser) =>
  (await t.deps.db.select({ n: count() }).from(documents).where(eq(documents.user_id, user.id)))[0]!.n

describe('replay', () => {
  test('the same key and body replay the first 201 (status, body, Location), marked Idempotent-Replayed; one object is created', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    const first = await post(user, '/api/workspaces', { name: 'Research' }, key)
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    const again = await post(user, '/api/workspaces', { name: 'Research' }, key)
    expect(again.status).toBe(201)
    expect(again.body).toEqual(first.body)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.headers.get('location')).toBe(first.headers.get('location'))
    expect(again.headers.get('content-type')).toContain('application/json')
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'))
    expect(await workspaceCount(user)).toBe(2) // the default one and this one
  })

  test('the same JSON with its keys in another order and other spacing is the same request', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    const first = await t.request('POST', '/api/documents', {
      key: user.key,
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      body: '{"title":"T","body":"same body"}',
    })
    const first2 = await t.request('POST', '/api/documents', {
      key: user.key,
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
      body: '{ "body": "same body", "title": "T" }',
    })
    expect(first.status).toBe(201)
    expect(first2.status).toBe(201)
    expect(first2.headers.get('idempotent-replayed')).toBe('true')
    expect(await documentCount(user)).toBe(1)
  })

  test('without a key, a retried POST creates a second object (what the key is for)', async () => {
    const user = await t.signUp()
    await post(user, '/api/documents', { title: 'Twice', body: 'a retried ingest without a key' }, null)
    await post(user, '/api/documents', { title: 'Twice', body: 'a retried ingest without a key, retried' }, null)
    expect(await documentCount(user)).toBe(2)
  })

  test('keys are scoped per user: another user with the same key and body gets their own object', async () => {
    const [a, b] = [await t.signUp(), await t.signUp()]
    const key = 'shared-key-1'
    const ra = await post(a, '/api/workspaces', { name: 'Mine' }, key)
    const rb = await post(b, '/api/workspaces', { name: 'Mine' }, key)
    expect(rb.status).toBe(201)
    expect(rb.headers.get('idempotent-replayed')).toBeNull()
    expect(rb.body.id).not.toBe(ra.body.id)
  })

  test('a DELETE retried with its key replays the 204 instead of a 404', async () => {
    const user = await t.signUp()
    const doc = (await post(user, '/api/documents', { body: 'to delete once' }, null)).body
    const key = crypto.randomUUID()
    expect((await post(user, `/api/documents/${doc.id}`, undefined, key, 'DELETE')).status).toBe(204)
    const again = await post(user, `/api/documents/${doc.id}`, undefined, key, 'DELETE')
    expect(again.status).toBe(204)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect((await post(user, `/api/documents/${doc.id}`, undefined, null, 'DELETE')).status).toBe(404)
  })
})

describe('misuse', () => {
  test('the same key with another body is a 422 saying so, and nothing is created', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    await post(user, '/api/documents', { body: 'first body' }, key)
    const other = await post(user, '/api/documents', { body: 'another body' }, key)
    expect(other.status).toBe(422)
    expect(other.body.error).toContain('different request body')
    expect(await documentCount(user)).toBe(1)
  })

  test('the same key on another path is a 422 naming the first request', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    await post(user, '/api/documents', { body: 'a document' }, key)
    const other = await post(user, '/api/workspaces', { name: 'W' }, key)
    expect(other.status).toBe(422)
    expect(other.body.error).toContain('POST /api/documents')
  })

  test('a key longer than 255 characters, or with control characters, is a 400', async () => {
    const user = await t.signUp()
    const long = await post(user, '/api/workspaces', { name: 'W' }, 'k'.repeat(256))
    expect(long.status).toBe(400)
    expect(long.body.error).toContain('idempotency-key must be 1 to 255')
    expect((await post(user, '/api/workspaces', { name: 'W' }, 'k'.repeat(255))).status).toBe(201)
  })

  test('streamed answers refuse a key with 400 (a stream cannot be replayed)', async () => {
    const user = await t.signUp()
    const ask = await post(user, '/api/ask', { question: 'what?' }, 'k-ask')
    expect(ask.status).toBe(400)
    expect(ask.body.error).toContain('streamed')
    const chat = await post(
      user,
      '/v1/chat/completions',
      { model: 'service-rag', stream: true, messages: [{ role: 'user', content: 'hi' }] },
      'k-v1',
    )
    expect(chat.status).toBe(400)
    expect(chat.body.error.message).toContain('streamed')
  })

  test('a route without authentication (sign-up) refuses a key with 400 rather than ignoring it', async () => {
    const res = await t.json('POST', '/api/auth/sign-up', {
      body: { email: `idem-${crypto.randomUUID()}@example.com`, password: 'correct horse battery' },
      headers: { 'idempotency-key': 'k' },
    })
    expect(res.status).toBe(400)
    expect(res.body.error).toContain('authenticated')
  })
})

describe('what is remembered', () => {
  test('a validation 400 claims nothing: the same key then works with a valid body', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    expect((await post(user, '/api/workspaces', { name: '' }, key)).status).toBe(400)
    const ok = await post(user, '/api/workspaces', { name: 'Valid' }, key)
    expect(ok.status).toBe(201)
    expect(ok.headers.get('idempotent-replayed')).toBeNull()
  })

  test("a handler's 4xx is remembered and replayed (Stripe's rule: the request ran)", async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    const missing = '01900000-0000-7000-8000-000000000000'
    expect((await post(user, `/api/documents/${missing}/archive`, undefined, key)).status).toBe(404)
    const again = await post(user, `/api/documents/${missing}/archive`, undefined, key)
    expect(again.status).toBe(404)
    expect(again.body.error).toContain('not found')
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })

  test('a 402 plan refusal is not remembered: after making room, the same key creates the object', async () => {
    const user = await t.signUp() // free plan: 2 workspaces, the default one included
    expect((await post(user, '/api/workspaces', { name: 'Second' }, null)).status).toBe(201)
    const key = crypto.randomUUID()
    const refused = await post(user, '/api/workspaces', { name: 'Third' }, key)
    expect(refused.status).toBe(402)
    const second = (await t.json('GET', '/api/workspaces', { key: user.key })).body.data.find((w: { name: string }) => w.name === 'Second')
    expect((await post(user, `/api/workspaces/${second.id}`, undefined, null, 'DELETE')).status).toBe(204)
    const retried = await post(user, '/api/workspaces', { name: 'Third' }, key)
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
  })

  test('a 5xx is not remembered: the retry runs again', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    const first = await post(user, '/api/billing/sync', undefined, key) // Stripe is not configured: 503
    expect(first.status).toBe(503)
    const again = await post(user, '/api/billing/sync', undefined, key)
    expect(again.status).toBe(503)
    expect(again.headers.get('idempotent-replayed')).toBeNull()
    const rows = await t.deps.db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.user_id, user.id), eq(idempotencyKeys.key, key)))
    expect(rows).toEqual([])
  })
})

describe('duplicates in flight', () => {
  test('concurrent duplicates wait for the first and replay it: one object, the same answer for all', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => post(user, '/api/documents', { title: 'Once', body: 'sent five times at once' }, key)),
    )
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201])
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1)
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(4)
    expect(await documentCount(user)).toBe(1)
  })

  test('a duplicate of a request still running past the wait gets 409 idempotency_in_progress with Retry-After', async () => {
    const user = await t.signUp()
    const now = t.clock.now()
    // The first request, as another process that is still working on it leaves it.
    const fingerprint = await fingerprintValue({ name: 'Busy' })
    await t.deps.db.insert(idempotencyKeys).values({
      user_id: user.id,
      key: 'busy',
      method: 'POST',
      path: '/api/workspaces',
      fingerprint,
      locked_at: now,
      created_at: now,
      expires_at: new Date(now.getTime() + KEEP_MS),
    })
    Object.assign(idempotencyTiming, { waitMs: 50, pollMs: 10 })
    const res = await post(user, '/api/workspaces', { name: 'Busy' }, 'busy')
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: expect.stringContaining('still in progress'), code: 'idempotency_in_progress' })
    expect(res.headers.get('retry-after')).toBe('1')
  })

  test('a request abandoned by a dead process (running for over 5 minutes) is taken over by its retry', async () => {
    const user = await t.signUp()
    const fingerprint = await fingerprintValue({ name: 'Orphan' })
    const then = new Date(t.clock.now().getTime() - 6 * 60_000)
    await t.deps.db.insert(idempotencyKeys).values({
      user_id: user.id,
      key: 'orphan',
      method: 'POST',
      path: '/api/workspaces',
      fingerprint,
      locked_at: then,
      created_at: then,
      expires_at: new Date(then.getTime() + KEEP_MS),
    })
    const res = await post(user, '/api/workspaces', { name: 'Orphan' }, 'orphan')
    expect(res.status).toBe(201)
    expect(res.headers.get('idempotent-replayed')).toBeNull()
  })

  test('two app instances on one database (as two processes): duplicates sent to both create one object', async () => {
    const other = createApp(t.deps)
    const user = await t.signUp()
    const key = crypto.randomUUID()
    const send = (app: { handle(r: Request): Promise<Response> }) =>
      app.handle(
        new Request(`${BASE}/api/documents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ body: 'sent to two processes' }),
        }),
      )
    const [a, b] = await Promise.all([send(t.app), send(other)])
    expect([a.status, b.status]).toEqual([201, 201])
    expect(((await a.json()) as { id: string }).id).toBe(((await b.json()) as { id: string }).id)
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual([null, 'true'].sort() as string[])
    expect(await documentCount(user)).toBe(1)
    // And a later retry through the other instance replays too.
    const c = await send(other)
    expect(c.headers.get('idempotent-replayed')).toBe('true')
  })
})

describe('expiry', () => {
  test('after 24 hours the key is free again, and the maintenance sweep deletes expired records', async () => {
    const user = await t.signUp()
    const key = crypto.randomUUID()
    const first = await post(user, '/api/documents', { body: 'kept for a day' }, key)
    t.clock.advance(KEEP_MS - 1000)
    expect((await post(user, '/api/documents', { body: 'kept for a day' }, key)).headers.get('idempotent-replayed')).toBe('true')
    t.clock.advance(2000)
    expect(await sweepIdempotencyKeys(t.deps)).toBeGreaterThanOrEqual(1)
    expect(await t.deps.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.user_id, user.id))).toEqual([])
    const later = await post(user, '/api/documents', { body: 'kept for a day' }, key)
    expect(later.headers.get('idempotent-replayed')).toBeNull()
    // Ingest deduplicates the same text itself: the request ran again and updated the first document.
    expect(later.body.id).toBe(first.body.id)
    expect(later.body.deduplicated).toBe(true)
  })
})
