// Search, semantic mode with the hash embedder: a document is found by meaning only once its embed job ran
// (index_status pending → indexed), a query of stop words still finds documents, only active documents and
// only the filtered ones are ranked, and an edit drops the old vectors at once. Then exactness under tenant
// filters (the caller's few chunks among many others'), and vectors of two models never compared.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { and, count, eq, inArray, isNotNull, sql } from 'drizzle-orm'
import { chunks, documents } from '../../db/schema'
import { chunkText } from '../../src/retrieval/chunk-text'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { loadEmbedder } from '../../src/embedding/embeddings'
import type { Deps } from '../../src/deps'
import { enqueueJob } from '../../src/queue/job-kinds'
import { drainJobs, runNextJob } from '../../src/jobs/worker'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { createWorkspace, defaultWorkspaceId } from '../documents/documents.fixtures'
import { chunksOf, jobsFor, realEmbed, withDoEmbed } from '../jobs/jobs.fixtures'
import { approve, learning, saveDrafts } from '../memories/memories.fixtures'
import { act, add, search, searchRaw, type SearchParams, type SearchResult } from './search.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
})
afterAll(() => t.close())

const DIMS = 512
const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0)

/** The similarity semantic search should give each document: its best chunk's cosine with the query. */
async function expectedSimilarity(deps: Deps, documentIds: string[], query: string, dims = DIMS): Promise<Map<string, number>> {
  const q = hashEmbed(query, dims)
  const rows = await deps.db
    .select({ document_id: chunks.document_id, content: chunkText })
    .from(chunks)
    .innerJoin(documents, eq(documents.id, chunks.document_id))
    .where(inArray(chunks.document_id, documentIds))
  const best = new Map<string, number>()
  for (const r of rows) best.set(r.document_id, Math.max(best.get(r.document_id) ?? -Infinity, cosine(hashEmbed(r.content, dims), q)))
  return best
}

const semantic = (app: TestApp, u: TestUser, params: SearchParams) => search(app, u, { mode: 'semantic', limit: 100, ...params })
const ids = (results: SearchResult[]) => results.map((r) => r.document.id)
const idSet = async (u: TestUser, params: SearchParams) => new Set(ids((await semantic(t, u, params)).results))

async function indexStatusOf(app: TestApp, u: TestUser, id: string): Promise<string> {
  const res = await app.json('GET', `/api/documents/${id}`, { key: u.key })
  expect(res.status).toBe(200)
  return res.body.index_status
}

describe('semantic mode follows the embed job', () => {
  test('before the job a new document is not found semantically and is pending; after it, it is found with semantic signals only', async () => {
    const u = await t.signUp()
    const other = await add(t, u, { title: 'Bread', body: 'Sourdough bread rises slowly overnight in a cool kitchen.' })
    await drainJobs(t.deps)

    const q = 'spring tides and neap tides follow the phases of the moon'
    const doc = await add(t, u, {
      title: 'Tide tables',
      body: 'Spring tides and neap tides follow the phases of the moon over the harbour.',
    })
    expect(doc.index_status).toBe('pending')
    expect(await indexStatusOf(t, u, doc.id)).toBe('pending')
    const before = await semantic(t, u, { q })
    expect(before.mode).toBe('semantic')
    // Only the embedded document is ranked; the new one has no vector yet, and the notice says so.
    expect(ids(before.results)).toEqual([other.id])
    expect(before.notice).toStartWith('1 of the documents searched is not embedded')

    await drainJobs(t.deps)
    expect(await indexStatusOf(t, u, doc.id)).toBe('indexed')
    const after = await semantic(t, u, { q })
    expect(after.mode).toBe('semantic')
    expect(after.notice).toBeUndefined()
    expect(ids(after.results)).toEqual([doc.id, other.id])
    const expected = await expectedSimilarity(t.deps, [doc.id, other.id], q)
    const [top, second] = after.results as [SearchResult, SearchResult]
    // Ranked by meaning only, and matched_terms still says which words each holds: the tide table all six
    // (spring, tide, neap, follow, phase, moon), the bread none — so `matched` is "any".
    expect(top.signals).toEqual({
      keyword_rank: null,
      keyword_score: null,
      semantic_rank: 1,
      semantic_score: expect.any(Number),
      matched_terms: 6,
      boost: 1,
    })
    expect(second.signals).toMatchObject({ keyword_rank: null, keyword_score: null, semantic_rank: 2, matched_terms: 0 })
    expect(after.matched).toBe('any')
    expect(top.signals.semantic_score!).toBeCloseTo(expected.get(doc.id)!, 5)
    expect(second.signals.semantic_score!).toBeCloseTo(expected.get(other.id)!, 5)
    expect(top.score).toBeCloseTo(top.signals.semantic_score! * top.signals.boost, 9)
    // The snippet is the passage of the matched chunk.
    expect(top.snippet).toContain('Spring tides and neap tides')

    // Keyword mode on the same query: keyword signals, no semantic ones.
    const kw = await search(t, u, { q, mode: 'keyword' })
    expect(kw.mode).toBe('keyword')
    expect(ids(kw.results)).toEqual([doc.id])
    expect(kw.results[0]!.signals).toMatchObject({ keyword_rank: 1, semantic_rank: null, semantic_score: null })
  })

  test('a query of stop words only ("the of and") still finds documents, in semantic and hybrid mode', async () => {
    const u = await t.signUp()
    const wordy = await add(t, u, { title: 'Keeper', body: 'The keeper of the light and the keeper of the lamp and the bell.' })
    const terse = await add(t, u, { title: 'Physics', body: 'Quantum chromodynamics lattice simulations, GPU clusters.' })
    await drainJobs(t.deps)
    const q = 'the of and'
    const expected = await expectedSimilarity(t.deps, [wordy.id, terse.id], q)
    expect(expected.get(wordy.id)!).toBeGreaterThan(expected.get(terse.id)! + 0.1)

    // Keyword search has no word to look for here…
    const kw = await search(t, u, { q, mode: 'keyword' })
    expect(kw.results).toEqual([])
    // …semantic search ranks by meaning all the same: not a silent nothing.
    const sem = await semantic(t, u, { q })
    expect(sem.mode).toBe('semantic')
    expect(ids(sem.results)).toEqual([wordy.id, terse.id])
    expect(sem.results[0]!.signals.semantic_score!).toBeCloseTo(expected.get(wordy.id)!, 5)
    const hybrid = await search(t, u, { q, mode: 'hybrid' })
    expect(hybrid.mode).toBe('hybrid')
    // Each says the keyword side had no word to look for.
    for (const res of [kw, sem, hybrid]) expect(res.notice).toContain('only stop words')
    expect(kw.notice).toContain('nothing to match')
    expect(hybrid.notice).toContain('ranked by meaning alone')
    for (const res of [kw, sem, hybrid]) expect(res.matched).toBe('none')
    expect(ids(hybrid.results)[0]).toBe(wordy.id)
    expect(hybrid.results[0]!.signals).toMatchObject({ keyword_rank: null, semantic_rank: 1 })
  })

  test('archived and draft documents never appear, however close their vectors; restore and approval bring them back', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    const q = 'pelicans scoop fish with their large bills'
    const active = await add(t, u, { title: 'Gulls', body: 'Gulls follow the fishing boats back to port.' })
    const archived = await add(t, u, { title: 'Pelicans', body: 'Pelicans scoop fish with their large bills.' })
    const [draft] = await saveDrafts(t, u, ws, [
      learning({ title: 'Pelican fact', body: 'Pelicans scoop fish with their large bills, said the agent.' }),
    ])
    await act(t, u, 'POST', `/api/documents/${archived.id}/archive`, 200)
    await drainJobs(t.deps)
    // Both have vectors of the current model: only their status keeps them out.
    for (const id of [archived.id, draft.id]) {
      const rows = await chunksOf(t.deps, id)
      expect(rows.length).toBeGreaterThan(0)
      for (const c of rows) expect(c.embedding_model).toBe(`hash-${DIMS}`)
    }

    for (const mode of ['semantic', 'hybrid'] as const) {
      const res = await search(t, u, { q, mode, limit: 100 })
      expect({ mode, ids: ids(res.results) }).toEqual({ mode, ids: [active.id] })
    }

    await act(t, u, 'POST', `/api/documents/${archived.id}/restore`, 200)
    await approve(t, u, draft.id)
    const res = await semantic(t, u, { q })
    expect(new Set(ids(res.results))).toEqual(new Set([active.id, archived.id, draft.id]))
    expect(ids(res.results)[0]).toBe(archived.id)
  })

  test('workspace_id, kind, tag and source filters apply inside the semantic ranking, before the limit', async () => {
    const u = await t.signUp()
    const home = await defaultWorkspaceId(t, u)
    const far = await createWorkspace(t, u, 'Far')
    const q = 'the lighthouse keeper logs the weather'
    const plain = await add(t, u, { title: 'A', body: 'The lighthouse keeper logs the weather every hour.', tags: ['coast'] })
    const note = await add(t, u, { title: 'B', body: 'The lighthouse keeper logs the weather at dawn.', kind: 'note', tags: ['inland'] })
    const elsewhere = await add(t, u, {
      title: 'C',
      body: 'Sheep graze on the hills behind the old mill.',
      workspace_id: far,
      tags: ['coast'],
    })
    const viaMcp = await add(t, u, { title: 'D', body: 'An agent noted the lighthouse keeper and the weather.', source: 'mcp' })
    const fact = await add(t, u, { title: 'E', body: 'The lighthouse was built in 1850 of granite.', kind: 'fact' })
    await drainJobs(t.deps)

    const all = new Set([plain.id, note.id, elsewhere.id, viaMcp.id, fact.id])
    expect(await idSet(u, { q })).toEqual(all)
    expect(await idSet(u, { q, workspace_id: far })).toEqual(new Set([elsewhere.id]))
    expect(await idSet(u, { q, workspace_id: home })).toEqual(new Set([plain.id, note.id, viaMcp.id, fact.id]))
    expect(await idSet(u, { q, kind: 'note' })).toEqual(new Set([note.id]))
    expect(await idSet(u, { q, kind: 'fact' })).toEqual(new Set([fact.id]))
    expect(await idSet(u, { q, kind: 'decision' })).toEqual(new Set())
    expect(await idSet(u, { q, tag: 'coast' })).toEqual(new Set([plain.id, elsewhere.id]))
    expect(await idSet(u, { q, tag: 'coas' })).toEqual(new Set())
    expect(await idSet(u, { q, source: 'mcp' })).toEqual(new Set([viaMcp.id]))
    expect(await idSet(u, { q, tag: 'coast', workspace_id: home })).toEqual(new Set([plain.id]))

    // The weakest match overall is the best one inside the filter: limit 1 returns it, not nothing.
    const expected = await expectedSimilarity(t.deps, [...all], q)
    expect(Math.min(...expected.values())).toBe(expected.get(elsewhere.id)!)
    expect(ids((await semantic(t, u, { q, limit: 1, workspace_id: far })).results)).toEqual([elsewhere.id])
    expect(ids((await semantic(t, u, { q, limit: 1, tag: 'coast', kind: 'document', workspace_id: far })).results)).toEqual([elsewhere.id])
    // An unknown workspace is 404 in semantic mode too.
    const unknown = await searchRaw(t, u, { q, mode: 'semantic', workspace_id: '01900000-0000-7000-8000-000000000000' })
    expect(unknown.status).toBe(404)
  })

  test('after a PATCH the old vectors are gone at once: not matched semantically until the new job ran, then matched by the new text', async () => {
    const u = await t.signUp()
    const oldQ = 'copper kettles whistle on the stove'
    const newQ = 'glacier ice cores record ancient air'
    const doc = await add(t, u, { title: 'Kitchen', body: 'Copper kettles whistle on the stove every morning.' })
    const filler = await add(t, u, { title: 'Garden', body: 'Tomatoes ripen late in a cold summer.' })
    await drainJobs(t.deps)
    expect(ids((await semantic(t, u, { q: oldQ })).results)[0]).toBe(doc.id)

    t.clock.advance(1_000)
    await act(t, u, 'PATCH', `/api/documents/${doc.id}`, 200, { body: 'Glacier ice cores record ancient air in tiny bubbles.' })
    expect(await indexStatusOf(t, u, doc.id)).toBe('pending')
    // Its chunks are the new ones, none embedded yet: nothing stale is left to match.
    const between = await chunksOf(t.deps, doc.id)
    expect(between.map((c) => c.content).join(' ')).toContain('Glacier')
    for (const c of between) expect(c).toMatchObject({ embedding: null, embedding_model: null })
    expect(ids((await semantic(t, u, { q: oldQ })).results)).toEqual([filler.id])
    expect(ids((await semantic(t, u, { q: newQ })).results)).toEqual([filler.id])
    // Keyword search sees the edit at once, so hybrid finds it by keyword meanwhile.
    const hybrid = await search(t, u, { q: 'glacier', mode: 'hybrid' })
    expect(hybrid.results[0]!.document.id).toBe(doc.id)
    expect(hybrid.results[0]!.signals).toMatchObject({ keyword_rank: 1, semantic_rank: null, semantic_score: null })

    await drainJobs(t.deps)
    expect(await indexStatusOf(t, u, doc.id)).toBe('indexed')
    const found = await semantic(t, u, { q: newQ })
    expect(ids(found.results)).toEqual([doc.id, filler.id])
    const expected = await expectedSimilarity(t.deps, [doc.id], newQ)
    expect(found.results[0]!.signals.semantic_score!).toBeCloseTo(expected.get(doc.id)!, 5)
    expect(found.results[0]!.snippet).toContain('Glacier ice cores')
    // The old text is no longer what the document is matched by.
    const old = await semantic(t, u, { q: oldQ })
    const oldHit = old.results.find((r) => r.document.id === doc.id)!
    expect(oldHit.signals.semantic_score!).toBeCloseTo((await expectedSimilarity(t.deps, [doc.id], oldQ)).get(doc.id)!, 5)
    expect(oldHit.signals.semantic_score!).toBeLessThan(0.5)
  })

  test('a document rated while its embed job is running still ends indexed (no edit of content, no new job)', async () => {
    const u = await t.signUp()
    const doc = await add(t, u, { title: 'Owls', body: 'Barn owls hunt voles over the meadow at dusk.' })
    const original = t.deps.embedder!
    let rated = false
    // The job's embedding call waits for a rating (which changes updated_at but not the content) to commit.
    const intercepting = withDoEmbed(original, async (values) => {
      if (!rated) {
        rated = true
        t.clock.advance(1_000)
        await act(t, u, 'POST', `/api/documents/${doc.id}/rate`, 200, { rating: 1 })
      }
      return realEmbed(original.model, values)
    })
    t.deps.embedder = intercepting.embedder
    try {
      await drainJobs(t.deps)
    } finally {
      t.deps.embedder = original
    }
    expect(rated).toBe(true)
    // The vectors were written and are current: the document is found semantically…
    expect(ids((await semantic(t, u, { q: 'barn owls hunt voles' })).results)).toEqual([doc.id])
    // …so it must not stay "pending" forever: no other embed job is left to mark it.
    await drainJobs(t.deps)
    expect((await jobsFor(t.deps, doc.id)).filter((j) => j.kind === 'embed-document').map((j) => j.status)).toEqual(['succeeded'])
    expect(await indexStatusOf(t, u, doc.id)).toBe('indexed')
  })
})

describe('exact top-k under tenant filters', () => {
  test("a user with ~1% of the embedded chunks gets exactly their own top 10 by cosine, never another tenant's document", async () => {
    const app = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
    try {
      const q = 'the lighthouse keeper logs the storm at night'
      const a = await app.signUp()
      // Other tenants: 1,200 short documents that are near-copies of the query, so any ranking that took a
      // global top-k and filtered it afterwards would return only theirs (and starve A's results).
      // Spread over 20 users to keep the jobs' per-user work small (suggest-links compares a document with
      // every chunk of its user: one user with 1,200 documents made drainJobs take minutes).
      const others = await Promise.all(Array.from({ length: 20 }, () => app.signUp()))
      const words = ['lighthouse', 'keeper', 'logs', 'storm', 'night', 'harbour', 'ferry', 'tide', 'gull', 'rope', 'lamp', 'fog']
      // A: 12 documents sharing different parts of the query; two are long (several chunks: best chunk counts).
      const aBodies = Array.from({ length: 12 }, (_, i) => {
        const picked = words.filter((_, j) => (i * 7 + j * 3) % 5 < 2 + (i % 3))
        const sentence = `Entry ${i}: the ${picked.join(' and the ')} at sea.`
        return i % 6 === 5
          ? `${'The ferry crossed the bay in fog and rain, with the rope coiled on deck. '.repeat(30)}\n\n${sentence}`
          : sentence
      })
      const tasks: { user: TestUser; body: string; mine: boolean }[] = [
        ...aBodies.map((body) => ({ user: a, body, mine: true })),
        ...others.flatMap((user, k) =>
          Array.from({ length: 60 }, (_, i) => ({
            user,
            body: `The lighthouse keeper logs the storm at night, entry ${i} of tenant ${k}.`,
            mine: false,
          })),
        ),
      ]
      const mine: string[] = []
      const theirs = new Set<string>()
      let next = 0
      const worker = async () => {
        while (next < tasks.length) {
          const task = tasks[next++]!
          const res = await app.json('POST', '/api/documents', { key: task.user.key, body: { title: 'Log', body: task.body } })
          expect(res.status).toBe(201)
          if (task.mine) mine.push(res.body.id)
          else theirs.add(res.body.id)
        }
      }
      await Promise.all(Array.from({ length: 4 }, worker))
      expect(mine).toHaveLength(12)
      expect(theirs.size).toBe(1200)
      // Only the embedding jobs matter here; link suggestions (queued after each) would only add minutes.
      await drainJobs(app.deps, undefined, ['embed-document'])

      // Every chunk went through the embed job; A holds ~1% of them.
      const [total] = await app.deps.db
        .select({ n: count() })
        .from(chunks)
        .where(eq(chunks.embedding_model, `hash-${DIMS}`))
      const [ofA] = await app.deps.db
        .select({ n: count() })
        .from(chunks)
        .where(and(eq(chunks.user_id, a.id), isNotNull(chunks.embedding)))
      const [unembedded] = await app.deps.db.select({ n: count() }).from(chunks).where(sql`${chunks.embedding} is null`)
      expect(unembedded!.n).toBe(0)
      expect(ofA!.n).toBeGreaterThan(12)
      expect(ofA!.n / total!.n).toBeLessThan(0.02)

      const expected = await expectedSimilarity(app.deps, mine, q)
      const order = [...expected.entries()].sort((x, y) => y[1] - x[1])
      // The fixture has no near-ties, so float4 storage cannot reorder the expected top 10.
      for (let i = 0; i < 10; i++) expect(order[i]![1] - order[i + 1]![1]).toBeGreaterThan(1e-4)

      const res = await search(app, a, { q, mode: 'semantic', limit: 10 })
      expect(ids(res.results)).toEqual(order.slice(0, 10).map(([id]) => id))
      res.results.forEach((r, i) => {
        expect(r.signals.semantic_rank).toBe(i + 1)
        expect(r.signals.semantic_score!).toBeCloseTo(order[i]![1], 5)
      })
      // No other tenant's document, in any mode.
      for (const mode of ['semantic', 'hybrid', 'keyword'] as const) {
        const got = await search(app, a, { q, mode, limit: 100 })
        expect(got.results.length).toBeGreaterThan(0)
        expect(got.results.filter((r) => theirs.has(r.document.id) || !mine.includes(r.document.id))).toEqual([])
      }
      // And each other tenant sees only their own 60.
      const theirRes = await search(app, others[3]!, { q, mode: 'semantic', limit: 100 })
      expect(theirRes.results).toHaveLength(60)
      expect(theirRes.results.filter((r) => !theirs.has(r.document.id))).toEqual([])
    } finally {
      await app.close()
    }
  }, 120_000)
})

describe('vectors never mix models', () => {
  test('vectors of hash-64 are invisible to a hash-128 app on the same database (no error, keyword still works) until re-embedded', async () => {
    const app64 = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '64' } })
    try {
      const u = await app64.signUp()
      const q = 'the orchard apples ripen in october'
      const apples = await add(app64, u, { title: 'Orchard', body: 'The orchard apples ripen in October, before the frost.' })
      const pears = await add(app64, u, { title: 'Pears', body: 'Pears from the orchard keep for weeks in a cool cellar.' })
      await drainJobs(app64.deps)
      for (const id of [apples.id, pears.id])
        for (const c of await chunksOf(app64.deps, id))
          expect({ model: c.embedding_model, dims: c.embedding?.length }).toEqual({ model: 'hash-64', dims: 64 })
      expect(ids((await semantic(app64, u, { q })).results)).toEqual([apples.id, pears.id])

      // A second app over the same database, configured with 128 dimensions (another model id).
      const config128 = { ...app64.config, embeddings: { ...app64.config.embeddings, dimensions: 128 } }
      const { embedder, status } = await loadEmbedder(config128, app64.deps.log)
      expect(embedder?.id).toBe('hash-128')
      const app128 = await createTestApp({ deps: { ...app64.deps, config: config128, embedder, embeddingStatus: status } })
      // (not closed: it shares app64's database)
      const health = await app128.json('GET', '/')
      expect(health.body.embeddings).toMatchObject({
        provider: 'hash',
        model: 'hash-128',
        available: true,
        configured: { provider: 'hash', model: 'hash' },
      })

      const sem = await searchRaw(app128, u, { q, mode: 'semantic' })
      expect(sem.status).toBe(200)
      expect(sem.body).toMatchObject({ mode: 'semantic', results: [] })
      const kw = await search(app128, u, { q: 'orchard apples', mode: 'keyword' })
      expect(ids(kw.results)[0]).toBe(apples.id)
      const hybrid = await search(app128, u, { q: 'orchard apples', mode: 'hybrid' })
      expect(hybrid.mode).toBe('hybrid')
      expect(new Set(ids(hybrid.results))).toEqual(new Set([apples.id, pears.id]))
      for (const r of hybrid.results) expect(r.signals).toMatchObject({ semantic_rank: null, semantic_score: null })

      // Re-embedding (what `bun run reindex` does): one document first, then the other.
      await enqueueJob(app128.deps.db, app128.deps, 'embed-document', { document_id: pears.id }, u.id)
      await drainJobs(app128.deps)
      for (const c of await chunksOf(app128.deps, pears.id))
        expect({ model: c.embedding_model, dims: c.embedding?.length }).toEqual({ model: 'hash-128', dims: 128 })
      expect(ids((await semantic(app128, u, { q })).results)).toEqual([pears.id])
      expect(ids((await semantic(app64, u, { q })).results)).toEqual([apples.id])

      await enqueueJob(app128.deps.db, app128.deps, 'embed-document', { document_id: apples.id }, u.id)
      await drainJobs(app128.deps)
      const after = await semantic(app128, u, { q })
      expect(ids(after.results)).toEqual([apples.id, pears.id])
      const expected = await expectedSimilarity(app128.deps, [apples.id, pears.id], q, 128)
      expect(after.results[0]!.signals.semantic_score!).toBeCloseTo(expected.get(apples.id)!, 5)
      expect(after.results[1]!.signals.semantic_score!).toBeCloseTo(expected.get(pears.id)!, 5)
      // And now the 64-dimension app has nothing of its own model left to compare.
      expect((await semantic(app64, u, { q })).results).toEqual([])
      expect(await runNextJob(app128.deps, 'idle')).toBe(false)
    } finally {
      await app64.close()
    }
  })
})
