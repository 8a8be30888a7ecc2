// The in-memory copy of a user's chunk vectors is an accelerator only: on a corpus with every status, pins,
// ratings, tags, kinds, two workspaces, a zero vector, a chunk of another model and another user's documents, it
// ranks exactly as the SQL ranking does — same documents, same best chunks, same scores — under every filter, and
// never returns fewer than `limit` when that many match; link suggestions' neighbour query gives what the SQL gives;
// any write to the user's documents or chunk vectors makes the copy stale at once, so search never answers from an
// outdated copy.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { chunks, documents } from '../../db/schema'
import { queryRows } from '../../db/client'
import { embedQuery } from '../../src/ai/embeddings'
import { drainJobs } from '../../src/jobs/worker'
import { neighboursInMemory, neighboursInSql } from '../../src/retrieval/link-neighbours'
import { semanticSearch } from '../../src/retrieval/semantic'
import { searchUserVectors } from '../../src/retrieval/vector-memory-rank'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { ingestStudies, seededText, sqlFilter, studyFilters } from './copy-corpus'
import { search } from './search.fixtures'

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
})
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

describe('the in-memory copy of the chunk vectors', () => {
  test('ranks exactly as the SQL ranking: same documents, best chunks, order, similarities and boosts, under every filter', async () => {
    const copy = await t.deps.vectorMemory.load(t.deps.db, u.id, model())
    expect(copy).not.toBeNull()
    // Only the caller's vectors of the loaded model, and no zero vector.
    // 60 documents less the zero vector's and the other model's; the archived one stays (filtered at query time).
    expect(new Set(copy!.chunkDoc).size).toBe(58)
    let compared = 0
    for (const q of QUERIES) {
      const vector = await vectorOf(q)
      for (const f of studyFilters(other, docs)) {
        for (const limit of [1, 5, 50]) {
          const fromSql = await semanticSearch(t.deps.db, u.id, model(), vector, sqlFilter(u.id, f), limit)
          const fromMemory = searchUserVectors(copy!, vector, f, limit)!
          expect(fromMemory.map((h) => [h.document_id, h.chunk_id])).toEqual(fromSql.map((h) => [h.document_id, h.chunk_id]))
          fromMemory.forEach((h, i) => {
            expect(h.similarity).toBeCloseTo(fromSql[i]!.similarity, 5) // pgvector sums in float4, the copy in float8
            expect(h.boost).toBeCloseTo(fromSql[i]!.boost, 9)
          })
          compared += fromSql.length
        }
      }
    }
    expect(compared).toBeGreaterThan(1000)
    // A zero query vector ranks nothing, as in SQL.
    expect(searchUserVectors(copy!, new Array(copy!.dim).fill(0), {}, 10)).toEqual([])
  })

  test("link suggestions' neighbour query ranks in the copy exactly as over the whole workspace in SQL", async () => {
    const copy = await t.deps.vectorMemory.load(t.deps.db, u.id, model())
    expect(copy).not.toBeNull()
    let compared = 0
    // Multi-chunk documents (0, 7, 14…), the other workspace's (0, 5, 10…), the zero vector's (10), the other model's (11).
    for (const i of [0, 1, 2, 5, 10, 11, 14, 21, 33, 42]) {
      const [doc] = await t.deps.db.select().from(documents).where(eq(documents.id, docs[i]!))
      for (const threshold of [-1, 0.3, 0.6]) {
        for (const limit of [1, 5, 100]) {
          const fromSql = await neighboursInSql(t.deps, doc!, model(), threshold, limit, null)
          const neighbours = await neighboursInMemory(t.deps, doc!, model(), threshold, limit)
          expect(neighbours!.map((n) => n.document_id)).toEqual(fromSql.map((n) => n.document_id))
          neighbours!.forEach((n, k) => expect(n.score).toBeCloseTo(fromSql[k]!.score, 5))
          compared += fromSql.length
        }
      }
    }
    expect(compared).toBeGreaterThan(500)
  })

  test('never returns fewer than `limit` when that many documents match the filters', async () => {
    const copy = await t.deps.vectorMemory.load(t.deps.db, u.id, model())
    const vector = await vectorOf('vaccine immune response')
    // Documents 0, 20 and 40 are the notes in the other workspace: all three, among the 57 ranked documents.
    const notes = searchUserVectors(copy!, vector, { workspaceId: other, kind: 'note' }, 3)!
    expect(notes.map((h) => h.document_id).sort()).toEqual([docs[0], docs[20], docs[40]].sort() as string[])
    expect(searchUserVectors(copy!, vector, { workspaceId: other, kind: 'document' }, 8)!.length).toBe(8)
  })

  test('is used only while current: any write to documents or chunk vectors makes search rank in SQL until a fresh copy loads', async () => {
    const memory = t.deps.vectorMemory
    const isCurrent = async () => (await memory.current(t.deps.db, u.id, model())) !== null
    await memory.load(t.deps.db, u.id, model())
    expect(await isCurrent()).toBe(true)
    // This model's copy is never used for another one.
    expect(await memory.current(t.deps.db, u.id, 'another-model')).toBeNull()

    // A new document, once embedded: found at once by semantic search, though the copy predates it.
    await memory.load(t.deps.db, u.id, model())
    const added = await t.json('POST', '/api/documents', {
      key: u.key,
      body: { title: 'Quokka', body: 'quokka wallaby marsupial island census' },
    })
    await drainJobs(t.deps)
    expect(await isCurrent()).toBe(false)
    const found = await search(t, u, { q: 'quokka wallaby marsupial island census', mode: 'semantic', limit: 1 })
    expect(found.results.map((r) => r.document.id)).toEqual([added.body.id])

    // Archiving changes no vector, but the copy holds statuses: stale too, and the archived one is gone.
    await memory.load(t.deps.db, u.id, model())
    await t.json('POST', `/api/documents/${added.body.id}/archive`, { key: u.key })
    expect(await isCurrent()).toBe(false)
    expect(
      (await search(t, u, { q: 'quokka wallaby marsupial island census', mode: 'semantic', limit: 1 })).results.map((r) => r.document.id),
    ).not.toContain(added.body.id)

    // A vector rewritten in place (a re-embedding) makes it stale; marking documents indexed does not.
    await memory.load(t.deps.db, u.id, model())
    await t.deps.db.update(documents).set({ index_status: 'indexed', updated_at: new Date() }).where(eq(documents.user_id, u.id))
    expect(await isCurrent()).toBe(true)
    await t.deps.db.execute(sql`update chunks set embedding = embedding where document_id = ${docs[1]}`) // same vector: nothing changed
    expect(await isCurrent()).toBe(true)
    await t.deps.db.execute(
      sql`update chunks set embedding = (select embedding from chunks where document_id = ${docs[2]} limit 1) where document_id = ${docs[1]}`,
    )
    expect(await isCurrent()).toBe(false)
    // Deleting a document deletes its chunks: stale.
    await memory.load(t.deps.db, u.id, model())
    await t.json('DELETE', `/api/documents/${docs[1]}`, { key: u.key })
    expect(await isCurrent()).toBe(false)
    const [{ n }] = (await queryRows<{ n: number }>(
      t.deps.db,
      sql`select count(*)::int as n from chunks where document_id = ${docs[1]}`,
    )) as [{ n: number }]
    expect(n).toBe(0)
  })
})
