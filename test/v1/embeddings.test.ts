// /v1/embeddings and /v1/models: OpenAI's shapes over service-embed, the missing-model 503, per-key limits.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Tiktoken } from 'js-tiktoken/lite'
import cl100kRanks from 'js-tiktoken/ranks/cl100k_base'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { createTestApp, type TestApp } from '../harness'

/** The tokenizer LangChain Python's OpenAIEmbeddings encodes with (tiktoken's cl100k_base, as js-tiktoken ships it). */
const cl100k = new Tiktoken(cl100kRanks)

let t: TestApp
let noModel: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '64', PLAN_FREE_EMBEDDINGS_PER_MIN: '5' } })
  noModel = await createTestApp()
})
afterAll(async () => {
  await t.close()
  await noModel.close()
})

describe('POST /v1/embeddings', () => {
  test('one input: a list with one float embedding of the model, and usage', async () => {
    const u = await t.signUp()
    const res = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: 'hello world' } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ object: 'list', model: 'service-embed', data: [{ object: 'embedding', index: 0 }] })
    expect(res.body.data[0].embedding).toEqual(hashEmbed('hello world', 64))
    expect(res.body.usage.prompt_tokens).toBeGreaterThan(0)
    expect(res.body.usage.total_tokens).toBe(res.body.usage.prompt_tokens)
  })

  test('a batch keeps its order; base64 decodes to the same float32 vectors', async () => {
    const u = await t.signUp()
    const input = ['first text', 'second text', 'third']
    const floats = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input } })
    const b64 = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input, encoding_format: 'base64' } })
    expect(floats.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1, 2])
    for (const [i, d] of (b64.body.data as { embedding: string }[]).entries()) {
      const bytes = Buffer.from(d.embedding, 'base64')
      const decoded = Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4))
      expect(decoded).toHaveLength(64)
      decoded.forEach((v, j) => expect(v).toBeCloseTo(floats.body.data[i].embedding[j], 6))
    }
  })

  test('an unknown model is a 404 naming it; bad input is a 400', async () => {
    const u = await t.signUp()
    const unknown = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'gpt-4', input: 'x' } })
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toEqual({
      message: expect.stringContaining('gpt-4'),
      type: 'invalid_request_error',
      param: null,
      code: 'not_found',
    })
    for (const body of [
      { model: 'service-embed' },
      { model: 'service-embed', input: [] },
      { model: 'service-embed', input: [1.5, 2] },
      { model: 'service-embed', input: [[]] },
      { model: 'service-embed', input: ['text', 1] },
      { model: 'service-embed', input: [''] },
    ]) {
      const res = await t.json('POST', '/v1/embeddings', { key: u.key, body })
      expect(res.status).toBe(400)
      expect(res.body.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', param: null, code: 'invalid_request' })
    }
  })

  test('token ids as LangChain Python sends them (tiktoken cl100k_base): embedded as the text they stand for, usage counts the ids', async () => {
    const u = await t.signUp()
    const texts = ['The Eiffel Tower was finished in 1889.', 'Café crème, naïve façade — ünïcödé 東京']
    const ids = texts.map((text) => cl100k.encode(text))
    const several = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: ids } })
    expect(several.status).toBe(200)
    expect(several.body.data.map((d: { embedding: number[] }) => d.embedding)).toEqual(texts.map((text) => hashEmbed(text, 64)))
    expect(several.body.usage).toEqual({ prompt_tokens: ids[0]!.length + ids[1]!.length, total_tokens: ids[0]!.length + ids[1]!.length })
    const one = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: ids[1] } })
    expect(one.status).toBe(200)
    expect(one.body.data).toEqual([{ object: 'embedding', index: 0, embedding: hashEmbed(texts[1]!, 64) }])
  })

  test('an id cl100k_base lacks is a 400 naming its place; token limits are per input (8192) and per request (300000)', async () => {
    const u = await t.signUp()
    const embed = (input: unknown) => t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input } })
    const ids = cl100k.encode('hello world')
    const cases: [unknown, string][] = [
      [[ids, [...ids, 999_999_999]], `input[1][${ids.length}]: token id 999999999 is not in cl100k_base`],
      [[ids[0], -1], 'input[1]: token id -1 is not in cl100k_base'],
      // A hole in the encoding, between its last ordinary id and <|endoftext|>.
      [[100_256], 'input[0]: token id 100256 is not in cl100k_base'],
      [Array.from({ length: 37 }, () => new Array(8192).fill(15339)), 'input: 303104 tokens in all; at most 300000 in one request'],
    ]
    for (const [input, message] of cases) {
      const res = await embed(input)
      expect(res.status).toBe(400)
      expect(res.body.error.message).toBe(message)
    }
    const tooLong = await embed(new Array(8193).fill(15339))
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.error.message).toContain('1 to 8192 token ids')
  })

  test('rate-limited per key: past the plan limit 429 with Retry-After; another key of the same plan is unaffected', async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    const call = (key: string) => t.request('POST', '/v1/embeddings', { key, body: { model: 'service-embed', input: 'x' } })
    for (let i = 0; i < 5; i++) expect((await call(a.key)).status).toBe(200)
    const limited = await call(a.key)
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    expect((await call(b.key)).status).toBe(200)
    t.clock.advance(61_000)
    expect((await call(a.key)).status).toBe(200)
  })

  test('without an embedding model: 503 with the reason, and /v1/models says service-embed is unavailable', async () => {
    const u = await noModel.signUp()
    const res = await noModel.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: 'x' } })
    expect(res.status).toBe(503)
    expect(res.body.error).toEqual({
      message: expect.stringContaining('no embedding model'),
      type: 'server_error',
      param: null,
      code: 'model_unavailable',
    })
    const models = await noModel.json('GET', '/v1/models', { key: u.key })
    expect(models.body.data).toEqual([
      expect.objectContaining({ id: 'service-rag', object: 'model', available: true }),
      expect.objectContaining({ id: 'service-embed', object: 'model', available: false }),
    ])
  })

  test('needs a key', async () => {
    expect((await t.json('POST', '/v1/embeddings', { body: { model: 'service-embed', input: 'x' } })).status).toBe(401)
    expect((await t.json('GET', '/v1/models')).status).toBe(401)
  })
})

describe('GET /v1/models', () => {
  test('lists service-rag and service-embed with what backs each', async () => {
    const u = await t.signUp()
    const res = await t.json('GET', '/v1/models', { key: u.key })
    expect(res.status).toBe(200)
    expect(res.body.object).toBe('list')
    expect(res.body.data).toEqual([
      expect.objectContaining({
        id: 'service-rag',
        object: 'model',
        available: true,
        description: 'grounded answers by the built-in extractive answerer',
      }),
      expect.objectContaining({ id: 'service-embed', object: 'model', available: true, description: 'embeddings by hash-64' }),
    ])
  })
})
