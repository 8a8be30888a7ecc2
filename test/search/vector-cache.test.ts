// The cached index of a user's chunk vectors is an accelerator only: on a corpus with every status, pins,
// ratings, tags, kinds, two workspaces, a zero vector, a chunk of another model and another user's documents, it
// ranks exactly as the SQL ranking does — same documents, same best chunks, same scores — under every filter (when
// documents happened among them), and
// never returns fewer than `limit` when that many match; link suggestions' neighbour query gives what the SQL gives;
// and it is never stale: each search catches up with every write to the user's documents or chunk vectors by a delta
// (or, when the logs no longer reach back to it, ranks in SQL while a full load runs).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { chunks, documents } from '../../db/schema'
import { embedQuery } from '../../src/embedding/embeddings'
import { drainJobs } from '../../src/jobs/worker'
import { neighboursInCache, neighboursInSql } from '../../src/retrieval/link-neighbours'
import { pruneChangeLogs } from '../../src/retrieval/change-logs'
import { semanticSearchSql } from '../../src/retrieval/semantic'
import { searchVectorIndex, type VectorIndex } from '../../src/retrieval/vector-cache'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { ingestStudies, seededText, sqlFilter, studyFilters } from './cache-corpus'

let t: TestApp
let u: TestUser
let other: string
let docs: Record<number, string> = {}
const text = seededText

beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', VECTOR_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' } })
  u = await t.signUp()
  other = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })).body.id
  // Every seventh document is long enough for several chunks: the best chunk per document is what ranks.
  docs = await ingestStudies(t, u, other, (i) => ({
    title: `Study ${i}`,
    body: i % 7 === 0 ? `${text(i, 200)}\n\n${text(i + 500, 200)}\n\n${text(i + 900, 200)}` : text(i, 20 + (i % 7) * 15),
  }))
  // Another user's documents, closer to every query than most of the caller's: they must never enter the copy.
  const stranger = await t.signUp()
  for (let i = 0; i < 30; i++) await t.json('POST', '/api/documents', { key: stranger.key, body: { title: 'Theirs', body: text(i, 30) } })
  await drainJobs(t.deps)
  // A zero vector stored by an earlier version, and a chunk embedded by another model: neither may ever be compared.
  await t.deps.db.execute(sql`update chunks set embedding = array_fill(0, array[512])::vector where document_id = ${docs[10]}`)
  await t.deps.db.update(chunks).set({ embedding_model: 'another-model' }).where(eq(chunks.document_id, docs[11]!))
}, 120_000)
afterAll(() => t.close())

const QUERIES = [
  'vaccine immune response',
  'tumor growth signal pathway kinase',
  'mouse',
  'patient trial dose risk',
  'gene expression receptor',
  'study',
]
const model = () => t.deps.embedder!.id
const vectorOf = async (q: string) => (await embedQuery(t.deps.embedder!, q))!
/** Documents with chunks in the copy, live in any of its segments. */
const held = (copy: VectorIndex) =>
  copy.segments.reduce(
    (n, { data: segment, dead }) =>
      n +
      Array.from({ length: segment.columns.count }).filter((_, d) => !dead?.[d] && segment.docStart[d] !== segment.docStart[d + 1]).length,
    0,
  )

/** The copy and the SQL ranking agree on every query × filter × limit; answers how many results were compared. */
async function expectExact(copy: VectorIndex, queries = QUERIES): Promise<number> {
  let compared = 0
  for (const q of queries) {
    const vector = await vectorOf(q)
    for (const f of studyFilters(other, docs)) {
      for (const limit of [1, 5, 50]) {
        const fromSql = await semanticSearchSql(t.deps.db, u.id, model(), vector, sqlFilter(u.id, f), limit)
        const fromMemory = searchVectorIndex(copy, vector, f, limit)!
        const where = JSON.stringify({ q, f, limit })
        expect({ where, hits: fromMemory.map((h) => [h.document_id, h.chunk_id]) }).toEqual({
          where,
          hits: fromSql.map((h) => [h.document_id, h.chunk_id]),
        })
        fromMemory.forEach((h, i) => {
          expect(h.similarity).toBeCloseTo(fromSql[i]!.similarity, 5) // pgvector sums in float4, the copy in float8
          expect(h.boost).toBeCloseTo(fromSql[i]!.boost, 9)
        })
        compared += fromSql.length
      }
    }
  }
  return compared
}

describe('the cached vector index', () => {
  test('ranks exactly as the SQL ranking: same documents, best chunks, order, similarities and boosts, under every filter', async () => {
    const copy = await t.deps.vectorCache.load(t.deps.db, u.id, model())
    expect(copy).not.toBeNull()
    // Only the caller's vectors of the loaded model, and no zero vector.
    // 60 documents less the zero vector's and the other model's; the archived one stays (filtered at query time).
    expect(held(copy!)).toBe(58)
    expect(await expectExact(copy!)).toBeGreaterThan(1000)
    // A zero query vector ranks nothing, as in SQL.
    expect(searchVectorIndex(copy!, new Array(copy!.dim).fill(0), {}, 10)).toEqual([])
  })

  test("link suggestions' neighbour query ranks in the copy exactly as over the whole workspace in SQL", async () => {
    const copy = await t.deps.vectorCache.load(t.deps.db, u.id, model())
    expect(copy).not.toBeNull()
    let compared = 0
    // Multi-chunk documents (0, 7, 14…), the other workspace's (0, 5, 10…), the zero vector's (10), the other model's (11).
    for (const i of [0, 1, 2, 5, 10, 11, 14, 21, 33, 42]) {
      const [doc] = await t.deps.db.select().from(documents).where(eq(documents.id, docs[i]!))
      for (const threshold of [-1, 0.3, 0.6]) {
        for (const limit of [1, 5, 100]) {
          const fromSql = await neighboursInSql(t.deps, doc!, model(), threshold, limit, null)
          const neighbours = await neighboursInCache(t.deps, doc!, model(), threshold, limit)
          expect(neighbours!.map((n) => n.document_id)).toEqual(fromSql.map((n) => n.document_id))
          neighbours!.forEach((n, k) => expect(n.score).toBeCloseTo(fromSql[k]!.score, 5))
          compared += fromSql.length
        }
      }
    }
    expect(compared).toBeGreaterThan(500)
  })

  test('never returns fewer than `limit` when that many documents match the filters', async () => {
    const copy = await t.deps.vectorCache.load(t.deps.db, u.id, model())
    const vector = await vectorOf('vaccine immune response')
    // Documents 0, 20 and 40 are the notes in the other workspace: all three, among the 57 ranked documents.
    const notes = searchVectorIndex(copy!, vector, { workspaceId: other, kind: 'note' }, 3)!
    expect(notes.map((h) => h.document_id).sort()).toEqual([docs[0], docs[20], docs[40]].sort() as string[])
    expect(searchVectorIndex(copy!, vector, { workspaceId: other, kind: 'document' }, 8)!.length).toBe(8)
  })

  test('catches up with every write by a delta, not a reload, and ranks exactly as SQL after each', async () => {
    const memory = t.deps.vectorCache
    const current = () => memory.current(t.deps.db, u.id, model())
    // This model's copy is never used for another one (which starts loading that model's copy instead).
    expect(await memory.current(t.deps.db, u.id, 'another-model')).toBeNull()
    const base = (await memory.load(t.deps.db, u.id, model()))!.segments[0]!.data
    const loads = memory.loads

    // A new document, once embedded: in the copy at the next search, found first for its own words.
    const added = await t.json('POST', '/api/documents', {
      key: u.key,
      body: { title: 'Quokka', body: 'quokka wallaby marsupial island census' },
    })
    await drainJobs(t.deps)
    let copy = (await current())!
    expect(held(copy)).toBe(59)
    expect(searchVectorIndex(copy, await vectorOf('quokka wallaby marsupial island census'), {}, 1)!.map((h) => h.document_id)).toEqual([
      added.body.id,
    ])
    await expectExact(copy, ['quokka wallaby marsupial island census', 'vaccine immune response'])

    // Archiving changes no vector, but the copy holds statuses: the archived one is no longer found.
    await t.json('POST', `/api/documents/${added.body.id}/archive`, { key: u.key })
    copy = (await current())!
    expect(
      searchVectorIndex(copy, await vectorOf('quokka wallaby marsupial island census'), {}, 1)!.map((h) => h.document_id),
    ).not.toContain(added.body.id)

    // When a document happened, moved (a message sent again with its time): the copy's time filter follows it.
    const moved = new Date(Date.UTC(2023, 4, 2)).toISOString()
    await t.deps.db.execute(sql`update documents set occurred_at = ${moved}::timestamptz where id = ${docs[15]}`)
    const refiled = (await current())!
    expect(refiled).not.toBe(copy)
    copy = refiled
    await expectExact(copy, ['vaccine immune response'])

    // A vector rewritten in place (a re-embedding): the copy holds the new one. Marking documents indexed changes nothing.
    await t.deps.db.update(documents).set({ index_status: 'indexed', updated_at: new Date() }).where(eq(documents.user_id, u.id))
    expect(await current()).toBe(copy)
    await t.deps.db.execute(sql`update chunks set embedding = embedding where document_id = ${docs[1]}`) // same vector: nothing changed
    expect(await current()).toBe(copy)
    await t.deps.db.execute(
      sql`update chunks set embedding = (select embedding from chunks where document_id = ${docs[2]} limit 1) where document_id = ${docs[1]}`,
    )
    copy = (await current())!
    await expectExact(copy, ['vaccine immune response', 'tumor growth signal pathway kinase'])

    // Deleting a document deletes its chunks: gone from the copy. Editing one leaves it unembedded until the worker runs.
    await t.json('DELETE', `/api/documents/${docs[1]}`, { key: u.key })
    await t.json('PATCH', `/api/documents/${docs[4]}`, { key: u.key, body: { body: 'platypus echidna monotreme burrow' } })
    copy = (await current())!
    expect(held(copy)).toBe(57)
    await expectExact(copy)
    await drainJobs(t.deps)
    copy = (await current())!
    expect(held(copy)).toBe(58)
    await expectExact(copy)

    // All of it by deltas over the base loaded first.
    expect(memory.loads).toBe(loads)
    expect(copy.segments[0]!.data).toBe(base)
    expect(copy.segments.length).toBeGreaterThan(1)
  })

  test('joins its deltas as they pile up, and reloads in full when the logs were pruned past it — exact throughout', async () => {
    const memory = t.deps.vectorCache
    const current = () => memory.current(t.deps.db, u.id, model())
    await memory.load(t.deps.db, u.id, model())
    // Twelve catch-ups of one new document each: never more than a base and eight deltas.
    for (let i = 0; i < 12; i++) {
      await t.json('POST', '/api/documents', { key: u.key, body: { title: `Later ${i}`, body: text(3000 + i, 40) } })
      await drainJobs(t.deps)
      expect((await current())!.segments.length).toBeLessThanOrEqual(9)
    }
    await expectExact((await current())!)

    // Logs pruned past the copy: it cannot catch up, so search ranks in SQL while a full load runs; then exact again.
    await memory.load(t.deps.db, u.id, model()) // (the deltas above outgrew their share: a reload may be running)
    const loads = memory.loads
    await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Pruned', body: text(4000, 40) } })
    expect((await t.json('PATCH', `/api/documents/${docs[5]}`, { key: u.key, body: { pinned: true } })).status).toBe(200)
    await pruneChangeLogs(t.deps.db, 0)
    expect(await current()).toBeNull()
    const reloaded = await memory.load(t.deps.db, u.id, model())
    expect(memory.loads).toBe(loads + 1)
    expect(await current()).toBe(reloaded)
    await expectExact(reloaded!)
    // And it catches up by deltas again from there.
    await drainJobs(t.deps)
    await expectExact((await current())!)
    expect(memory.loads).toBe(loads + 1)
  }, 60_000)
})
