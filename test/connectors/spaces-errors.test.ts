// A wiki that fails while its spaces are listed is the provider's failure (502 provider_error), never our 500.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startConfluenceFake, type ConfluenceFake } from '../fakes/confluence'
import { createTestApp, type TestApp } from '../harness'
import { CALLBACK, connect } from './resilience.helpers'

let t: TestApp
let confluence: ConfluenceFake

beforeAll(async () => {
  confluence = startConfluenceFake({ callbackUrl: CALLBACK })
  t = await createTestApp({ env: confluence.env })
})
afterAll(async () => {
  await t.close()
  await confluence.stop()
})

test('Confluence refusing the spaces listing: 502 provider_error naming it; once it answers, the spaces are listed', async () => {
  const u = await t.signUp()
  const { id } = await connect(t, u, 'confluence')
  confluence.failApi(403)
  const failed = await t.json('GET', `/api/connectors/${id}/confluence/spaces`, { key: u.key })
  expect({ status: failed.status, body: failed.body }).toEqual({
    status: 502,
    body: { error: expect.stringContaining('403'), code: 'provider_error' },
  })
  confluence.failApi(null)
  expect((await t.json('GET', `/api/connectors/${id}/confluence/spaces`, { key: u.key })).status).toBe(200)
})
