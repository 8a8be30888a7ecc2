// The keyword copy catches up with writes instead of being thrown away: after every write — ingests one by one and
// in bulk, edits of body, title and tags, pins, ratings, archiving and restoring, workspace moves, a change of when
// a document happened, deletes one by one, in bulk and by deleting a workspace — the next search brings the copy to the current version by a delta
// (no full reload), and it ranks exactly as the SQL ranking does, score by score, for plain and prefix queries
// and every filter (time ranges among them). A log pruned past the copy's version makes it reload in full, still exact; concurrent
// searches share one catch-up, and each still sees every write committed before it began.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { analyzeQuery, keywordSearchSql, type KeywordHit } from '../../src/retrieval/keyword'
import { IndexCache } from '../../src/retrieval/index-cache'
import { keywordSource, type KeywordIndex } from '../../src/retrieval/keyword-cache'
import { pruneChangeLogs } from '../../src/retrieval/change-logs'
import { searchKeywordIndex } from '../../src/retrieval/keyword-cache-rank'
import type { DocumentFilter } from '../../src/retrieval/document-fields'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { seededRandom } from '../seeded-random'
import { SCIENCE_WORDS, sqlFilter } from './cache-corpus'

let t: TestApp
let u: TestUser
let memory: IndexCache<KeywordIndex>
let workspaces: string[] = []
const ids: string[] = []

const WORDS = [...SCIENCE_WORDS.slice(0, 18), 'ops', 'options', 'operators', 'optimal', 'recall']

const r = seededRandom(15)
const text = (n: number) => Array.from({ length: n }, () => r.pick(WORDS)).join(' ')
const body = () => ({
  title: `Study ${text(2)}`,
  body: text(10 + r.int(60)),
  tags: r.next() < 0.3 ? [r.pick(['lab', 'clinic'])] : [],
  kind: r.pick(['document', 'note']),
  workspace_id: r.pick(workspaces),
  occurred_at: new Date(day(r.int(6))).toISOString(),
})
/** The days documents happened on: 1 May 2023 and the five after. */
const day = (k: number) => Date.UTC(2023, 4, 1 + k)

beforeAll(async () => {
  t = await createTestApp({ env: { KEYWORD_MEMORY_MIN_DOCUMENTS: '1', DEFAULT_PLAN: 'pro' } })
  // No reload for the deltas' size here: every step below must be caught up by a delta.
  memory = new IndexCache(keywordSource, { minDocuments: 1, maxBytes: 1 << 30, deltaShare: Number.POSITIVE_INFINITY, log: t.deps.log })
  t.deps.keywordCache = memory
  u = await t.signUp()
  const other = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Other' } })).body.id
  const doomed = (await t.json('POST', '/api/workspaces', { key: u.key, body: { name: 'Doomed' } })).body.id
  const listed: { id: string }[] = (await t.json('GET', '/api/workspaces', { key: u.key })).body.data
  workspaces = [listed.find((w) => w.id !== other && w.id !== doomed)!.id, other, doomed]
  const res = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents: Array.from({ length: 120 }, body) } })
  expect(res.status).toBe(200)
  for (const item of res.body.results) ids.push(item.document.id)
})
afterAll(() => t.close())

/**
 * Hits in the ranking's order with scores equal to 10 significant digits taken as ties (then by id): the SQL
 * ranking sums a document's word scores in no set order, so two documents whose scores are equal in exact
 * arithmetic can differ there in the last bit and come in either order.
 */
function canonical(hits: KeywordHit[], words: number): KeywordHit[] {
  const key = (h: KeywordHit) => Number((h.score * h.boost).toPrecision(10))
  const all = (h: KeywordHit) => (h.matched_terms === words ? 1 : 0)
  return [...hits].sort((x, y) => all(y) - all(x) || key(y) - key(x) || (x.document_id < y.document_id ? -1 : 1))
}

/** The copy and the SQL ranking agree on `queries` × filters × limits; answers how many results were compared. */
async function expectExact(copy: KeywordIndex, queries: string[], context: string): Promise<number> {
  let compared = 0
  for (const q of queries) {
    const terms = await analyzeQuery(t.deps.db, q)
    const words = new Set(terms.map((x) => x.idx)).size
    const filters: DocumentFilter[] = [
      {},
      { workspaceId: r.pick(workspaces) },
      { kind: 'note', tag: 'lab' },
      { excludeDocument: r.pick(ids) },
      { after: day(2) },
      { before: day(4), kind: 'note' },
      { after: day(1), before: day(3), workspaceId: r.pick(workspaces) },
    ]
    if (r.next() < 0.3) filters.push({ onlyDocument: r.pick(ids) })
    for (const f of filters) {
      for (const limit of [3, 40]) {
        // More from SQL than the limit, so a tie at the cut is settled by id in both.
        const fromSql = canonical(await keywordSearchSql(t.deps.db, u.id, terms, sqlFilter(u.id, f), limit + 20), words).slice(0, limit)
        const fromMemory = canonical(searchKeywordIndex(copy, terms, f, limit), words)
        const where = `${context}: ${JSON.stringify({ q, f, limit })}`
        expect({ where, ids: fromMemory.map((h) => h.document_id) }).toEqual({ where, ids: fromSql.map((h) => h.document_id) })
        fromMemory.forEach((h, i) => {
          expect(h.score).toBeCloseTo(fromSql[i]!.score, 9)
          expect(h.boost).toBeCloseTo(fromSql[i]!.boost, 9)
          expect(h.matched_terms).toBe(fromSql[i]!.matched_terms)
        })
        compared += fromSql.length
      }
    }
  }
  return compared
}

const version = async () =>
  Number((await queryRows<{ v: number }>(t.deps.db, sql`select version::float8 as v from keyword_stats where user_id = ${u.id}`))[0]!.v)

/** One random write of each kind a user (or a sync) makes. */
async function write(step: number): Promise<string> {
  const id = r.pick(ids)
  const kinds = ['ingest', 'bulk', 'body', 'title', 'tags', 'pin', 'rate', 'archive', 'restore', 'move', 'occur', 'delete', 'bulk-delete']
  const kind = step < kinds.length ? kinds[step]! : r.pick(kinds)
  const ok = (res: { status: number }) => expect({ kind, status: res.status }).toEqual({ kind, status: expect.any(Number) })
  if (kind === 'ingest') {
    const res = await t.json('POST', '/api/documents', { key: u.key, body: body() })
    ids.push(res.body.id)
  } else if (kind === 'bulk') {
    const res = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents: [body(), body(), body()] } })
    for (const item of res.body.results) ids.push(item.document.id)
  } else if (kind === 'body') ok(await t.json('PATCH', `/api/documents/${id}`, { key: u.key, body: { body: text(5 + r.int(80)) } }))
  else if (kind === 'title') ok(await t.json('PATCH', `/api/documents/${id}`, { key: u.key, body: { title: `Renamed ${text(3)}` } }))
  else if (kind === 'tags') ok(await t.json('PATCH', `/api/documents/${id}`, { key: u.key, body: { tags: [r.pick(['lab', 'clinic'])] } }))
  else if (kind === 'pin') ok(await t.json('PATCH', `/api/documents/${id}`, { key: u.key, body: { pinned: r.next() < 0.5 } }))
  else if (kind === 'rate') ok(await t.json('POST', `/api/documents/${id}/rate`, { key: u.key, body: { rating: r.pick([-1, 0, 1]) } }))
  else if (kind === 'archive') ok(await t.json('POST', `/api/documents/${id}/archive`, { key: u.key }))
  else if (kind === 'restore') ok(await t.json('POST', `/api/documents/${id}/restore`, { key: u.key }))
  else if (kind === 'move')
    await t.deps.db.execute(sql`update documents set workspace_id = ${r.pick(workspaces.slice(0, 2))} where id = ${id}`)
  // No route changes when a document happened but a message sent again (threads): the column alone, as that does.
  else if (kind === 'occur')
    await t.deps.db.execute(
      sql`update documents set occurred_at = ${new Date(day(r.int(6)) + 1).toISOString()}::timestamptz where id = ${id}`,
    )
  else if (kind === 'delete') {
    expect((await t.json('DELETE', `/api/documents/${id}`, { key: u.key })).status).toBe(204)
    ids.splice(ids.indexOf(id), 1)
  } else {
    const gone = [r.pick(ids), r.pick(ids)]
    ok(await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: [...new Set(gone)] } }))
    for (const g of new Set(gone)) ids.splice(ids.indexOf(g), 1)
  }
  return kind
}

describe('the cached keyword index catches up with writes', () => {
  test('after every kind of write, by a delta and not a reload, ranking exactly as SQL does', async () => {
    const loaded = await memory.load(t.deps.db, u.id)
    expect(loaded).not.toBeNull()
    const loads = memory.loads
    let compared = await expectExact(loaded!, ['vaccine immune', 'ops'], 'loaded')
    let moved = 0
    for (let step = 0; step < 36; step++) {
      const before = await version()
      const kind = await write(step)
      if (step === 30) {
        // A workspace deleted: its documents go by cascade.
        expect((await t.json('DELETE', `/api/workspaces/${workspaces[2]}`, { key: u.key })).status).toBe(204)
        const left = await queryRows<{ id: string }>(t.deps.db, sql`select id from documents where user_id = ${u.id}`)
        ids.splice(0, ids.length, ...left.map((row) => row.id))
        workspaces = workspaces.slice(0, 2)
      }
      const catchUps = memory.catchUps
      const copy = await memory.current(t.deps.db, u.id)
      expect({ step, kind, current: copy !== null }).toEqual({ step, kind, current: true })
      const now = await version()
      expect(copy!.version).toBe(now)
      // A write that changed nothing (restoring a document that was not archived) needs no catch-up.
      const expected = { step, kind, loads, catchUps: catchUps + (now > before ? 1 : 0) }
      expect({ step, kind, loads: memory.loads, catchUps: memory.catchUps }).toEqual(expected)
      if (now > before) moved++
      const queries = [text(1 + r.int(3)), `${text(1)} ${r.pick(WORDS).slice(0, 3)}`, r.pick(['op', 'vacc', 'rec'])]
      compared += await expectExact(copy!, queries, `step ${step} (${kind})`)
    }
    // The deltas were exercised: segments beside the base, base documents tombstoned, real result lists compared.
    const copy = (await memory.current(t.deps.db, u.id))!
    expect(copy.segments.length).toBeGreaterThan(1)
    expect(copy.segments[0]!.deadList.length).toBeGreaterThan(10)
    expect(compared).toBeGreaterThan(2000)
    expect(moved).toBeGreaterThan(25)
  }, 60_000)

  test('a search sees every write committed before it began, and concurrent searches share one catch-up', async () => {
    await memory.current(t.deps.db, u.id)
    const inFlight = memory.current(t.deps.db, u.id)
    await write(0)
    const after = await version()
    const catchUps = memory.catchUps
    const copies = await Promise.all(Array.from({ length: 6 }, () => memory.current(t.deps.db, u.id)))
    expect(copies.every((c) => c === copies[0])).toBe(true)
    expect(copies[0]!.version).toBeGreaterThanOrEqual(after)
    expect(memory.catchUps - catchUps).toBeLessThanOrEqual(1)
    await inFlight
    const found = await t.json('GET', `/api/search?q=${encodeURIComponent(`quokka ${ids.length}`)}&mode=keyword`, { key: u.key })
    expect(found.body.results).toEqual([])
    const added = await t.json('POST', '/api/documents', { key: u.key, body: { title: 'Quokka', body: 'quokka field study' } })
    const res = await t.json('GET', '/api/search?q=quokka&mode=keyword', { key: u.key })
    expect(res.body.results.map((x: { document: { id: string } }) => x.document.id)).toEqual([added.body.id])
  })

  test('a log pruned past the index makes it reload in full, and the ranking stays exact', async () => {
    await memory.current(t.deps.db, u.id)
    await write(1)
    // The default window keeps what was just written: still a catch-up.
    expect(await pruneChangeLogs(t.deps.db)).toBe(0)
    await write(2)
    // Pruned to nothing: the copy cannot catch up.
    expect(await pruneChangeLogs(t.deps.db, 0)).toBeGreaterThan(0)
    const loads = memory.loads
    expect(await memory.current(t.deps.db, u.id)).toBeNull()
    const reloaded = await memory.load(t.deps.db, u.id)
    expect(memory.loads).toBe(loads + 1)
    expect(reloaded!.version).toBe(await version())
    expect(reloaded!.segments.length).toBe(1)
    expect(await expectExact(reloaded!, ['vaccine immune response', 'opt', 'tumor growth'], 'reloaded')).toBeGreaterThan(50)
  })

  test('deltas past their share of the base start a compaction in memory, which replaces base and deltas, exact as SQL', async () => {
    const eager = new IndexCache(keywordSource, { minDocuments: 1, maxBytes: 1 << 30, deltaShare: 0.02, log: t.deps.log })
    await eager.load(t.deps.db, u.id)
    for (let i = 0; i < 4; i++) await write(1) // bulk ingests: 12 documents, past 2 % of the base
    const caught = await eager.current(t.deps.db, u.id)
    expect(caught!.segments.length).toBeGreaterThan(1)
    expect(eager.isLoading(u.id)).toBe(true)
    const reloaded = await eager.load(t.deps.db, u.id) // joins the compaction the catch-up started
    expect([eager.loads, eager.compactions]).toEqual([1, 1]) // the database was read once, by the first load
    expect(reloaded!.segments.length).toBe(1)
    expect(reloaded!.segments[0]!.deadList.length).toBe(0)
    expect(await expectExact(reloaded!, ['vaccine immune response', 'opt', 'tumor growth'], 'compacted')).toBeGreaterThan(50)
    expect(await eager.current(t.deps.db, u.id)).toBe(reloaded)
  })
})
