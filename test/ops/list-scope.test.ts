// Every list that takes ?workspace_id= answers 404 for another user's workspace or a missing one, never an
// empty page (which would tell that the workspace exists, and is empty).
import { afterAll, beforeAll, expect, test, setDefaultTimeout } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'

// The preload's 30 s is lost for files that run after a src/*.test.ts file.
setDefaultTimeout(30_000)

let t: TestApp
let me: TestUser
let theirs: string
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'none' } })
  const other = await t.signUp()
  me = await t.signUp()
  theirs = (await t.json('GET', '/api/workspaces', { key: other.key })).body.data[0].id
  // Their workspace holds a conversation: the hole was a list filtered by it, not just an empty one.
  expect((await t.request('POST', '/api/ask', { key: other.key, body: { question: 'anything?', workspace_id: theirs } })).status).toBe(200)
})
afterAll(() => t.close())

const LISTS = ['/api/conversations', '/api/documents', '/api/memories', '/api/search?q=anything', '/api/graph', '/api/documents/check']

test.each(LISTS)("%s with another user's or a missing workspace_id is 404 { error }", async (path) => {
  const sep = path.includes('?') ? '&' : '?'
  for (const workspace of [theirs, crypto.randomUUID()]) {
    const res = await t.json('GET', `${path}${sep}workspace_id=${workspace}`, { key: me.key })
    expect(res.status, workspace).toBe(404)
    expect(res.body).toEqual({ error: `workspace ${workspace} not found`, code: 'not_found' })
  }
})

test('the own workspace still lists (conversations)', async () => {
  const mine = (await t.json('GET', '/api/workspaces', { key: me.key })).body.data[0].id
  const res = await t.json('GET', `/api/conversations?workspace_id=${mine}`, { key: me.key })
  expect(res.status).toBe(200)
  expect(res.body.data).toEqual([])
})
