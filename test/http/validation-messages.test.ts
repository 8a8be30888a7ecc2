// A refused body names the field at fault and why — also when the field is a union (nullable, or one of several
// shapes), where the validator itself only says "Expected union value".
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let u: TestUser
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
  u = await t.signUp()
})
afterAll(() => t.close())

test('a nullable field given the wrong type is named with what it must be, not as a failed union', async () => {
  const res = await t.json('POST', '/api/keys', { cookie: u.cookie, body: { label: 5 } })
  expect(res.status).toBe(400)
  expect(res.body.error).toBe('body.label: must be a string, not a number')
  expect(res.body.error).not.toContain('union')
  expect(res.body.error).not.toContain('Expected null')
})

test('an error deep inside a nullable list names the item and its member', async () => {
  const res = await t.json('POST', '/v1/responses', {
    key: u.key,
    body: { model: 'service-rag', input: 'What are the plans?', tools: [{ type: 'function', name: 'lookup' }, { type: 'web_search' }] },
  })
  expect(res.status).toBe(400)
  expect(res.body.error.message).toMatch(/^body\.tools\[1\]\.(type|name): .*web_search/)
})

test('a union with its own message keeps it', async () => {
  const res = await t.json('POST', '/v1/responses', {
    key: u.key,
    body: { model: 'service-rag', input: 'Plans?', tool_choice: 'sometimes' },
  })
  expect(res.status).toBe(400)
  expect(res.body.error.message).toContain("tool_choice must be 'auto', 'none', 'required' or { type: 'function', name }")
})
