// The real model's inference process under load: a search's query is served before queued document batches
// (and between two texts of the batch under way),
// a forward pass killed mid-way is run again by the restarted process, and texts whose pass is killed twice
// fail with a 503 saying so — while the API keeps answering. Passes of 16 long texts take a second or
// more here, so "mid-way" is observed (a pass has started), not guessed.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { embedDocuments, embedQuery } from '../../src/embedding/embeddings'
import { createTestApp, type TestApp } from '../harness'
import { cosine } from '../jobs/jobs.fixtures'
import { REAL_MODEL_ENV, realModelMissing } from '../real-model'

setDefaultTimeout(120_000)
const missing = realModelMissing()

/** 16 distinct texts of ~250 tokens: one pass of them takes the model a second or more. */
const longTexts = (tag: string) =>
  Array.from(
    { length: 16 },
    (_, i) =>
      `${tag} ${i}: ` + 'Mitochondrial respiration regulates cellular energy balance and calcium signalling in neurons. '.repeat(20),
  )

async function until(check: () => boolean) {
  while (!check()) await Bun.sleep(10)
}

let t: TestApp
beforeAll(async () => {
  if (!missing) t = await createTestApp({ env: REAL_MODEL_ENV })
})
afterAll(() => t?.close())

describe.skipIf(!!missing)('the real model in its own process', () => {
  test('a search query is embedded before document batches queued ahead of it', async () => {
    const embedder = t.deps.embedder!
    const order: string[] = []
    const batches = ['a', 'b', 'c'].map((tag) =>
      embedDocuments(embedder, longTexts(tag), 'background').then(() => order.push(`batch ${tag}`)),
    )
    await until(() => embedder.inference!.pending().running === 1)
    const query = embedQuery(embedder, 'what regulates energy in neurons?').then(() => order.push('query'))
    await Promise.all([...batches, query])
    // The pass under way when it came (one text of batch a) is finished first; the query goes before the rest.
    expect(order).toEqual(['query', 'batch a', 'batch b', 'batch c'])
  })

  test('killed during a forward pass, the process is restarted and the pass run again: the caller gets its vectors', async () => {
    const embedder = t.deps.embedder!
    const texts = longTexts('kill')
    const reference = await embedDocuments(embedder, texts)
    const inFlight = embedDocuments(embedder, texts)
    await until(() => embedder.inference!.pending().running === 1)
    const killed = embedder.inference!.pid()!
    process.kill(killed, 'SIGKILL')
    const vectors = await inFlight
    expect(embedder.inference!.pid()).not.toBe(killed)
    vectors.forEach((v, i) => expect(cosine(v!, reference[i]!)).toBeGreaterThan(0.999))
  })

  test('texts whose pass is killed twice: /v1/embeddings answers 503 naming why, and the next request is served', async () => {
    const embedder = t.deps.embedder!
    const u = await t.signUp()
    const request = t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: longTexts('twice') } })
    const inference = embedder.inference!
    await until(() => inference.pending().running === 1)
    const first = inference.pid()!
    process.kill(first, 'SIGKILL')
    // Sent again to the restarted process, and killed there too, mid-pass.
    await until(() => inference.pid() !== null && inference.pid() !== first && inference.pending().running === 1)
    process.kill(inference.pid()!, 'SIGKILL')
    const res = await request
    expect(res.status).toBe(503)
    expect(res.body.error.code).toBe('model_unavailable')
    expect(res.body.error.message).toMatch(
      /^the embedding model failed: the embedding process ended \(signal SIGKILL\) twice while embedding these texts/,
    )
    // Meanwhile and after, the API answers; the restarted process embeds the next request.
    expect((await t.json('GET', '/')).status).toBe(200)
    const next = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: 'mitochondria' } })
    expect(next.status).toBe(200)
    expect(next.body.data[0].embedding).toHaveLength(384)
  })
})
