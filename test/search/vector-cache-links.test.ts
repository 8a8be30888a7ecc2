// Link suggestions keep ranking in memory while an embedding backlog moves the user's vectors with every document:
// each job brings the copy up to date by a delta — what the worker embedded, archived, deleted or edited since —
// so the neighbours are exactly the SQL ranking over the whole workspace.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { documents, links } from '../../db/schema'
import { drainJobs } from '../../src/jobs/worker'
import { neighboursInCache, neighboursInSql } from '../../src/retrieval/link-neighbours'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let u: TestUser
const WORDS = ['harbour', 'ferry', 'tide', 'gull', 'rope', 'lamp', 'fog', 'storm', 'keeper', 'night', 'pier', 'sail', 'anchor', 'wave']
/** `n` words from a seeded generator (texts of close seeds are unrelated; a shared seed makes a near-copy). */
function text(seed: number, n = 14 + (seed % 9)): string {
  let x = seed + 1
  return Array.from({ length: n }, () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return WORDS[x % WORDS.length]
  }).join(' ')
}

async function ingest(body: string): Promise<string> {
  const res = await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Log', body } })
  expect(res.status).toBe(201)
  return res.body.id
}
const docOf = async (id: string) => (await t.deps.db.select().from(documents).where(eq(documents.id, id)))[0]!
const model = () => t.deps.embedder!.id

beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash', VECTOR_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' } })
  u = await t.signUp()
})
afterAll(() => t.close())

describe('link suggestions over a cached index that a backlog keeps moving', () => {
  test('rank what was embedded since the index loaded, leave out what was archived, deleted or edited since, exactly as SQL', async () => {
    const before: string[] = []
    for (let i = 0; i < 24; i++) before.push(await ingest(`${text(i)} entry${i}`))
    await drainJobs(t.deps)
    const loaded = await t.deps.vectorCache.load(t.deps.db, u.id, model())
    expect(loaded!.segments[0]!.data.columns.count).toBe(24)
    const catchUps = t.deps.vectorCache.catchUps

    // The backlog: new documents (near-copies of old ones and of each other) embedded after the load…
    const after: string[] = []
    for (let i = 0; i < 16; i++) after.push(await ingest(`${text(i % 8)} ${text(100 + i, 3)} later${i}`))
    // …and old ones archived, deleted, edited and left pending, or edited and embedded again.
    await t.json('POST', `/api/documents/${before[0]}/archive`, { key: u.key })
    await t.request('DELETE', `/api/documents/${before[1]}`, { key: u.key })
    await t.json('PATCH', `/api/documents/${before[2]}`, { key: u.key, body: { body: text(50) } })
    await drainJobs(t.deps, undefined, ['embed-document'])
    await t.json('PATCH', `/api/documents/${before[3]}`, { key: u.key, body: { body: text(60) } })

    let compared = 0
    for (const id of [...before.slice(2), ...after]) {
      const doc = await docOf(id)
      for (const threshold of [-1, 0.3, 0.6]) {
        for (const limit of [1, 5, 50]) {
          const fromSql = await neighboursInSql(t.deps, doc, model(), threshold, limit, null)
          const fromMemory = await neighboursInCache(t.deps, doc, model(), threshold, limit)
          expect(fromMemory?.map((n) => n.document_id)).toEqual(fromSql.map((n) => n.document_id))
          fromMemory!.forEach((n, k) => expect(n.score).toBeCloseTo(fromSql[k]!.score, 5))
          compared += fromSql.length
        }
      }
    }
    expect(compared).toBeGreaterThan(1000)
    // The jobs and these queries caught the copy up by deltas (a reload may also have begun: the deltas outgrew this small base).
    expect(t.deps.vectorCache.catchUps).toBeGreaterThan(catchUps)
  })

  test('the suggest-links jobs of a backlog link new near-duplicates to each other and never to an archived document', async () => {
    const v = await t.signUp()
    const ingestFor = async (body: string) => (await t.json('POST', '/api/documents', { key: v.key, body: { title: 'Log', body } })).body.id
    for (let i = 0; i < 10; i++) await ingestFor(`${text(200 + i * 5)} entry${i}`)
    const archived = await ingestFor(text(300))
    await drainJobs(t.deps)
    await t.deps.vectorCache.load(t.deps.db, v.id, model())
    await t.json('POST', `/api/documents/${archived}/archive`, { key: v.key })
    const a = await ingestFor(`${text(300)} pier`)
    const b = await ingestFor(`${text(300)} sail`)
    await drainJobs(t.deps)
    const linked = (await t.deps.db.select().from(links).where(eq(links.user_id, v.id))).filter((l) =>
      [l.source_id, l.target_id].some((id) => id === a || id === b),
    )
    expect(linked.map((l) => [l.source_id, l.target_id].sort().join())).toContain([a, b].sort().join())
    expect(linked.every((l) => l.source_id !== archived && l.target_id !== archived)).toBe(true)
  })
})
