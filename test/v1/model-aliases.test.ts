// Model aliases: the ids popular clients send by default (gpt-3.5-turbo, gpt-4.1, text-embedding-ada-002, …)
// name service-rag or service-embed, every response names the real model, and MODEL_ALIASES adds more.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'
import { BACKUPS, QUESTION } from './v1.fixtures'

let t: TestApp
let custom: TestApp
const env = { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '64' }
beforeAll(async () => {
  t = await createTestApp({ env })
  custom = await createTestApp({ env: { ...env, MODEL_ALIASES: 'my-rag=service-rag, gpt-4o=service-embed' } })
})
afterAll(async () => {
  await t.close()
  await custom.close()
})

async function userWithBackups(app: TestApp) {
  const user = await app.signUp()
  expect((await app.json('POST', '/api/documents', { key: user.key, body: BACKUPS })).status).toBe(201)
  return user
}
const chat = (app: TestApp, key: string, model: string) =>
  app.json('POST', '/v1/chat/completions', { key, body: { model, messages: [{ role: 'user', content: QUESTION }] } })
const respond = (app: TestApp, key: string, model: string) => app.json('POST', '/v1/responses', { key, body: { model, input: QUESTION } })
const embed = (app: TestApp, key: string, model: string) => app.json('POST', '/v1/embeddings', { key, body: { model, input: 'hello' } })

describe('the default aliases', () => {
  test('chat completions and responses with gpt-3.5-turbo, gpt-4o-mini, gpt-4.1, gpt-5.6-luna: answered, and the response names service-rag', async () => {
    const user = await userWithBackups(t)
    for (const model of ['gpt-3.5-turbo', 'gpt-4o-mini', 'gpt-4.1', 'gpt-5.6-luna']) {
      const completion = await chat(t, user.key, model)
      expect(completion.status).toBe(200)
      expect(completion.body.model).toBe('service-rag')
      expect(completion.body.choices[0].message.content).toContain('35 days')
      const response = await respond(t, user.key, model)
      expect(response.status).toBe(200)
      expect(response.body.model).toBe('service-rag')
    }
  })

  test('embeddings with text-embedding-ada-002 and text-embedding-3-small/-large: the service-embed vectors, named service-embed', async () => {
    const user = await t.signUp()
    const real = await embed(t, user.key, 'service-embed')
    for (const model of ['text-embedding-ada-002', 'text-embedding-3-small', 'text-embedding-3-large']) {
      const res = await embed(t, user.key, model)
      expect(res.status).toBe(200)
      expect(res.body.model).toBe('service-embed')
      expect(res.body.data).toEqual(real.body.data)
    }
  })

  test("an embedding alias on chat, a chat alias on embeddings, an unknown id: today's 404 naming the id and the model to use", async () => {
    const user = await userWithBackups(t)
    const cases: [Promise<{ status: number; body: { error: { message: string } } }>, string][] = [
      [chat(t, user.key, 'text-embedding-3-small'), 'model text-embedding-3-small does not exist; use service-rag'],
      [respond(t, user.key, 'text-embedding-ada-002'), 'model text-embedding-ada-002 does not exist; use service-rag'],
      [embed(t, user.key, 'gpt-4o'), 'model gpt-4o does not exist; use service-embed'],
      [chat(t, user.key, 'service-embed'), 'model service-embed does not exist; use service-rag'],
      [chat(t, user.key, 'llama3.1'), 'model llama3.1 does not exist; use service-rag'],
    ]
    for (const [call, message] of cases) {
      const res = await call
      expect(res.status).toBe(404)
      expect(res.body.error.message).toBe(message)
    }
  })

  test('GET /v1/models lists the two models, not the aliases; GET /v1/models/{alias} is the model it names', async () => {
    const user = await t.signUp()
    const list = await t.json('GET', '/v1/models', { key: user.key })
    expect(list.body.data.map((m: { id: string }) => m.id)).toEqual(['service-rag', 'service-embed'])
    expect((await t.json('GET', '/v1/models/gpt-3.5-turbo', { key: user.key })).body.id).toBe('service-rag')
    expect((await t.json('GET', '/v1/models/text-embedding-ada-002', { key: user.key })).body.id).toBe('service-embed')
    expect((await t.json('GET', '/v1/models/llama3.1', { key: user.key })).status).toBe(404)
  })
})

describe('MODEL_ALIASES', () => {
  test('adds to the default table, and an entry for a default id re-points it', async () => {
    const user = await userWithBackups(custom)
    const mine = await chat(custom, user.key, 'my-rag')
    expect(mine.status).toBe(200)
    expect(mine.body.model).toBe('service-rag')
    expect((await chat(custom, user.key, 'gpt-3.5-turbo')).status).toBe(200)
    const repointed = await embed(custom, user.key, 'gpt-4o')
    expect(repointed.status).toBe(200)
    expect(repointed.body.model).toBe('service-embed')
    expect((await chat(custom, user.key, 'gpt-4o')).status).toBe(404)
  })
})
