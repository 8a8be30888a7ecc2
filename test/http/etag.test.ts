// ETags on single-object reads: If-None-Match answers 304, the tag changes whenever the representation does,
// and If-Match on PATCH and DELETE answers 412 on a stale tag, so two editors cannot overwrite each other.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { conversations, messages } from '../../db/schema'
import { createTestApp, type TestApp, type TestUser } from '../harness'

setDefaultTimeout(30_000)

let t: TestApp
let user: TestUser
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
  user = await t.signUp()
})
afterAll(() => t.close())

const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  t.json(method, path, { key: user.key, headers, body })

async function newDocument(body = `etag test ${crypto.randomUUID()}`) {
  const res = await call('POST', '/api/documents', {}, { title: 'Draft', body })
  expect(res.status).toBe(201)
  return res.body.id as string
}

async function newWorkspace() {
  const res = await call('POST', '/api/workspaces', {}, { name: `W ${crypto.randomUUID().slice(0, 8)}` })
  expect(res.status).toBe(201)
  return res.body.id as string
}

async function newConversation() {
  const id = t.deps.ids.next()
  const now = t.clock.now()
  await t.deps.db.insert(conversations).values({ id, user_id: user.id, workspace_id: null, name: 'Chat', created_at: now, updated_at: now })
  await t.deps.db
    .insert(messages)
    .values({ id: t.deps.ids.next(), user_id: user.id, conversation_id: id, role: 'user', content: 'hello', created_at: now })
  return id
}

let toggles = 0
/** Every single-object read, with a PATCH body that changes it. */
const resources: { name: string; path: () => Promise<string>; patch: () => Record<string, unknown> }[] = [
  { name: 'document', path: async () => `/api/documents/${await newDocument()}`, patch: () => ({ title: `T ${crypto.randomUUID()}` }) },
  {
    name: 'workspace',
    path: async () => `/api/workspaces/${await newWorkspace()}`,
    patch: () => ({ name: `N ${crypto.randomUUID().slice(0, 8)}` }),
  },
  {
    name: 'conversation',
    path: async () => `/api/conversations/${await newConversation()}`,
    patch: () => ({ name: `C ${crypto.randomUUID().slice(0, 8)}` }),
  },
  { name: 'settings', path: async () => '/api/settings', patch: () => ({ answer_style: ++toggles % 2 ? 'detailed' : 'concise' }) },
  { name: 'profile', path: async () => '/api/profile', patch: () => ({ name: `P ${crypto.randomUUID().slice(0, 8)}` }) },
]

describe.each(resources)('$name', ({ path: makePath, patch }) => {
  let path: string
  beforeAll(async () => {
    path = await makePath()
  })

  test('GET carries a strong ETag; If-None-Match with it answers 304 without a body, with the ETag', async () => {
    const first = await call('GET', path)
    expect(first.status).toBe(200)
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^"[\w-]+"$/)
    const again = await t.request('GET', path, { key: user.key, headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')
    expect(again.headers.get('etag')).toBe(etag)
    // A weak form of the same tag (what a proxy may send) matches too, and a list with it.
    expect((await t.request('GET', path, { key: user.key, headers: { 'if-none-match': `"x", W/${etag}` } })).status).toBe(304)
    expect((await t.request('GET', path, { key: user.key, headers: { 'if-none-match': '"other"' } })).status).toBe(200)
  })

  test('If-Match with a stale ETag is a 412 { error } and changes nothing; with the current one the PATCH applies and returns the new ETag', async () => {
    const before = await call('GET', path)
    const stale = before.headers.get('etag')!
    const changed = await call('PATCH', path, { 'if-match': stale }, patch())
    expect(changed.status).toBe(200)
    const fresh = await call('GET', path)
    expect(fresh.headers.get('etag')).not.toBe(stale)
    if (!path.startsWith('/api/conversations')) expect(changed.headers.get('etag')).toBe(fresh.headers.get('etag'))
    // The second editor still holds the old tag.
    const lost = await call('PATCH', path, { 'if-match': stale }, patch())
    expect(lost.status).toBe(412)
    expect(lost.body.error).toContain('does not match the current version')
    expect((await call('GET', path)).body).toEqual(fresh.body)
    // The old tag no longer short-circuits a read.
    expect((await t.request('GET', path, { key: user.key, headers: { 'if-none-match': stale } })).status).toBe(200)
  })

  test('a weak tag never satisfies If-Match (strong comparison); "*" does', async () => {
    const etag = (await call('GET', path)).headers.get('etag')!
    expect((await call('PATCH', path, { 'if-match': `W/${etag}` }, patch())).status).toBe(412)
    expect((await call('PATCH', path, { 'if-match': '*' }, patch())).status).toBe(200)
  })

  test('two editors holding the same ETag, at once: one wins, the other gets 412', async () => {
    const etag = (await call('GET', path)).headers.get('etag')!
    // The same change from both: whichever runs first changes the representation. (Two different bodies can
    // meet in either order on a real server, and one of them may write what is already there.)
    const body = patch()
    const results = await Promise.all([call('PATCH', path, { 'if-match': etag }, body), call('PATCH', path, { 'if-match': etag }, body)])
    expect(results.map((r) => r.status).sort()).toEqual([200, 412])
  })
})

describe('the ETag follows the representation', () => {
  test("a workspace's ETag changes when a document is added to it (document_count)", async () => {
    const id = await newWorkspace()
    const before = (await call('GET', `/api/workspaces/${id}`)).headers.get('etag')
    expect((await call('POST', '/api/documents', {}, { body: `into the workspace ${crypto.randomUUID()}`, workspace_id: id })).status).toBe(
      201,
    )
    const after = await call('GET', `/api/workspaces/${id}`)
    expect(after.body.document_count).toBe(1)
    expect(after.headers.get('etag')).not.toBe(before)
  })

  test("a conversation's ETag changes with a new message", async () => {
    const id = await newConversation()
    const before = (await call('GET', `/api/conversations/${id}`)).headers.get('etag')
    await t.deps.db
      .insert(messages)
      .values({ id: t.deps.ids.next(), user_id: user.id, conversation_id: id, role: 'assistant', content: 'hi', created_at: t.clock.now() })
    expect((await call('GET', `/api/conversations/${id}`)).headers.get('etag')).not.toBe(before)
  })

  test("a document's ETag changes when it is archived", async () => {
    const id = await newDocument()
    const before = (await call('GET', `/api/documents/${id}`)).headers.get('etag')
    expect((await call('POST', `/api/documents/${id}/archive`)).status).toBe(200)
    expect((await call('GET', `/api/documents/${id}`)).headers.get('etag')).not.toBe(before)
  })
})

describe('DELETE with If-Match', () => {
  test.each(['document', 'workspace', 'conversation'])(
    '%s: a stale tag is a 412 and the object stays; the current tag deletes it',
    async (name) => {
      const path =
        name === 'document'
          ? `/api/documents/${await newDocument()}`
          : name === 'workspace'
            ? `/api/workspaces/${await newWorkspace()}`
            : `/api/conversations/${await newConversation()}`
      const stale = (await call('GET', path)).headers.get('etag')!
      const patched = await call(
        'PATCH',
        path,
        {},
        name === 'document' ? { title: 'Changed by another editor' } : { name: 'Changed by another editor' },
      )
      expect(patched.status).toBe(200)
      const refused = await call('DELETE', path, { 'if-match': stale })
      expect(refused.status).toBe(412)
      expect(refused.body.error).toContain('If-Match')
      expect((await call('GET', path)).status).toBe(200)
      const current = (await call('GET', path)).headers.get('etag')!
      expect((await call('DELETE', path, { 'if-match': current })).status).toBe(204)
      expect((await call('GET', path)).status).toBe(404)
    },
  )

  test('If-Match on a missing object is a 404, as without it', async () => {
    expect((await call('DELETE', '/api/documents/01900000-0000-7000-8000-000000000000', { 'if-match': '*' })).status).toBe(404)
  })
})
