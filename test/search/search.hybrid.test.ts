// Search, hybrid mode: keyword and semantic rankings fused by normalised scores with the embedder's weight
// (the hash embedder's 0.1), so an exact keyword match outranks a closer semantic neighbour, a document with
// no shared keyword can still follow the keyword matches, and scores stay in [0, 1]. Then the missing-model
// path: with the default local provider (no model can be downloaded into an in-memory DATA_DIR) every mode runs by keyword and says why.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { chunksOf } from '../jobs/jobs.fixtures'
import { act, add, search, type SearchResult } from './search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
})
afterAll(() => t.close())

const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0)
const similarity = (text: string, query: string) => cosine(hashEmbed(text, 512), hashEmbed(query, 512))
const ids = (results: SearchResult[]) => results.map((r) => r.document.id)
const byId = (results: SearchResult[], id: string) => results.find((r) => r.document.id === id)

describe('the page size never changes the ranking', () => {
  // Fusion normalises each side over its candidates: were the candidates as many as the page, a page of 10
  // would rank differently from the first 10 of a page of 100. 80 documents, so both pools are cut.
  const WORDS = ['river', 'bridge', 'stone', 'winter', 'harbour', 'market', 'tower', 'garden', 'lantern', 'orchard', 'valley', 'mill']
  let u: TestUser
  beforeAll(async () => {
    u = await t.signUp()
    for (let i = 0; i < 80; i++) {
      const words = WORDS.filter((_, w) => (i * 7 + w * 13) % 5 < 2 || (i + w) % 11 === 0)
      await add(t, u, { title: `Note ${i}`, body: `${words.join(' ')} ${'walk '.repeat(i % 9)}by the ${WORDS[i % WORDS.length]}.` })
    }
    await drainJobs(t.deps)
  })

  test('the first 10 at limit 10 are the first 10 at limit 100, with the same scores', async () => {
    for (const q of ['river bridge winter', 'harbour market by the tower', 'stone garden lantern orchard']) {
      const page = await search(t, u, { q, mode: 'hybrid', limit: 10 })
      const long = await search(t, u, { q, mode: 'hybrid', limit: 100 })
      expect(page.results.length).toBe(10)
      expect(page.results.map((r) => [r.document.id, r.score])).toEqual(long.results.slice(0, 10).map((r) => [r.document.id, r.score]))
    }
  })
})

describe('hybrid fusion', () => {
  const q = 'what is the capital of the kingdom of the north'
  const texts = {
    // Shares the word "capital" with the query, little else.
    keyword: 'The capital moved south after the flood.',
    // Shares the word "north" only.
    keyword2: 'North wind.',
    // No keyword in common ("king" is not "kingdom"), but many of the query's words and word pairs: the
    // hash embedder finds it closer than either keyword match.
    neighbour: 'What is the name of the king of the hill? It is the name of the game.',
    unrelated: 'Sourdough bread rises slowly overnight.',
  }
  let u: TestUser
  const doc: Record<keyof typeof texts, string> = { keyword: '', keyword2: '', neighbour: '', unrelated: '' }
  beforeAll(async () => {
    u = await t.signUp()
    for (const [name, body] of Object.entries(texts)) doc[name as keyof typeof texts] = (await add(t, u, { title: 'Note', body })).id
    await drainJobs(t.deps)
  })

  test('the fixture: the neighbour is semantically closer than the keyword matches, and shares no keyword', async () => {
    expect(similarity(texts.neighbour, q)).toBeGreaterThan(similarity(texts.keyword, q) + 0.1)
    expect(similarity(texts.neighbour, q)).toBeGreaterThan(similarity(texts.keyword2, q) + 0.1)
    const kw = await search(t, u, { q, mode: 'keyword' })
    expect(new Set(ids(kw.results))).toEqual(new Set([doc.keyword, doc.keyword2]))
    const sem = await search(t, u, { q, mode: 'semantic' })
    expect(ids(sem.results)[0]).toBe(doc.neighbour)
  })

  test('an exact keyword match outranks a closer semantic neighbour; the neighbour still follows the keyword matches', async () => {
    const res = await search(t, u, { q, mode: 'hybrid' })
    expect(res.mode).toBe('hybrid')
    expect(res.notice).toBeUndefined()
    const order = ids(res.results)
    expect(new Set(order.slice(0, 2))).toEqual(new Set([doc.keyword, doc.keyword2]))
    expect(order[2]).toBe(doc.neighbour)
    // The unrelated document, if listed at all, comes after the neighbour.
    if (order.includes(doc.unrelated)) expect(order.indexOf(doc.unrelated)).toBeGreaterThan(order.indexOf(doc.neighbour))

    // Both rankings explain the keyword matches; the neighbour has semantic signals only.
    for (const id of [doc.keyword, doc.keyword2]) {
      expect(byId(res.results, id)!.signals).toMatchObject({
        keyword_rank: expect.any(Number),
        keyword_score: expect.any(Number),
        semantic_rank: expect.any(Number),
        semantic_score: expect.any(Number),
        matched_terms: 1,
      })
    }
    const neighbour = byId(res.results, doc.neighbour)!
    expect(neighbour.signals).toMatchObject({ keyword_rank: null, keyword_score: null, semantic_rank: 1, matched_terms: 0 })
    expect(neighbour.signals.semantic_score!).toBeCloseTo(similarity(texts.neighbour, q), 5)
    // A semantic-only hit gets at most the semantic share, 0.1 / 1.1; the top keyword match at least the keyword share.
    expect(neighbour.score).toBeLessThanOrEqual(0.1 / 1.1 + 1e-9)
    expect(res.results[0]!.score).toBeGreaterThanOrEqual(1 / 1.1 - 1e-9)
    // Its snippet is the passage of its matched chunk (keyword snippets have nothing to show for it).
    expect(neighbour.snippet).toContain('name of the king')
  })

  test('the default mode is hybrid', async () => {
    const res = await search(t, u, { q })
    expect(res.mode).toBe('hybrid')
    expect(ids(res.results)[2]).toBe(doc.neighbour)
  })

  test('scores are in [0, 1], within [0, 1 + boost], sorted, also with pinned and rated documents', async () => {
    await act(t, u, 'PATCH', `/api/documents/${doc.keyword2}`, 200, { pinned: true })
    await act(t, u, 'POST', `/api/documents/${doc.neighbour}/rate`, 200, { rating: 1 })
    await act(t, u, 'POST', `/api/documents/${doc.keyword}/rate`, 200, { rating: -1 })
    for (const query of [q, 'capital', 'the of and', 'north wind', 'kingdom']) {
      const res = await search(t, u, { q: query, mode: 'hybrid', limit: 100 })
      expect(res.mode).toBe('hybrid')
      expect(res.results.length).toBeGreaterThan(0)
      for (const r of res.results) {
        expect({ query, id: r.document.id, inRange: r.score >= 0 && r.score <= 1 + 1e-9 && r.score <= 1 + r.signals.boost }).toEqual({
          query,
          id: r.document.id,
          inRange: true,
        })
      }
      const scores = res.results.map((r) => r.score)
      expect(scores).toEqual([...scores].sort((a, b) => b - a))
    }
    expect(byId((await search(t, u, { q: 'north', mode: 'hybrid' })).results, doc.keyword2)!.signals.boost).toBeCloseTo(1.1, 9)
  })
})

describe('without an embedding model (default env: the local model cannot be downloaded into an in-memory DATA_DIR)', () => {
  let plain: TestApp
  beforeAll(async () => {
    plain = await createTestApp()
  })
  afterAll(() => plain.close())

  test('GET / says embeddings are unavailable, with the reason', async () => {
    const res = await plain.json('GET', '/')
    expect(res.status).toBe(200)
    // The provider is what is loaded (none), beside what was configured; no model, so no backlog to report.
    expect(res.body.embeddings).toEqual({
      provider: 'none',
      model: null,
      dtype: null,
      configured: { provider: 'local', model: 'Xenova/bge-small-en-v1.5' },
      available: false,
      reason: expect.any(String),
      backlog: null,
      failed: null,
    })
    expect(res.body.embeddings.reason).toContain('DATA_DIR is in memory')
    expect(plain.deps.embedder).toBeNull()
  })

  test('hybrid and semantic searches run by keyword and say why in a notice; keyword mode has no notice', async () => {
    const u = await plain.signUp()
    const doc = await add(plain, u, { title: 'Harbour', body: 'The ferry reached the harbour at noon.' })
    await add(plain, u, { title: 'Bread', body: 'Sourdough bread rises slowly overnight.' })
    const reason = plain.deps.embeddingStatus.reason!
    for (const mode of ['hybrid', 'semantic', undefined] as const) {
      const res = await search(plain, u, { q: 'ferry harbour', ...(mode ? { mode } : {}) })
      expect(res.mode).toBe('keyword')
      expect(ids(res.results)).toEqual([doc.id])
      expect(res.results[0]!.signals).toMatchObject({ keyword_rank: 1, semantic_rank: null, semantic_score: null })
      expect(res.notice).toBeString()
      expect(res.notice!).toContain(mode ?? 'hybrid')
      expect(res.notice!).toContain(reason)
    }
    const kw = await search(plain, u, { q: 'ferry harbour', mode: 'keyword' })
    expect(kw.mode).toBe('keyword')
    expect(kw.notice).toBeUndefined()
  })

  test('documents still become indexed after drainJobs, with no vectors', async () => {
    const u = await plain.signUp()
    const doc = await add(plain, u, { title: 'Mill', body: 'The old mill grinds flour on windy days.' })
    expect(doc.index_status).toBe('pending')
    await drainJobs(plain.deps)
    const got = await plain.json('GET', `/api/documents/${doc.id}`, { key: u.key })
    expect(got.body.index_status).toBe('indexed')
    for (const c of await chunksOf(plain.deps, doc.id)) expect(c).toMatchObject({ embedding: null, embedding_model: null })
  })

  test('EMBEDDING_PROVIDER=none is unavailable too, and says so', async () => {
    const none = await createTestApp({ env: { EMBEDDING_PROVIDER: 'none' } })
    try {
      const res = await none.json('GET', '/')
      expect(res.body.embeddings).toMatchObject({
        provider: 'none',
        model: null,
        configured: { provider: 'none' },
        available: false,
        reason: 'EMBEDDING_PROVIDER=none',
      })
      const u = await none.signUp()
      const s = await search(none, u, { q: 'anything', mode: 'semantic' })
      expect(s).toMatchObject({ mode: 'keyword', results: [] })
      expect(s.notice!).toContain('EMBEDDING_PROVIDER=none')
    } finally {
      await none.close()
    }
  })
})
