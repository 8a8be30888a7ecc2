// Search says what it did: an exact word outranks the prefix expansions of it (a word counts once per
// document), a query with no letters or digits answers 200 with a notice in every mode (never embedded, never
// a NaN), a query with more words than the ranking takes keeps the rarest, and `matched` tells how the results
// relate to the query's words in keyword, semantic and hybrid mode alike.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { add, search, searchRaw, type SearchResult } from './search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', PLAN_FREE_SEARCH_PER_MIN: '100000' } })
})
afterAll(() => t.close())

const ids = (results: SearchResult[]) => results.map((r) => r.document.id)
const byId = (results: SearchResult[], id: string) => results.find((r) => r.document.id === id)!

describe('an exact word outranks prefix expansions of it', () => {
  test('"ops" lists the documents tagged ops before one holding Options, operators and Opsgenie', async () => {
    const u = await t.signUp()
    const tagged = [
      await add(t, u, { title: 'Deploy checklist', body: 'Roll out the release behind a flag, watch the dashboards.', tags: ['ops'] }),
      await add(t, u, { title: 'Pager rotation', body: 'Who is on call each week, and how to hand over.', tags: ['ops'] }),
      await add(t, u, { title: 'Backups', body: 'Nightly snapshots are kept for thirty days.', tags: ['ops'] }),
    ]
    const expansions = await add(t, u, {
      title: 'Alerting tools',
      body: 'Options, operators, Opsgenie: what we compared for alert routing.',
    })
    for (const n of ['one', 'two', 'three', 'four'])
      await add(t, u, { title: `Meeting ${n}`, body: `Notes of meeting ${n} about the roadmap.` })

    for (const mode of ['keyword', 'hybrid'] as const) {
      const res = await search(t, u, { q: 'ops', mode })
      expect({ mode, top: new Set(ids(res.results).slice(0, 3)) }).toEqual({ mode, top: new Set(tagged.map((d) => d.id)) })
      expect(ids(res.results)[3]).toBe(expansions.id)
    }
    const res = await search(t, u, { q: 'ops', mode: 'keyword' })
    for (const d of tagged) expect(byId(res.results, d.id).score).toBeGreaterThan(byId(res.results, expansions.id).score)
  })

  test('a word counts once per document: three expansions score as one', async () => {
    const u = await t.signUp()
    // Same length, same title: one holds three forms of "op…", the other one form.
    const three = await add(t, u, { title: 'Tools', body: 'options operators opsgenie' })
    const one = await add(t, u, { title: 'Tools', body: 'opsgenie lantern harbour' })
    await add(t, u, { title: 'Other', body: 'Nothing of the kind here.' })
    const res = await search(t, u, { q: 'ops', mode: 'keyword' })
    expect(new Set(ids(res.results))).toEqual(new Set([three.id, one.id]))
    expect(byId(res.results, three.id).signals.keyword_score!).toBeCloseTo(byId(res.results, one.id).signals.keyword_score!, 9)
    for (const r of res.results) expect(r.signals.matched_terms).toBe(1)
  })
})

describe('a query with no letters or digits', () => {
  test('answers 200 with no results, matched "none" and a notice, in keyword, semantic and hybrid mode', async () => {
    const u = await t.signUp()
    await add(t, u, { title: 'Lighthouse keeper', body: 'The keeper trims the lamp wick every evening.' })
    await add(t, u, { title: 'Punctuation only', body: '!!! ??? ...' })
    await drainJobs(t.deps)
    for (const q of ["!!! ':* ((((", '?!', '🚀 ✨', '...']) {
      for (const mode of ['keyword', 'semantic', 'hybrid']) {
        const res = await searchRaw(t, u, { q, mode })
        expect({ q, mode, status: res.status }).toEqual({ q, mode, status: 200 })
        expect({ q, mode, ran: res.body.mode, results: res.body.results, matched: res.body.matched, notice: res.body.notice }).toEqual({
          q,
          mode,
          ran: mode,
          results: [],
          matched: 'none',
          notice: 'the query has no letters or digits: there is nothing to search for',
        })
      }
    }
  })
})

describe('a query with more words than the ranking takes', () => {
  test('keeps the rarest 62 words, not the first 62, and says so', async () => {
    const u = await t.signUp()
    // 70 words each held by three documents, then one word held by one document only.
    const common = Array.from({ length: 70 }, (_, i) => `common${String(i).padStart(2, '0')}x`)
    for (const k of ['alpha', 'bravo', 'charlie']) await add(t, u, { title: `Filler ${k}`, body: `${k} ${common.join(' ')}` })
    const rare = await add(t, u, { title: 'Airship', body: 'The zeppelin left its hangar at dawn.' })
    // Absent words first: they can rank nothing and are the first left out.
    const q = `absentwordone absentwordtwo ${common.join(' ')} zeppelin `
    const res = await search(t, u, { q, mode: 'keyword', limit: 10 })
    expect(ids(res.results)).toContain(rare.id)
    expect(byId(res.results, rare.id).signals.matched_terms).toBe(1)
    // Of the 61 other words kept, the fillers hold every one.
    for (const r of res.results.filter((r) => r.document.id !== rare.id)) expect(r.signals.matched_terms).toBe(61)
    expect(res.matched).toBe('any')
    expect(res.notice).toBe('the query has 73 distinct words; the 62 rarest in your documents were searched')
  })
})

describe('matched says how the results relate to the query words, in every mode', () => {
  let u: TestUser
  const doc = { both: '', one: '', none: '' }
  beforeAll(async () => {
    u = await t.signUp()
    doc.both = (await add(t, u, { title: 'Field trip', body: 'A walrus crossing the tundra in spring.' })).id
    doc.one = (await add(t, u, { title: 'Ice', body: 'A walrus resting on the ice floe.' })).id
    doc.none = (await add(t, u, { title: 'Bread', body: 'Sourdough bread rises slowly overnight.' })).id
    await drainJobs(t.deps)
  })
  const run = (q: string, mode: string, limit = 10) => search(t, u, { q, mode, limit })
  const termsOf = (res: { results: SearchResult[] }) => Object.fromEntries(res.results.map((r) => [r.document.id, r.signals.matched_terms]))

  test('keyword: "all" when every result holds every word, "any" when OR matches fill, "none" when nothing matched', async () => {
    expect((await run('walrus tundra ', 'keyword', 1)).matched).toBe('all')
    const filled = await run('walrus tundra ', 'keyword')
    expect(filled.matched).toBe('any')
    expect(termsOf(filled)).toEqual({ [doc.both]: 2, [doc.one]: 1 })
    const nothing = await run('zeppelin hangar ', 'keyword')
    expect({ results: nothing.results, matched: nothing.matched }).toEqual({ results: [], matched: 'none' })
  })

  test('semantic: results ranked by meaning still say which words they hold', async () => {
    const top = await run('walrus tundra ', 'semantic', 1)
    expect(ids(top.results)).toEqual([doc.both])
    expect(top.results[0]!.signals.matched_terms).toBe(2)
    expect(top.matched).toBe('all')
    const all = await run('walrus tundra ', 'semantic')
    expect(termsOf(all)).toEqual({ [doc.both]: 2, [doc.one]: 1, [doc.none]: 0 })
    expect(all.matched).toBe('any')
    // Neighbours by meaning that hold no query word.
    const unrelated = await run('zeppelin hangar ', 'semantic')
    expect(unrelated.results.length).toBeGreaterThan(0)
    expect(unrelated.matched).toBe('none')
  })

  test('hybrid: keyword matches and semantic neighbours alike', async () => {
    expect((await run('walrus tundra ', 'hybrid', 1)).matched).toBe('all')
    const all = await run('walrus tundra ', 'hybrid')
    expect(termsOf(all)).toEqual({ [doc.both]: 2, [doc.one]: 1, [doc.none]: 0 })
    expect(all.matched).toBe('any')
    const unrelated = await run('zeppelin hangar ', 'hybrid')
    expect(unrelated.results.length).toBeGreaterThan(0)
    expect(unrelated.matched).toBe('none')
  })
})
