// Memories, errors: a batch is all or nothing — one bad learning, a wrong workspace or a plan cap
// rejects the whole batch with a message naming the culprit, and nothing is stored.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { defaultWorkspaceId, ingest, storedCount } from '../documents/documents.fixtures'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { learning } from './memories.fixtures'

let t: TestApp
let u: TestUser
let ws: string
beforeAll(async () => {
  t = await createTestApp()
  u = await t.signUp()
  ws = await defaultWorkspaceId(t, u)
})
afterAll(() => t.close())

const MISSING = '01900000-0000-7000-8000-000000000000'

/** Posts the batch, expects the status and an `{ error }` mentioning `mentions`, and that nothing was stored. */
async function expectRejected(body: unknown, status: number, mentions?: string, app = t, user = u) {
  const before = await storedCount(app, user)
  const res = await app.json('POST', '/api/memories/batch-draft', { key: user.key, body })
  expect(res.status).toBe(status)
  expect(typeof res.body?.error).toBe('string')
  if (mentions) expect(res.body.error).toContain(mentions)
  expect(await storedCount(app, user)).toBe(before)
  return res.body.error as string
}

const batch = (n: number) => Array.from({ length: n }, () => learning())
const withBad = (index: number, bad: Record<string, unknown>) => batch(6).map((l, i) => (i === index ? { ...l, ...bad } : l))

describe('the size of a batch', () => {
  test('no learnings is 400', async () => {
    await expectRejected({ workspace_id: ws, learnings: [] }, 400, 'learnings')
  })

  test('26 learnings is 400', async () => {
    await expectRejected({ workspace_id: ws, learnings: batch(26) }, 400, 'learnings')
  })

  test('learnings missing or not an array is 400', async () => {
    await expectRejected({ workspace_id: ws }, 400, 'learnings')
    await expectRejected({ workspace_id: ws, learnings: 'remember this' }, 400, 'learnings')
  })
})

describe('one bad learning rejects the whole batch and names it', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a kind that is not a memory kind', { kind: 'poem' }, 'kind'],
    ['a document kind', { kind: 'note' }, 'kind'],
    ['an empty title', { title: '' }, 'title'],
    ['a title of 501 characters', { title: 'x'.repeat(501) }, 'title'],
    ['an empty body', { body: '' }, 'body'],
    ['a confidence above 1', { metadata: { confidence: 1.5 } }, 'confidence'],
    ['a supersedes that is not a UUID', { metadata: { supersedes: 'the old one' } }, 'supersedes'],
    ['51 tags', { tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, 'tags'],
  ]
  for (const [what, bad, field] of cases) {
    test(`learnings[3] with ${what}`, async () => {
      const error = await expectRejected({ workspace_id: ws, learnings: withBad(3, bad) }, 400, 'learnings[3]')
      expect(error).toContain(field)
    })
  }

  test('a missing kind on learnings[0]', async () => {
    const [first, ...rest] = batch(3)
    const { kind: _kind, ...noKind } = first!
    await expectRejected({ workspace_id: ws, learnings: [noKind, ...rest] }, 400, 'learnings[0]')
  })

  test('metadata over 16 KiB on learnings[2] is 400', async () => {
    await expectRejected(
      { workspace_id: ws, learnings: withBad(2, { metadata: { evidence: 'short', blob: 'x'.repeat(17 * 1024) } }) },
      400,
      'learnings[2]',
    )
  })

  test('a body over 1 MiB on learnings[4] is 413', async () => {
    await expectRejected({ workspace_id: ws, learnings: withBad(4, { body: 'x'.repeat(1024 * 1024 + 1) }) }, 413, 'learnings[4]')
  })
})

describe('the workspace', () => {
  test('a missing or malformed workspace_id is 400', async () => {
    await expectRejected({ learnings: batch(2) }, 400, 'workspace_id')
    await expectRejected({ workspace_id: 'default', learnings: batch(2) }, 400, 'workspace_id')
  })

  test('an unknown workspace is 404 and nothing is stored', async () => {
    await expectRejected({ workspace_id: MISSING, learnings: batch(3) }, 404, 'workspace')
  })

  test("another user's workspace is 404, and nothing lands there", async () => {
    const other = await t.signUp()
    const theirs = await defaultWorkspaceId(t, other)
    await expectRejected({ workspace_id: theirs, learnings: batch(3) }, 404, 'workspace')
    expect(await storedCount(t, other)).toBe(0)
  })
})

describe('plan limits', () => {
  test('a batch that would pass the document cap is 402 and stores none of it', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_DOCUMENTS: '4' } })
    try {
      const user = await capped.signUp()
      const space = await defaultWorkspaceId(capped, user)
      await ingest(capped, user)
      await ingest(capped, user)
      // Two of these three would still fit; the batch is all or nothing.
      const error = await expectRejected({ workspace_id: space, learnings: batch(3) }, 402, undefined, capped, user)
      expect(error).toContain('document')
      expect(await storedCount(capped, user)).toBe(2)
      // A batch that fits is accepted.
      const ok = await capped.json('POST', '/api/memories/batch-draft', {
        key: user.key,
        body: { workspace_id: space, learnings: batch(2) },
      })
      expect(ok.status).toBe(201)
    } finally {
      await capped.close()
    }
  })

  test('a batch that would pass the storage cap is 402 and stores none of it', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_STORAGE_BYTES: '3000' } })
    try {
      const user = await capped.signUp()
      const space = await defaultWorkspaceId(capped, user)
      const big = Array.from({ length: 4 }, () => learning({ body: 'y'.repeat(900) }))
      const error = await expectRejected({ workspace_id: space, learnings: big }, 402, undefined, capped, user)
      expect(error).toContain('storage')
    } finally {
      await capped.close()
    }
  })
})

describe('listing memories with bad parameters', () => {
  test('a kind that is not a memory kind, a bad status or a bad limit is 400', async () => {
    for (const [q, field] of [
      ['kind=note', 'kind'],
      ['kind=poem', 'kind'],
      ['status=gone', 'status'],
      ['limit=500', 'limit'],
      ['cursor=xyz', 'cursor'],
    ]) {
      const res = await t.json('GET', `/api/memories?${q}`, { key: u.key })
      expect(res.status).toBe(400)
      expect(res.body.error).toContain(field!)
    }
  })
})

describe('approving and rejecting', () => {
  test('approving something that is not a pending memory draft is 409', async () => {
    const doc = await ingest(t, u)
    const res = await t.json('POST', `/api/documents/${doc.id}/approve`, { cookie: u.cookie })
    expect(res.status).toBe(409)
    expect(typeof res.body.error).toBe('string')
  })

  test('approving twice: the second is 409 and the memory stays active', async () => {
    const draft = await t.json('POST', '/api/memories/batch-draft', { key: u.key, body: { workspace_id: ws, learnings: [learning()] } })
    const id = draft.body.data[0].id
    expect((await t.json('POST', `/api/documents/${id}/approve`, { cookie: u.cookie })).status).toBe(200)
    expect((await t.json('POST', `/api/documents/${id}/approve`, { cookie: u.cookie })).status).toBe(409)
    expect((await t.json('POST', `/api/documents/${id}/reject`, { key: u.key })).status).toBe(409)
    expect((await t.json('GET', `/api/documents/${id}`, { key: u.key })).body.status).toBe('active')
  })
})
