// Embedding jobs run together on the real model (bge-small-en-v1.5, int8, from ../shared/models): documents of
// two users embedded in one claim are found by semantic search with a question that shares no word with them,
// and a text embedded among others keeps its meaning (int8 activations are quantized per pass, so its vector
// differs slightly from the same text embedded alone — never asserted bit-equal).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { embedDocuments } from '../../src/embedding/embeddings'
import { runNextJob } from '../../src/jobs/worker'
import { embeddingText } from '../../src/embedding/embedding-text'
import { createTestApp, type TestApp } from '../harness'
import { REAL_MODEL_ENV, realModelMissing } from '../real-model'
import { add, search } from '../search/search.fixtures'
import { chunksOf, cosine, EMBED, indexStatus, jobsFor } from './jobs.fixtures'

const missing = realModelMissing()

const TARGET = {
  title: 'Care of houseplants',
  body: 'Water a fern sparingly in winter and keep it away from radiators; yellow fronds mean the soil stays soaked.',
}
const OTHERS = [
  {
    title: 'Harbour tides',
    body: 'The harbour master publishes tide tables every month. Spring tides bring the highest water to the quay.',
  },
  {
    title: 'Bread',
    body: `Sourdough needs a lively starter. ${'Knead the dough, let it rise overnight, shape it and bake it hot. '.repeat(30)}`,
  },
  { title: 'Engines', body: 'A diesel engine ignites its fuel by compression alone, without a spark plug.' },
]
const QUESTION = 'how often should I give my indoor greenery a drink during the cold months?'

describe.skipIf(missing !== null)('embedding jobs run together on the real model', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({ env: REAL_MODEL_ENV })
  })
  afterAll(() => t?.close())

  test('documents of two users embedded in one claim are found by semantic search, each by its owner only', async () => {
    const [ann, bob] = [await t.signUp(), await t.signUp()]
    const target = await add(t, ann, TARGET)
    const others = [await add(t, bob, TARGET), ...(await Promise.all(OTHERS.map((doc) => add(t, ann, doc))))]
    expect(await runNextJob(t.deps, 'w', EMBED)).toBe(true)
    for (const doc of [target, ...others]) {
      expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
      expect((await jobsFor(t.deps, doc.id)).map((j) => j.status)).toEqual(['succeeded'])
    }

    const found = await search(t, ann, { q: QUESTION, mode: 'semantic', limit: 3 })
    expect(found.results[0]!.document.id).toBe(target.id)
    expect(found.results.map((r) => r.document.id)).not.toContain(others[0]!.id)

    // Embedded among longer texts or alone, the chunk (after its document's title) means the same.
    const [chunk] = await chunksOf(t.deps, target.id)
    const [alone] = await embedDocuments(t.deps.embedder!, [embeddingText(TARGET.title, chunk!.content)])
    expect(cosine(chunk!.embedding!, alone!)).toBeGreaterThan(0.99)
  })
})
