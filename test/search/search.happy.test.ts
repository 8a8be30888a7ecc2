// Search, happy paths of ranking: BM25 over small hand-made corpora (exact words, title over body, rare over
// common, stemming), prefix matching of the last word, AND first with OR to fill, pinned and rating boosts,
// the signals that explain a rank, and the response's shape and modes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'
import { act, add, search, searchIds, type SearchResult } from './search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const byId = (results: SearchResult[], id: string) => results.find((r) => r.document.id === id)!

describe('ranking', () => {
  test('the document with the exact words beats one that only shares a vaguer, related word', async () => {
    const u = await t.signUp()
    const exact = await add(t, u, { title: 'Hypertension guide', body: 'First-line treatment of hypertension is a change of lifestyle.' })
    const vague = await add(t, u, {
      title: 'Blood pressure guide',
      body: 'Treatment of high blood pressure starts with diet and exercise.',
    })
    await add(t, u, { title: 'Unrelated', body: 'A recipe for lemon cake with a crisp sugar glaze.' })

    const res = await search(t, u, 'hypertension treatment')
    expect(res.results.map((r) => r.document.id)).toEqual([exact.id, vague.id])
    expect(byId(res.results, exact.id).signals.matched_terms).toBe(2)
    expect(byId(res.results, vague.id).signals.matched_terms).toBe(1)
    expect(byId(res.results, exact.id).score).toBeGreaterThan(byId(res.results, vague.id).score)
    // The exact word alone finds only the document that has it.
    expect(await searchIds(t, u, 'hypertension')).toEqual([exact.id])
  })

  test('a title match outranks a body-only match of the same word, even when the body-only one is pinned', async () => {
    const u = await t.signUp()
    const inTitle = await add(t, u, { title: 'Kubernetes upgrade', body: 'Steps we follow for the cluster every quarter.' })
    const inBody = await add(t, u, { title: 'Quarterly notes', body: 'Steps we follow for the kubernetes cluster every quarter.' })

    let res = await search(t, u, 'kubernetes')
    expect(res.results.map((r) => r.document.id)).toEqual([inTitle.id, inBody.id])
    expect(byId(res.results, inTitle.id).signals.keyword_score!).toBeGreaterThan(byId(res.results, inBody.id).signals.keyword_score!)

    // Pinning is a mild boost: it breaks near-ties but does not bury the better match.
    await act(t, u, 'PATCH', `/api/documents/${inBody.id}`, 200, { pinned: true })
    res = await search(t, u, 'kubernetes')
    expect(res.results.map((r) => r.document.id)).toEqual([inTitle.id, inBody.id])
  })

  test('a rare word outranks a common one (inverse document frequency)', async () => {
    const u = await t.signUp()
    const rare = await add(t, u, { title: 'Log', body: 'Notes: zeppelin hangar inspection zero.' })
    const common = []
    for (const n of ['one', 'two', 'three', 'four', 'five'])
      common.push(await add(t, u, { title: 'Log', body: `Notes: meeting hangar inspection ${n}.` }))

    const res = await search(t, u, { q: 'zeppelin meeting', limit: 20 })
    expect(res.results).toHaveLength(6)
    expect(res.results[0]!.document.id).toBe(rare.id)
    expect(res.matched).toBe('any')
    const rareScore = res.results[0]!.signals.keyword_score!
    for (const r of res.results.slice(1)) expect(rareScore).toBeGreaterThan(r.signals.keyword_score!)
    expect(new Set(res.results.slice(1).map((r) => r.document.id))).toEqual(new Set(common.map((d) => d.id)))
  })

  test('words are stemmed: "running" finds "runs", and "runs" finds "running"', async () => {
    const u = await t.signUp()
    const runs = await add(t, u, { title: 'Morning', body: 'She runs along the river before work.' })
    const running = await add(t, u, { title: 'Evening', body: 'Running the batch job takes an hour.' })
    expect(new Set(await searchIds(t, u, 'running'))).toEqual(new Set([runs.id, running.id]))
    expect(new Set(await searchIds(t, u, 'runs '))).toEqual(new Set([runs.id, running.id]))
    expect(await searchIds(t, u, 'river')).toEqual([runs.id])
  })

  test('matching ignores case', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Postgres', body: 'VACUUM reclaims storage.' })
    expect(await searchIds(t, u, 'vacuum')).toEqual([doc.id])
    expect(await searchIds(t, u, 'POSTGRES')).toEqual([doc.id])
  })
})

describe('prefix matching of the last word', () => {
  test('"vacc" finds "vaccination"; "vacc " (finished word) and two letters do not expand', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Clinic', body: 'The vaccination schedule for the spring.' })
    const res = await search(t, u, 'vacc')
    expect(res.results.map((r) => r.document.id)).toEqual([doc.id])
    expect(res.matched).toBe('all')
    expect(res.results[0]!.signals.matched_terms).toBe(1)
    expect(await searchIds(t, u, 'vacc ')).toEqual([])
    expect(await searchIds(t, u, 'va')).toEqual([])
    expect(await searchIds(t, u, 'vac')).toEqual([doc.id])
  })

  test('search as you type: earlier words are whole, the last one a prefix', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Clinic', body: 'The vaccination schedule for the spring.' })
    await add(t, u, { title: 'Clinic', body: 'The spring schedule of the garden.' })
    const res = await search(t, u, 'spring vacc')
    expect(res.results[0]!.document.id).toBe(doc.id)
    expect(res.results[0]!.signals.matched_terms).toBe(2)
    // Only the last word expands: "vacc spring" needs the whole word "vacc".
    const reversed = await search(t, u, 'vacc spring')
    expect(reversed.results.every((r) => r.signals.matched_terms === 1)).toBe(true)
  })

  test('a prefix-only match counts half an exact one, weighed by how many documents hold the word in any form', async () => {
    const u = await t.signUp()
    const exact = await add(t, u, { title: 'Harbour', body: 'The ferry reached the dock at noon.' })
    const prefixed = await add(t, u, { title: 'Harbour', body: 'The ferry reached the docker at noon.' })
    const res = await search(t, u, 'dock')
    expect(res.results.map((r) => r.document.id)).toEqual([exact.id, prefixed.id])
    // BM25 idf of 2 documents: "dock" exactly is in 1, the word "dock…" in any form in both (same length, same tf).
    const idf = (df: number) => Math.log(1 + (2 - df + 0.5) / (df + 0.5))
    expect(byId(res.results, prefixed.id).signals.keyword_score!).toBeCloseTo(
      (byId(res.results, exact.id).signals.keyword_score! * 0.5 * idf(2)) / idf(1),
      6,
    )
  })
})

describe('AND first, OR to fill', () => {
  test('the document with both words comes first, then those with one; matched is "any"', async () => {
    const u = await t.signUp()
    // The one-word document repeats its word: a higher raw score must still not put it before the AND match.
    const walrus = await add(t, u, { title: 'Walrus walrus', body: 'Walrus, walrus, walrus on the ice.' })
    const tundra = await add(t, u, { title: 'Spring', body: 'The tundra in spring.' })
    const both = await add(t, u, {
      title: 'Field trip',
      body: `A long report. ${'We walked and talked for hours. '.repeat(20)} A walrus crossing the tundra.`,
    })

    const res = await search(t, u, { q: 'walrus tundra', limit: 10 })
    expect(res.matched).toBe('any')
    expect(res.results.map((r) => r.document.id)[0]).toBe(both.id)
    expect(new Set(res.results.map((r) => r.document.id))).toEqual(new Set([both.id, walrus.id, tundra.id]))
    expect(res.results.map((r) => r.signals.matched_terms)).toEqual([2, 1, 1])
  })

  test('with limit 1 the AND match fills the list and matched is "all"', async () => {
    const u = await t.signUp()
    await add(t, u, { title: 'Walrus', body: 'A walrus on the ice.' })
    await add(t, u, { title: 'Tundra', body: 'The tundra in spring.' })
    const both = await add(t, u, { title: 'Field trip', body: 'A walrus crossing the tundra.' })
    const res = await search(t, u, { q: 'walrus tundra', limit: 1 })
    expect(res.results.map((r) => r.document.id)).toEqual([both.id])
    expect(res.matched).toBe('all')
  })

  test('when AND matches reach the limit no OR match is added', async () => {
    const u = await t.signUp()
    await add(t, u, { title: 'Walrus', body: 'A walrus on the ice.' })
    const both1 = await add(t, u, { title: 'Field trip', body: 'A walrus crossing the tundra.' })
    const both2 = await add(t, u, { title: 'Second trip', body: 'The tundra had one walrus.' })
    const res = await search(t, u, { q: 'walrus tundra', limit: 2 })
    expect(new Set(res.results.map((r) => r.document.id))).toEqual(new Set([both1.id, both2.id]))
    expect(res.matched).toBe('all')
  })

  test('stop words in the query do not count as words to match', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Walrus', body: 'A walrus on the ice.' })
    const finished = await search(t, u, 'the walrus of the ')
    expect(finished.results.map((r) => r.document.id)).toEqual([doc.id])
    expect(finished.matched).toBe('all')
    expect(finished.results[0]!.signals.matched_terms).toBe(1)
    // Still being typed, the last word may be the start of a longer word; the walrus is still found.
    expect(await searchIds(t, u, 'the walrus and the')).toEqual([doc.id])
  })
})

describe('pinned and rating boosts, and the signals', () => {
  /** Two documents that score exactly alike for "heron migration"; returned in their unboosted order. */
  async function twins() {
    const u = await t.signUp()
    const a = await add(t, u, { title: 'Heron report', body: 'Heron migration along the coast, copy alpha.' })
    const b = await add(t, u, { title: 'Heron report', body: 'Heron migration along the coast, copy bravo.' })
    const res = await search(t, u, 'heron migration')
    expect(res.results).toHaveLength(2)
    expect(res.results[0]!.signals.keyword_score).toBe(res.results[1]!.signals.keyword_score)
    expect(new Set(res.results.map((r) => r.document.id))).toEqual(new Set([a.id, b.id]))
    const [first, second] = res.results.map((r) => r.document.id) as [string, string]
    return { u, first, second }
  }

  test('pinning the second of two equal documents puts it first; unpinning restores the order', async () => {
    const { u, first, second } = await twins()
    await act(t, u, 'PATCH', `/api/documents/${second}`, 200, { pinned: true })
    const res = await search(t, u, 'heron migration')
    expect(res.results.map((r) => r.document.id)).toEqual([second, first])
    expect(res.results[0]!.signals.boost).toBeCloseTo(1.1, 9)
    expect(res.results[0]!.score).toBeCloseTo(res.results[0]!.signals.keyword_score! * 1.1, 9)
    expect(res.results[1]!.signals.boost).toBe(1)
    expect(res.results[0]!.document.pinned).toBe(true)

    await act(t, u, 'PATCH', `/api/documents/${second}`, 200, { pinned: false })
    expect(await searchIds(t, u, 'heron migration')).toEqual([first, second])
  })

  test('a thumbs-up lifts the second document, a thumbs-down sinks the first', async () => {
    const { u, first, second } = await twins()
    await act(t, u, 'POST', `/api/documents/${second}/rate`, 200, { rating: 1 })
    let res = await search(t, u, 'heron migration')
    expect(res.results.map((r) => r.document.id)).toEqual([second, first])
    expect(res.results[0]!.signals.boost).toBeCloseTo(1.05, 9)

    await act(t, u, 'POST', `/api/documents/${second}/rate`, 200, { rating: 0 })
    expect(await searchIds(t, u, 'heron migration')).toEqual([first, second])

    await act(t, u, 'POST', `/api/documents/${first}/rate`, 200, { rating: -1 })
    res = await search(t, u, 'heron migration')
    expect(res.results.map((r) => r.document.id)).toEqual([second, first])
    expect(res.results[1]!.signals.boost).toBeCloseTo(0.95, 9)
    expect(res.results[1]!.score).toBeCloseTo(res.results[1]!.signals.keyword_score! * 0.95, 9)
  })

  test('the boost applies before the limit: limit 1 returns the boosted document that limit 2 puts first', async () => {
    const { u, second } = await twins()
    await act(t, u, 'PATCH', `/api/documents/${second}`, 200, { pinned: true })
    expect((await searchIds(t, u, { q: 'heron migration', limit: 2 }))[0]).toBe(second)
    expect(await searchIds(t, u, { q: 'heron migration', limit: 1 })).toEqual([second])
  })

  test('signals explain every result: keyword rank and score, matched words, boost; no semantic signal yet', async () => {
    const u = await t.signUp()
    await add(t, u, { title: 'Otters', body: 'Sea otters use stones as tools.' })
    await add(t, u, { title: 'Stones', body: 'River stones are smooth.' })
    await add(t, u, { title: 'Tools', body: 'A carpenter keeps sharp tools, and otters do not.' })
    const res = await search(t, u, 'otters stones tools')
    expect(res.results).toHaveLength(3)
    expect(res.results.map((r) => r.signals.keyword_rank).sort()).toEqual([1, 2, 3])
    for (const r of res.results) {
      expect(r.signals.semantic_rank).toBeNull()
      expect(r.signals.semantic_score).toBeNull()
      expect(r.signals.keyword_score!).toBeGreaterThan(0)
      expect(r.signals.boost).toBe(1)
      expect(r.score).toBeCloseTo(r.signals.keyword_score!, 9)
    }
    expect(res.results.map((r) => r.signals.matched_terms)).toEqual([3, 2, 1])
    expect(res.results.map((r) => r.signals.keyword_rank)).toEqual([1, 2, 3])
    // Within a tier, scores never increase down the list.
    const scores = res.results.map((r) => r.score)
    expect(scores).toEqual([...scores].sort((x, y) => y - x))
  })
})

describe('the response', () => {
  test('echoes the query, reports the mode that ran and the time taken, and carries document summaries', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Garden', body: 'Tomatoes need full sun.', tags: ['plants'] })
    const res = await search(t, u, { q: 'tomatoes sun', mode: 'keyword' })
    expect(res).toMatchObject({ query: 'tomatoes sun', mode: 'keyword', matched: 'all' })
    expect(res.notice).toBeUndefined()
    expect(res.took_ms).toBeNumber()
    expect(res.took_ms).toBeGreaterThanOrEqual(0)
    expect(res.results).toHaveLength(1)
    const [hit] = res.results
    expect(hit!.document).toMatchObject({
      id: doc.id,
      title: 'Garden',
      tags: ['plants'],
      kind: 'document',
      status: 'active',
      source: 'api',
      workspace_id: doc.workspace_id,
    })
    expect(hit!.document).not.toHaveProperty('body')
    expect(hit!.snippet).toContain('Tomatoes')
  })

  test('hybrid, semantic and the default mode run keyword search and say so in a notice', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Garden', body: 'Tomatoes need full sun.' })
    for (const mode of ['hybrid', 'semantic', undefined]) {
      const res = await search(t, u, { q: 'tomatoes', mode })
      expect(res.mode).toBe('keyword')
      expect(res.notice).toBeString()
      expect(res.notice!.length).toBeGreaterThan(0)
      expect(res.results.map((r) => r.document.id)).toEqual([doc.id])
    }
  })

  test('limit defaults to 10 and caps the list; limit 100 returns every match', async () => {
    const u = await t.signUp()
    for (let i = 0; i < 12; i++)
      await add(t, u, { title: `Beacon ${i}`, body: `Beacon number ${i} is lit at dusk (${crypto.randomUUID()}).` })
    expect((await search(t, u, 'beacon')).results).toHaveLength(10)
    expect((await search(t, u, { q: 'beacon', limit: 3 })).results).toHaveLength(3)
    const all = await search(t, u, { q: 'beacon', limit: 100 })
    expect(all.results).toHaveLength(12)
    expect(new Set(all.results.map((r) => r.document.id)).size).toBe(12)
  })

  test('a user with no documents, or no match, gets an empty list', async () => {
    const u = await t.signUp()
    expect((await search(t, u, 'anything')).results).toEqual([])
    await add(t, u, { title: 'Garden', body: 'Tomatoes need full sun.' })
    expect((await search(t, u, 'submarine')).results).toEqual([])
  })
})

describe('typing a stop word last', () => {
  test('"walrus and" still finds the walrus and does not require a word starting with "and"', async () => {
    const u = await t.signUp()
    const walrus = await add(t, u, { title: 'Walrus', body: 'The walrus lives on Arctic ice.' })
    await add(t, u, { title: 'Phones', body: 'An android phone.' })
    const res = await search(t, u, 'walrus and')
    expect(res.results.map((r) => r.document.id)).toEqual([walrus.id])
    expect(res.matched).toBe('all')
  })
})
