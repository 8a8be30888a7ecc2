// Search, hostile and invalid input: any text is a query (cleansed, never parsed as syntax, never a 500),
// unicode and emoji, stop words only, length caps, and 400s that name the bad parameter.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { add, search, searchIds, searchRaw, type SearchParams } from './search.fixtures'

let t: TestApp
let u: TestUser
let keeper: { id: string }
let tokens: { id: string }
let unicode: { id: string }
beforeAll(async () => {
  // Many queries from one user: the rate limit is tested in search.ratelimit.test.ts.
  t = await createTestApp({ env: { PLAN_FREE_SEARCH_PER_MIN: '100000' } })
  u = await t.signUp()
  keeper = await add(t, u, { title: 'Lighthouse keeper', body: 'The lighthouse keeper trims the lamp wick every evening.' })
  tokens = await add(t, u, {
    title: 'Odd tokens',
    body: "Mail o'brien@example.com, open https://example.com/a:b?x=1&y=2 or C:\\Users\\me\\file.txt; version 1.2.3-beta; 50% off_sale; x-ray; back\\slash.",
  })
  unicode = await add(t, u, {
    title: 'Zürich café',
    body: 'Ein Café in Zürich. 東京タワー の 夜景. Rocket launch 🚀 tonight. Ärger über Straße.',
  })
})
afterAll(() => t.close())

const expectOk = async (params: SearchParams) => {
  const res = await searchRaw(t, u, params)
  expect({ q: params.q?.slice(0, 60), status: res.status }).toEqual({ q: params.q?.slice(0, 60), status: 200 })
  expect(Array.isArray(res.body.results)).toBe(true)
  return res.body as { query: string; results: { document: { id: string } }[]; matched: string; notice?: string }
}

const expect400 = async (params: SearchParams | string, mentions: string) => {
  const path =
    typeof params === 'string' ? params : `/api/search?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`
  const res = await t.json('GET', path, { key: u.key })
  expect({ path, status: res.status }).toEqual({ path, status: 400 })
  expect(res.body.error).toBeString()
  expect(res.body.error).toContain(mentions)
}

describe('query cleansing: operators and punctuation are never syntax', () => {
  test('queries made only of operators, quotes, wildcards or backslashes answer 200 with no results and a notice saying why', async () => {
    for (const q of [
      '&|!():*<->',
      "'",
      "''''",
      '"',
      '\\',
      '\\\\\\',
      '%_',
      '%',
      '_',
      '*',
      ':*',
      '!',
      '-',
      '()',
      '<->',
      '[]{}',
      ';',
      '--',
      '/* */',
      '`',
      '^~',
      '&&||',
      ':*:*'.repeat(200),
    ]) {
      const body = await expectOk({ q, mode: 'keyword' })
      expect({ q, results: body.results, matched: body.matched, notice: body.notice }).toEqual({
        q,
        results: [],
        matched: 'none',
        notice: 'the query has no letters or digits: there is nothing to search for',
      })
    }
  })

  test('operators around real words are stripped and the words still match', async () => {
    for (const q of [
      'lighthouse & keeper',
      'lighthouse | keeper',
      '!lighthouse',
      '(lighthouse keeper)',
      'lighthouse:*',
      "'lighthouse'",
      '"lighthouse keeper"',
      'lighthouse<->keeper',
      '%lighthouse_',
      'lighthouse\\',
      'lighthouse\\ keeper',
      "lighthouse'; drop table documents; --",
      'keeper & !lighthouse',
      'LIGHTHOUSE   KEEPER',
    ]) {
      const body = await expectOk({ q })
      expect({ q, ids: body.results.map((r) => r.document.id) }).toEqual({ q, ids: [keeper.id] })
    }
  })

  test('addresses, paths and versions are searchable as written', async () => {
    for (const q of [
      "o'brien@example.com",
      'https://example.com/a:b?x=1&y=2',
      'C:\\Users\\me\\file.txt',
      '1.2.3-beta',
      'x-ray',
      'back\\slash',
      "o'",
      'off_sale',
    ]) {
      const body = await expectOk({ q })
      expect({ q, ids: body.results.map((r) => r.document.id) }).toEqual({ q, ids: [tokens.id] })
    }
  })

  test('control characters are treated as spaces; NUL, which nothing can store, is 400 naming q', async () => {
    for (const q of ['\u0007\u001b[31m', 'lighthouse\tkeeper\r\n', '\u007f']) await expectOk({ q })
    expect(await searchIds(t, u, 'lighthouse\tkeeper\n')).toEqual([keeper.id])
    for (const q of ['\u0000', 'lighthouse\u0000keeper']) {
      const res = await t.json('GET', `/api/search?q=${encodeURIComponent(q)}`, { key: u.key })
      expect(res.status).toBe(400)
      expect(res.body.error).toMatch(/^query\.q contains a NUL/)
    }
  })

  test('a query of stop words only, an empty query and blanks answer 200 with no results and a notice saying why', async () => {
    for (const q of ['the of and ', 'the of', 'a an the is', '', ' ', '   \t  ']) {
      const body = await expectOk({ q })
      expect({ q, results: body.results, matched: body.matched }).toEqual({ q, results: [], matched: 'none' })
      expect(body.notice).toContain(q.trim() ? 'only stop words' : 'the query is empty')
    }
  })

  test('malformed percent-encoding and repeated parameters in the raw URL never fail; escapes of bytes that are not UTF-8 are 400 naming q', async () => {
    for (const qs of ['q=%ZZ', 'q=%', 'q=lighthouse&q=keeper', 'q=lighthouse&limit=5&limit=6', 'q=lighthouse&unknown=1']) {
      const res = await t.json('GET', `/api/search?${qs}`, { key: u.key })
      expect({ qs, status: res.status }).toEqual({ qs, status: 200 })
    }
    for (const qs of ['q=%E0%A4%A', 'q=%FF', 'q=%ED%BF%BF']) {
      const res = await t.json('GET', `/api/search?${qs}`, { key: u.key })
      expect({ qs, status: res.status, error: res.body.error }).toEqual({
        qs,
        status: 400,
        error: 'query.q is not valid percent-encoded UTF-8',
      })
    }
    expect((await t.json('GET', '/api/search?q=lighthouse+keeper', { key: u.key })).body.query).toBe('lighthouse keeper')
  })

  test('the query is echoed as given', async () => {
    const q = "  lighthouse & (keeper) 'x' "
    expect((await search(t, u, q)).query).toBe(q)
  })
})

describe('unicode', () => {
  test('accented, umlauted and non-Latin words are found, in any case', async () => {
    for (const q of ['Zürich', 'zürich', 'ZÜRICH', 'café', 'Straße', 'ärger', '東京タワー', 'zür']) {
      expect({ q, ids: await searchIds(t, u, q) }).toEqual({ q, ids: [unicode.id] })
    }
  })

  test('emoji, lone surrogates and combining marks never fail; words beside an emoji still match', async () => {
    for (const q of ['🚀', '🚀🚀🚀', '👩‍👩‍👧‍👦', '\uD800', 'e\u0301', '\uFEFF', '\u200B', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'ﬁ']) await expectOk({ q })
    expect(await searchIds(t, u, '🚀 rocket')).toEqual([unicode.id])
    expect(await searchIds(t, u, 'rocket🚀launch')).toEqual([unicode.id])
  })
})

describe('length', () => {
  test('q of more than 2000 characters is cut to 2000, not refused, and the notice says so', async () => {
    const long = await expectOk({ q: 'lighthouse '.repeat(300), mode: 'keyword' })
    expect(long.results.map((r) => r.document.id)).toEqual([keeper.id])
    expect(long.notice).toBe('the query was cut to its first 2,000 characters')
    expect((await expectOk({ q: 'x'.repeat(2001) })).notice).toContain('cut to its first 2,000 characters')
    // At exactly 2000 nothing is cut.
    expect((await expectOk({ q: 'x'.repeat(2000), mode: 'keyword' })).notice).toBeUndefined()
    // A word past the cut is not searched: "keeper" alone at the end finds nothing.
    const past = await expectOk({ q: `${'zzz '.repeat(500)}keeper` })
    expect(past.results).toEqual([])
    expect(past.notice).toContain('cut')
    // The cut falls inside "lampshade": its first letters ("lamps", the keeper's "lamp") are not searched as a word.
    const straddling = `${'zz '.repeat(665)}lampshade`
    expect(straddling.indexOf('lampshade')).toBe(1995)
    expect((await expectOk({ q: straddling })).results).toEqual([])
    expect(await searchIds(t, u, `${'zz '.repeat(665)}lamp`)).toEqual([keeper.id])
  })

  test('q beyond what HTTP lets through in a request line (16,384 characters) is 400 naming q', async () => {
    await expectOk({ q: 'x'.repeat(16_384) })
    await expect400({ q: 'x'.repeat(16_385) }, 'q')
  })

  test('a 1990-character query works, hostile or not, and still finds its words', async () => {
    for (const q of ['x'.repeat(1990), "a'".repeat(995), '\\'.repeat(1990), ':*'.repeat(995), 'é'.repeat(1990), '🚀'.repeat(995)])
      await expectOk({ q })
    const long = `lighthouse keeper ${'and the '.repeat(250)}`.slice(0, 1990)
    expect(long).toHaveLength(1990)
    expect(await searchIds(t, u, long)).toEqual([keeper.id])
  })
})

describe('invalid parameters', () => {
  test('a missing q is 400 naming q', async () => {
    await expect400('/api/search', 'q')
    await expect400('/api/search?limit=5', 'q')
  })

  test('limit outside 1–100 or not an integer is 400 naming limit; 1 and 100 are fine', async () => {
    for (const limit of ['0', '101', '-1', '1.5', 'abc', '1e3']) await expect400({ q: 'lighthouse', limit }, 'limit')
    await expectOk({ q: 'lighthouse', limit: 1 })
    await expectOk({ q: 'lighthouse', limit: 100 })
  })

  test('a malformed workspace_id, an unknown kind, source or mode, and an over-long tag are 400 naming the field', async () => {
    await expect400({ q: 'x', workspace_id: 'not-a-uuid' }, 'workspace_id')
    await expect400({ q: 'x', kind: 'essay' }, 'kind')
    await expect400({ q: 'x', source: 'email' }, 'source')
    await expect400({ q: 'x', mode: 'fuzzy' }, 'mode')
    await expect400({ q: 'x', tag: 't'.repeat(65) }, 'tag')
  })

  test('an unknown workspace is 404 with an error body', async () => {
    const res = await searchRaw(t, u, { q: 'lighthouse', workspace_id: crypto.randomUUID() })
    expect(res.status).toBe(404)
    expect(res.body.error).toBeString()
  })
})
