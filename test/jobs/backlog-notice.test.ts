// A search during a large embedding backlog says how many documents it cannot see by meaning — exactly while
// there are few, "1000 or more" past that, so the count costs the same whatever the backlog's size.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { UNEMBEDDED_COUNT_CAP } from '../../src/embedding/embedding-backlog'
import { createTestApp, type TestApp } from '../harness'
import { search } from '../search/search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '100000' } })
})
afterAll(() => t.close())

test('the notice counts unembedded documents exactly up to the cap, then says "or more"', async () => {
  const u = await t.signUp()
  const post = async (from: number, n: number) => {
    const documents = Array.from({ length: n }, (_, i) => ({ title: `Log ${from + i}`, body: `ferry harbour tide entry ${from + i}` }))
    const res = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })
    expect(res.status).toBe(200)
  }
  await post(0, UNEMBEDDED_COUNT_CAP - 1) // no worker runs: every document waits for its embedding
  expect((await search(t, u, { q: 'ferry', mode: 'semantic' })).notice).toStartWith(
    `${UNEMBEDDED_COUNT_CAP - 1} of the documents searched are not embedded by the current model yet`,
  )
  await post(UNEMBEDDED_COUNT_CAP, 5)
  expect((await search(t, u, { q: 'ferry', mode: 'hybrid' })).notice).toStartWith(
    `${UNEMBEDDED_COUNT_CAP} or more of the documents searched are not embedded by the current model yet`,
  )
}, 60_000)
