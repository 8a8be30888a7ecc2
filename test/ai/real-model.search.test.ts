// Search on the real model (bge-small-en-v1.5, int8, from ../shared/models) through /api/search: a question
// sharing no word with its document is found by semantic and hybrid mode and not by keyword, and on a small
// judged collection (test/fixtures/search-judged.ts) hybrid ranks at least as well as keyword by nDCG@10; and
// a document's title is embedded with each of its chunks.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { documents, ndcg, PARAPHRASE, queries, type DocKey } from '../fixtures/search-judged'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { indexStatus } from '../jobs/jobs.fixtures'
import { REAL_MODEL_ENV, realModelMissing } from '../real-model'
import { add, search } from '../search/search.fixtures'

const missing = realModelMissing()

describe.skipIf(missing !== null)('search on the real model', () => {
  let t: TestApp
  let u: TestUser
  const keyOf = new Map<string, DocKey>()
  beforeAll(async () => {
    t = await createTestApp({ env: REAL_MODEL_ENV })
    u = await t.signUp()
    for (const [key, doc] of Object.entries(documents)) keyOf.set((await add(t, u, doc)).id, key as DocKey)
    await drainJobs(t.deps)
  })
  afterAll(() => t?.close())

  const ranking = async (q: string, mode: string) => {
    const res = await search(t, u, { q, mode, limit: 10 })
    expect(res.mode).toBe(mode)
    return res.results.map((r) => keyOf.get(r.document.id)!)
  }

  test('every document is embedded by the model', async () => {
    for (const id of keyOf.keys()) expect(await indexStatus(t.deps, id)).toBe('indexed')
  })

  test('a question sharing no word with its document: semantic and hybrid rank it first, keyword does not find it', async () => {
    const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g))
    const doc = documents[PARAPHRASE.answer]!
    const shared = [...words(PARAPHRASE.q)].filter((w) => words(`${doc.title} ${doc.body}`).has(w))
    expect(shared).toEqual([])

    expect(await ranking(PARAPHRASE.q, 'keyword')).not.toContain(PARAPHRASE.answer)
    expect((await ranking(PARAPHRASE.q, 'semantic'))[0]).toBe(PARAPHRASE.answer)
    expect((await ranking(PARAPHRASE.q, 'hybrid'))[0]).toBe(PARAPHRASE.answer)
  })

  test('on the judged questions hybrid ranks at least as well as keyword (mean nDCG@10), and finds every answer', async () => {
    const mean = async (mode: string) => {
      let sum = 0
      for (const { q, relevant } of queries) sum += ndcg(await ranking(q, mode), relevant)
      return sum / queries.length
    }
    const [keyword, semantic, hybrid] = [await mean('keyword'), await mean('semantic'), await mean('hybrid')]
    console.log(
      `judged fixture, mean nDCG@10 over ${queries.length} questions: keyword ${keyword.toFixed(3)}, semantic ${semantic.toFixed(3)}, hybrid ${hybrid.toFixed(3)}`,
    )
    expect(hybrid).toBeGreaterThanOrEqual(keyword)
    // Each question's best answer is in hybrid's top three.
    for (const { q, relevant } of queries) {
      const best = Object.entries(relevant).find(([, grade]) => grade === 2)![0]
      expect({ q, top3: (await ranking(q, 'hybrid')).slice(0, 3) }).toEqual({ q, top3: expect.arrayContaining([best]) })
    }
  })
})

describe.skipIf(missing !== null)('the title is embedded with every chunk (real model)', () => {
  // Five documents with the same body: only their titles tell them apart. Were titles not embedded, all five
  // would have one vector and tie, and the tie goes to the lowest id — the passport document is created last.
  const BODY = 'Follow the steps in order and check the result at the end. Ask a colleague if anything is unclear.'
  const TITLES = [
    'Setting up the office printer',
    'Planting tomatoes in spring',
    'Booking a meeting room',
    'Filing an expense report',
    'Renewing a passport',
  ]
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await createTestApp({ env: REAL_MODEL_ENV })
    u = await t.signUp()
    for (const title of TITLES) await add(t, u, { title, body: BODY })
    await drainJobs(t.deps)
  })
  afterAll(() => t?.close())

  test('a question about what only the title says finds that document by meaning, in semantic and hybrid mode', async () => {
    for (const mode of ['semantic', 'hybrid']) {
      const res = await search(t, u, { q: 'how do I get a new travel document', mode, limit: 5 })
      expect({ mode, first: res.results[0]?.document.title }).toEqual({ mode, first: 'Renewing a passport' })
      const [first, second] = res.results.map((r) => r.signals.semantic_score ?? 0)
      expect(first!).toBeGreaterThan(second!)
    }
  })
})
