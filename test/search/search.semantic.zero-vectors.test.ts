// Texts with nothing to embed, with the real hash embedder: a punctuation-only document, a long document
// whose later chunk is punctuation, and queries of no words. Their cosine would be NaN, which PostgreSQL ranks
// above every number and JSON serialises as null — no such number may reach a score, a ranking or a response,
// in semantic and hybrid search, link suggestions, link listings and the graph. Zero vectors and NaN link
// scores stored by earlier versions are read safely too.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { links } from '../../db/schema'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { drainJobs } from '../../src/jobs/worker'
import { suggestLinks } from '../../src/modules/documents/link-suggestions.service'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { defaultWorkspaceId } from '../documents/documents.fixtures'
import { chunksOf, indexStatus } from '../jobs/jobs.fixtures'
import { add, searchPath, type SearchBody } from './search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
})
afterAll(() => t.close())

const MEASLES_A = 'Measles vaccination of young children sharply reduces hospital admissions for measles in winter.'
const MEASLES_B = 'Vaccination of young children against measles sharply reduces winter hospital admissions for measles.'
const KEEPER = 'Every night the lighthouse keeper logged the storm, the tides and the passing ships.'
/** ~1,500 characters of words, then ~1,800 of punctuation: the second chunk has nothing to embed. */
const LONG_THEN_PUNCTUATION = `${'The lighthouse keeper logged the storm, the tides and the passing ships every night. '.repeat(18)}\n\n${'!?. '.repeat(450)}`

/** The scores an answer must carry as numbers (NaN would arrive as null): results, their ranked signals, links, edges. */
function requiredScores(body: any): unknown[] {
  const results = (body.results ?? []).flatMap((r: any) => [
    r.score,
    ...(r.signals.semantic_rank !== null ? [r.signals.semantic_score] : []),
    ...(r.signals.keyword_rank !== null ? [r.signals.keyword_score] : []),
  ])
  return [...results, ...(body.data ?? []).map((l: any) => l.score), ...(body.edges ?? []).map((e: any) => e.score)]
}

/** 200, and every score in the answer a finite number. */
async function expectFinite(path: string, u: TestUser) {
  const res = await t.json('GET', path, { key: u.key })
  expect({ path, status: res.status, error: res.body?.error }).toEqual({ path, status: 200, error: undefined })
  expect(requiredScores(res.body).filter((n) => typeof n !== 'number' || !Number.isFinite(n))).toEqual([])
  return res.body
}

async function userWithPunctuation() {
  const u = await t.signUp()
  const punct = await add(t, u, { title: 'Punctuation only', body: '!!! ??? ...' })
  const long = await add(t, u, { title: 'Keeper log', body: LONG_THEN_PUNCTUATION })
  const a = await add(t, u, { title: 'Measles A', body: MEASLES_A })
  const b = await add(t, u, { title: 'Measles B', body: MEASLES_B })
  const keeper = await add(t, u, { title: 'Keeper', body: KEEPER })
  await drainJobs(t.deps)
  return { u, punct, long, a, b, keeper }
}

describe('a document or chunk with nothing to embed', () => {
  test('is indexed (not failed), its chunk processed by the model with no vector; the other chunks have theirs', async () => {
    const { punct, long } = await userWithPunctuation()
    expect(await indexStatus(t.deps, punct.id)).toBe('indexed')
    expect(await chunksOf(t.deps, punct.id)).toMatchObject([{ embedding: null, embedding_model: 'hash-512' }])
    expect(await indexStatus(t.deps, long.id)).toBe('indexed')
    const [first, ...rest] = await chunksOf(t.deps, long.id)
    expect(first!.embedding).toHaveLength(512)
    expect(rest.length).toBeGreaterThan(0)
    expect(rest.at(-1)).toMatchObject({ embedding: null, embedding_model: 'hash-512' })
  })

  test('semantic and hybrid search still answer, with finite scores, and find the documents that have words', async () => {
    const { u, long, a, b } = await userWithPunctuation()
    for (const mode of ['semantic', 'hybrid']) {
      const body = (await expectFinite(searchPath({ q: 'measles vaccination of children', mode, limit: 100 }), u)) as SearchBody
      expect(body.mode).toBe(mode)
      expect(
        body.results
          .slice(0, 2)
          .map((r) => r.document.id)
          .sort(),
      ).toEqual([a.id, b.id].sort())
      const keeper = (await expectFinite(searchPath({ q: 'lighthouse keeper storm', mode }), u)) as SearchBody
      expect(keeper.results[0]!.document.id).toBe(long.id)
    }
  })

  test('a query with no words ranks nothing semantically and answers 200 in every mode', async () => {
    const { u } = await userWithPunctuation()
    for (const q of ["!!! ':* ((((", '?!', '...']) {
      for (const mode of ['semantic', 'hybrid', 'keyword']) {
        const body = (await expectFinite(searchPath({ q, mode }), u)) as SearchBody
        expect(body.results.filter((r) => r.signals.semantic_rank !== null)).toEqual([])
      }
    }
  })

  test('link suggestions, link listings and the graph carry finite scores; the punctuation document is linked to nothing', async () => {
    const { u, punct, long, a, b, keeper } = await userWithPunctuation()
    // The keeper log's punctuation chunk takes part in its chunk-to-chunk comparison: the link holds the best real cosine.
    const fromLong = (await expectFinite(`/api/documents/${long.id}/links`, u)).data
    expect(fromLong.map((l: { document: { id: string } }) => l.document.id)).toEqual([keeper.id])
    expect(fromLong[0].score).toBeGreaterThan(0.9)
    const fromA = (await expectFinite(`/api/documents/${a.id}/links`, u)).data
    expect(fromA.map((l: { document: { id: string } }) => l.document.id)).toEqual([b.id])
    expect((await expectFinite(`/api/documents/${punct.id}/links`, u)).data).toEqual([])
    const graph = await expectFinite(`/api/graph?workspace_id=${await defaultWorkspaceId(t, u)}`, u)
    expect(graph.edges).toHaveLength(2)
    expect(await suggestLinks(t.deps, punct.id)).toBe(0)
  })
})

describe('zero vectors and NaN scores stored by earlier versions', () => {
  test('a stored zero vector is never ranked, in search or suggestions; a NaN link score reads as 0 and sorts last', async () => {
    const { u, punct, long, a, b } = await userWithPunctuation()
    // What earlier versions stored: the punctuation chunks' zero vectors, and NaN suggestions from them.
    const zero = `[${new Array(512).fill(0).join(',')}]`
    await t.deps.db.execute(
      sql`update chunks set embedding = ${zero}::vector where document_id in (${punct.id}, ${long.id}) and embedding is null`,
    )
    await t.deps.db.insert(links).values({
      id: t.deps.ids.next(),
      user_id: u.id,
      source_id: punct.id,
      target_id: a.id,
      score: Number.NaN,
      status: 'pending',
      origin: 'suggested',
      created_at: t.clock.now(),
    })

    for (const mode of ['semantic', 'hybrid']) {
      const body = (await expectFinite(searchPath({ q: 'measles vaccination of children', mode, limit: 100 }), u)) as SearchBody
      expect(
        body.results
          .slice(0, 2)
          .map((r) => r.document.id)
          .sort(),
      ).toEqual([a.id, b.id].sort())
      expect(body.results.map((r) => r.document.id)).not.toContain(punct.id)
    }
    const fromA = (await expectFinite(`/api/documents/${a.id}/links`, u)).data as { score: number; document: { id: string } }[]
    expect(fromA.map((l) => [l.document.id, l.score > 0])).toEqual([
      [b.id, true],
      [punct.id, false],
    ])
    const graph = await expectFinite(`/api/graph?workspace_id=${await defaultWorkspaceId(t, u)}`, u)
    expect(graph.edges.map((e: { score: number }) => e.score > 0)).toEqual([true, true, false])

    // Suggestions computed again from a stored zero vector link nothing (PostgreSQL's max() would pick NaN).
    await t.deps.db.delete(links).where(eq(links.source_id, punct.id))
    expect(await suggestLinks(t.deps, punct.id)).toBe(0)
    expect(await suggestLinks(t.deps, long.id)).toBe(1)
    const stored = await t.deps.db.select({ score: links.score }).from(links).where(eq(links.user_id, u.id))
    expect(stored.filter((l) => !Number.isFinite(l.score))).toEqual([])
  })
})

describe('POST /v1/embeddings', () => {
  test('an input with nothing to embed is a 400 naming it, never a zero vector', async () => {
    const u = await t.signUp()
    const one = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: '!!! ??? ...' } })
    expect(one).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('input has nothing to embed'), code: 'invalid_request' } },
    })
    const many = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: ['a lighthouse', '?!'] } })
    expect(many).toMatchObject({ status: 400, body: { error: { message: expect.stringContaining('input[1]'), code: 'invalid_request' } } })
    const fine = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input: ['a lighthouse'] } })
    expect(fine.status).toBe(200)
    expect(fine.body.data[0].embedding).toEqual(hashEmbed('a lighthouse', 512))
  })
})
