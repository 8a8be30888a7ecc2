// The local embedding provider: transformers.js running a real ONNX model read from EMBEDDING_MODEL_PATH. The
// fixture (test/fixtures/models/fixture/bge-tiny-en) is BERT-shaped but tiny — a bag of random word vectors — so
// the whole path runs offline: tokenizer, ONNX Runtime, [CLS] pooling, normalisation, the bge query
// instruction, vectors recorded as local:<model>, semantic search. A model that is not there leaves the
// service up on keyword search, saying why.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embedDocuments, embedQuery } from '../../src/embedding/embeddings'
import { localModelTraits } from '../../src/embedding/local-model'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp } from '../harness'
import { chunksOf, cosine, indexStatus } from '../jobs/jobs.fixtures'
import { add, search } from '../search/search.fixtures'

const MODELS = join(import.meta.dir, '../fixtures/models')
const MODEL = 'fixture/bge-tiny-en'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: MODEL, EMBEDDING_MODEL_PATH: MODELS } })
})
afterAll(() => t?.close())

describe('a model in EMBEDDING_MODEL_PATH', () => {
  test('loads at boot: GET / says available and which weights (the folder holds only onnx/model.onnx: fp32), vectors will be recorded as local:<model>', async () => {
    const res = await t.json('GET', '/')
    expect(res.body.embeddings).toEqual({
      provider: 'local',
      model: MODEL,
      dtype: 'fp32',
      configured: { provider: 'local', model: MODEL },
      available: true,
      backlog: 0,
      failed: 0,
    })
    expect(t.deps.embedder?.id).toBe(`local:${MODEL}`)
  })

  test('vectors are L2-normalised, of the model’s width, and deterministic', async () => {
    const [a, b, again] = await embedDocuments(t.deps.embedder!, [
      'the cat and the dog',
      'paris is the capital of france',
      'the cat and the dog',
    ])
    expect(a).toHaveLength(32)
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5)
    expect(Math.hypot(...b!)).toBeCloseTo(1, 5)
    expect(again).toEqual(a!)
    expect(cosine(a!, b!)).toBeLessThan(0.99)
  })

  test('queries carry the bge instruction; documents do not', async () => {
    const { queryPrefix } = localModelTraits(MODEL)
    expect(queryPrefix).toStartWith('Represent this sentence for searching relevant passages')
    const query = (await embedQuery(t.deps.embedder!, 'cat food'))!
    const [plain, prefixed] = await embedDocuments(t.deps.embedder!, ['cat food', queryPrefix + 'cat food'])
    // Same text → same vector up to float noise (a batch pads its shorter texts).
    expect(cosine(query, prefixed!)).toBeCloseTo(1, 5)
    expect(cosine(query, plain!)).toBeLessThan(0.99)
  })

  test('more texts than one forward pass takes are embedded in order', async () => {
    const texts = Array.from({ length: 40 }, (_, i) => (i % 2 ? 'the river and the sea' : 'apple banana fruit food'))
    const vectors = await embedDocuments(t.deps.embedder!, texts)
    expect(vectors).toHaveLength(40)
    for (let i = 2; i < 40; i++) expect(cosine(vectors[i]!, vectors[i % 2]!)).toBeCloseTo(1, 5)
    expect(cosine(vectors[0]!, vectors[1]!)).toBeLessThan(0.99)
  })

  test('a document is embedded by the job and found by semantic search with no shared keyword', async () => {
    const u = await t.signUp()
    const fruit = await add(t, u, { title: 'Market', body: 'apple banana fruit food apple banana' })
    const cars = await add(t, u, { title: 'Garage', body: 'car engine road speed engine' })
    await drainJobs(t.deps)
    expect(await indexStatus(t.deps, fruit.id)).toBe('indexed')
    for (const c of await chunksOf(t.deps, fruit.id)) {
      expect(c.embedding_model).toBe(`local:${MODEL}`)
      expect(c.embedding).toHaveLength(32)
    }
    // "fruit" alone shares a word with one document only; the vectors alone must rank it first.
    const res = await search(t, u, { q: 'banana', mode: 'semantic' })
    expect(res.mode).toBe('semantic')
    expect(res.results[0]?.document.id).toBe(fruit.id)
    expect(res.results.map((r) => r.document.id)).toContain(cars.id)
  })
})

describe('a model that is not in EMBEDDING_MODEL_PATH', () => {
  let dir: string
  let missing: TestApp
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'no-model-'))
    missing = await createTestApp({ env: { EMBEDDING_PROVIDER: 'local', EMBEDDING_MODEL: MODEL, EMBEDDING_MODEL_PATH: dir } })
  })
  afterAll(async () => {
    await missing?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test('the service starts and says why in GET /; search runs by keyword with a notice', async () => {
    const res = await missing.json('GET', '/')
    expect(res.status).toBe(200)
    expect(res.body.embeddings).toMatchObject({
      provider: 'none',
      model: null,
      dtype: null,
      configured: { provider: 'local', model: MODEL },
      available: false,
    })
    expect(res.body.embeddings.reason).toContain(`from ${dir}`)
    // The file it lacks, and where it looked.
    expect(res.body.embeddings.reason).toContain(`config.json is missing from the model folder ${join(dir, MODEL)}`)
    expect(missing.deps.embedder).toBeNull()

    const u = await missing.signUp()
    await add(missing, u, { title: 'Market', body: 'apple banana fruit' })
    const found = await search(missing, u, { q: 'banana', mode: 'hybrid' })
    expect(found.mode).toBe('keyword')
    expect(found.notice).toContain('needs an embedding model')
    expect(found.results).toHaveLength(1)
  })
})
