// The keyword index is stored in blocks a term (term_blocks): each write appends a block a term, compaction merges a
// term's newest blocks into blocks of up to 256 documents over disjoint ranges of numbers, and deletions and edits
// take a document's postings out of whichever block holds them. Through all of it the postings are exactly the
// documents' listed terms, every term's document frequency is exact, and the SQL ranking gives the same results,
// score for score, before and after a compaction.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { BLOCK_RANGE, compactDueBlocks, compactTermBlocks, compactionDue } from '../../src/retrieval/block-compaction'
import { analyzeQuery, keywordSearchSql } from '../../src/retrieval/keyword'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { seededRandom } from '../seeded-random'
import { seededText, sqlFilter } from './cache-corpus'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '100000' } })
})
afterAll(() => t.close())

interface Block {
  term: string
  first_no: number
  n: number
  doc_nos: number[]
}

const blocksOf = (u: TestUser) =>
  queryRows<Block>(t.deps.db, sql`select term, first_no, n, doc_nos from term_blocks where user_id = ${u.id} order by term, first_no`)

/** The user's postings as "term document tf dl", sorted: what any layout of the blocks must hold. */
const postingsOf = async (u: TestUser) =>
  (
    await queryRows<{ p: string }>(
      t.deps.db,
      sql`select p.term || ' ' || coalesce(p.document_id::text, 'GONE') || ' ' || p.tf || ' ' || p.dl as p from postings p where p.user_id = ${u.id}`,
    )
  )
    .map((r) => r.p)
    .sort()

/** Every block's count is its length, sorted and inside [first_no, the next block's first_no); and no document's posting is missing or extra. */
async function expectWellFormed(u: TestUser) {
  const blocks = await blocksOf(u)
  for (const [i, b] of blocks.entries()) {
    expect({ term: b.term, n: b.doc_nos.length }).toEqual({ term: b.term, n: b.n })
    expect(b.doc_nos).toEqual([...b.doc_nos].sort((x, y) => x - y))
    expect(b.doc_nos[0]!).toBeGreaterThanOrEqual(b.first_no)
    const next = blocks[i + 1]
    if (next?.term === b.term) expect(b.doc_nos.at(-1)!).toBeLessThan(next.first_no)
  }
  const [row] = await queryRows<Record<string, number>>(
    t.deps.db,
    sql`with listed as (select t.document_id, u.term, u.tf from document_terms t cross join unnest(t.terms, t.tfs) as u(term, tf) where t.user_id = ${u.id}),
      posted as (select document_id, term::text as term, tf from postings where user_id = ${u.id})
    select (select count(*)::int from (select * from posted except select * from listed) x) as unlisted,
           (select count(*)::int from (select * from listed except select * from posted) x) as unposted,
           (select count(*)::int from postings where user_id = ${u.id} and document_id is null) as orphans`,
  )
  expect(row).toEqual({ unlisted: 0, unposted: 0, orphans: 0 })
}

/** The SQL ranking of each query: ids, scores and matched words. */
async function rankings(u: TestUser, queries: string[]) {
  const out: string[] = []
  for (const q of queries) {
    const terms = await analyzeQuery(t.deps.db, q)
    for (const h of await keywordSearchSql(t.deps.db, u.id, terms, sqlFilter(u.id, {}), 50))
      out.push(`${q}: ${h.document_id} ${h.score.toPrecision(12)} ${h.matched_terms}`)
  }
  return out
}

const QUERIES = ['harbour tide', 'ferry', 'lighthouse keeper storm', 'tid', 'gull harbour']

test('messages written one at a time leave a block a term each; compaction merges them and every ranking stays the same', async () => {
  const u = await t.signUp()
  const r = seededRandom(7)
  const words = ['harbour', 'tide', 'ferry', 'lighthouse', 'keeper', 'storm', 'gull', 'pier', 'rope', 'anchor']
  for (let i = 0; i < 40; i++) {
    const res = await t.json('POST', '/api/documents', {
      key: u.key,
      body: { title: `Log ${i}`, body: `${seededText(i, 12, words)} ${r.pick(words)} entry ${i}` },
    })
    expect(res.status).toBe(201)
  }
  const before = { blocks: await blocksOf(u), postings: await postingsOf(u), ranked: await rankings(u, QUERIES) }
  expect(before.blocks.every((b) => b.n === 1)).toBe(true)
  await expectWellFormed(u)

  expect(await compactTermBlocks(t.deps.db, u.id)).toBeGreaterThan(0)
  const after = await blocksOf(u)
  // One block a term now (none has 256 documents), the same postings, the same rankings.
  expect(after.length).toBe(new Set(after.map((b) => b.term)).size)
  expect(after.length).toBeLessThan(before.blocks.length / 4)
  expect(await postingsOf(u)).toEqual(before.postings)
  expect(await rankings(u, QUERIES)).toEqual(before.ranked)
  await expectWellFormed(u)
  // Nothing new: nothing to do.
  expect(await compactTermBlocks(t.deps.db, u.id)).toBe(0)
})

test('a word in 700 documents ends in blocks of at most 256; deletions and edits after take exactly their postings out', async () => {
  const u = await t.signUp()
  for (let batch = 0; batch < 2; batch++) {
    const documents = Array.from({ length: 350 }, (_, i) => ({
      title: `Crossing ${batch * 350 + i}`,
      body: `ferry harbour crossing ${batch * 350 + i} ${seededText(batch * 350 + i, 20)}`,
    }))
    expect((await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })).status).toBe(200)
  }
  // Each insert of a bulk request (a group of its documents) writes one block a term.
  const written = (await blocksOf(u)).filter((b) => b.term === 'ferri').map((b) => b.n)
  expect(written.length).toBeGreaterThan(1)
  expect(written.reduce((a, b) => a + b, 0)).toBe(700)
  // A few terms a statement: the compaction in many slices.
  await compactTermBlocks(t.deps.db, u.id, 25)
  const ferry = (await blocksOf(u)).filter((b) => b.term === 'ferri')
  expect(ferry.map((b) => b.n)).toEqual([256, 256, 188])
  await expectWellFormed(u)
  const ranked = await rankings(u, QUERIES)

  // Deleted one at a time, in bulk, and edited (re-indexed under a new number).
  const listed = (await t.json('GET', '/api/documents?limit=100', { key: u.key })).body.data as { id: string }[]
  const ids = listed.map((d) => d.id)
  for (const id of ids.slice(0, 5)) expect((await t.json('DELETE', `/api/documents/${id}`, { key: u.key })).status).toBe(204)
  expect((await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: ids.slice(5, 40) } })).status).toBe(200)
  for (const id of ids.slice(40, 45))
    expect((await t.json('PATCH', `/api/documents/${id}`, { key: u.key, body: { body: 'a lighthouse keeper in the storm' } })).status).toBe(
      200,
    )
  await expectWellFormed(u)
  const df = async (term: string) => {
    const [row] = await queryRows<{ blocks: number; documents: number }>(
      t.deps.db,
      sql`select (select coalesce(sum(n), 0)::int from term_blocks where user_id = ${u.id} and term = ${term}) as blocks,
                 (select count(*)::int from document_terms where user_id = ${u.id} and ${term} = any(terms)) as documents`,
    )
    return row!
  }
  expect(await df('ferri')).toEqual({ blocks: 700 - 45, documents: 700 - 45 })
  expect(await df('lighthous')).toEqual({ blocks: 5, documents: 5 })
  expect(await rankings(u, QUERIES)).not.toEqual(ranked)

  // The edited documents' new blocks are compacted with the rest; the rankings do not move.
  const now = await rankings(u, QUERIES)
  await compactTermBlocks(t.deps.db, u.id)
  await expectWellFormed(u)
  expect(await rankings(u, QUERIES)).toEqual(now)
})

test('a user is due once a range of numbers completes, or once nothing came since the last pass', () => {
  expect(compactionDue({ last_no: 10, compacted_upto: 10 }, true)).toBe(false)
  expect(compactionDue({ last_no: 10, compacted_upto: 0 }, false)).toBe(false)
  expect(compactionDue({ last_no: 10, compacted_upto: 0 }, true)).toBe(true)
  expect(compactionDue({ last_no: BLOCK_RANGE - 1, compacted_upto: 0 }, false)).toBe(false)
  expect(compactionDue({ last_no: BLOCK_RANGE, compacted_upto: 0 }, false)).toBe(true)
  expect(compactionDue({ last_no: BLOCK_RANGE + 5, compacted_upto: BLOCK_RANGE }, false)).toBe(false)
  expect(compactionDue({ last_no: 2 * BLOCK_RANGE + 1, compacted_upto: BLOCK_RANGE + 7 }, false)).toBe(true)
})

test('the maintenance compacts a user once a range completes, or once none came since its last pass', async () => {
  const busy = await t.signUp()
  const quiet = await t.signUp()
  const ingest = async (u: TestUser, n: number, from = 0) => {
    const documents = Array.from({ length: n }, (_, i) => ({ title: `Note ${from + i}`, body: seededText(from + i, 8) }))
    expect((await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })).status).toBe(200)
  }
  // A range completed: as if the busy user's numbers had reached the end of the first range.
  await ingest(busy, 10)
  await t.deps.db.execute(sql`update keyword_stats set last_no = ${BLOCK_RANGE - 10} where user_id = ${busy.id}`)
  await ingest(busy, 20, 10)
  await ingest(quiet, 3)
  const seen = new Map<string, number>()
  // The busy user is due at once; the quiet one after a pass without writes.
  let compacted = await compactDueBlocks(t.deps, seen)
  expect(compacted).toContain(busy.id)
  expect(compacted).not.toContain(quiet.id)
  compacted = await compactDueBlocks(t.deps, seen)
  expect(compacted).toContain(quiet.id)
  expect(compacted).not.toContain(busy.id)
  expect(await compactDueBlocks(t.deps, seen)).not.toContain(quiet.id)
  // Writing again starts the wait again.
  await ingest(quiet, 2, 3)
  expect(await compactDueBlocks(t.deps, seen)).not.toContain(quiet.id)
  expect(await compactDueBlocks(t.deps, seen)).toContain(quiet.id)
  await expectWellFormed(quiet)
  await expectWellFormed(busy)
})

test("a completed range's blocks are final (term_blocks_main); a range still filling stays in the tail, where the next merge replaces it", async () => {
  const u = await t.signUp()
  const ingest = async (n: number, from: number) => {
    const documents = Array.from({ length: n }, (_, i) => ({ title: `Log ${from + i}`, body: seededText(1000 + from + i, 8) }))
    expect((await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })).status).toBe(200)
  }
  const where = () =>
    queryRows<{ merged: boolean; partition: string; first_no: number; n: number }>(
      t.deps.db,
      sql`select merged, tableoid::regclass::text as partition, first_no, n from term_blocks where user_id = ${u.id}`,
    )
  await ingest(10, 0)
  await compactTermBlocks(t.deps.db, u.id)
  // The first range is still filling: merged, but in the tail.
  expect(new Set((await where()).map((b) => b.partition))).toEqual(new Set(['term_blocks_tail']))

  // Numbers past the end of the first range: it is complete.
  await t.deps.db.execute(sql`update keyword_stats set last_no = ${BLOCK_RANGE - 5} where user_id = ${u.id}`)
  await ingest(10, 10)
  const before = await rankings(u, QUERIES)
  await compactTermBlocks(t.deps.db, u.id)
  const blocks = await where()
  for (const b of blocks)
    expect({ first_no: b.first_no, partition: b.partition }).toEqual({
      first_no: b.first_no,
      partition: b.first_no <= BLOCK_RANGE ? 'term_blocks_main' : 'term_blocks_tail',
    })
  expect(blocks.some((b) => b.partition === 'term_blocks_main' && b.n === 1)).toBe(true) // a block alone in its range moves too
  expect(blocks.some((b) => b.partition === 'term_blocks_tail')).toBe(true)
  expect(await rankings(u, QUERIES)).toEqual(before)
  await expectWellFormed(u)

  // More writes into the second range: its merge leaves the first range's blocks as they were.
  const main = async () =>
    (
      await queryRows<{ row: string }>(
        t.deps.db,
        sql`select xmin::text || ' ' || term || ' ' || first_no as row from term_blocks_main where user_id = ${u.id}`,
      )
    )
      .map((r) => r.row)
      .sort()
  const finals = await main()
  await ingest(5, 20)
  await compactTermBlocks(t.deps.db, u.id)
  expect(await main()).toEqual(finals)
  await expectWellFormed(u)
})
