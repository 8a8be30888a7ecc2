// The embedded database runs no autovacuum: the maintenance tick does what it would — by its rules, table by table,
// letting waiting requests through between two tables rather than holding them all behind one VACUUM ANALYZE.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { inBackground, queryRows } from '../../db/client'
import { dueFor, upkeepTables } from '../../src/jobs/table-upkeep'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let u: TestUser
beforeAll(async () => {
  t = await createTestApp({ postgres: false, env: { DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '100000' } })
  u = await t.signUp()
})
afterAll(() => t.close())

const ingest = async (from: number, n: number) => {
  const documents = Array.from({ length: n }, (_, i) => ({
    title: `Tide table ${from + i}`,
    // Two words of its own a document (its number and its pier's): a block each.
    body: `ferry harbour crossing ${from + i} leaves at dawn from pier ${100_000 + 7 * (from + i)}, returns with the evening tide`,
  }))
  const res = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents } })
  expect(res.status).toBe(200)
}
const blocksStats = async () =>
  (
    await queryRows<{ vacuumed: boolean; analyzed: boolean; tuples: number }>(
      t.deps.db,
      sql`select s.last_vacuum is not null as vacuumed, s.last_analyze is not null as analyzed, c.reltuples::float8 as tuples
          from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'term_blocks_tail'`,
    )
  )[0]!

test('autovacuum’s rules: vacuum after enough inserted or dead rows, analyze after enough changed, in proportion to the table', () => {
  const quiet = { name: 't', tuples: 100_000, dead: 0, inserted: 0, modified: 0 }
  expect(dueFor(quiet)).toEqual({ vacuum: false, analyze: false })
  expect(dueFor({ ...quiet, inserted: 1000 + 5000 })).toEqual({ vacuum: false, analyze: false })
  expect(dueFor({ ...quiet, inserted: 1000 + 5001 })).toEqual({ vacuum: true, analyze: false })
  expect(dueFor({ ...quiet, dead: 50 + 20_001 })).toEqual({ vacuum: true, analyze: false })
  expect(dueFor({ ...quiet, modified: 50 + 10_001 })).toEqual({ vacuum: false, analyze: true })
  // A table never vacuumed nor analyzed (reltuples unknown) is due at the thresholds alone.
  expect(dueFor({ ...quiet, tuples: 0, inserted: 1001, modified: 51 })).toEqual({ vacuum: true, analyze: true })
})

test('after a bulk ingest the tick vacuums and analyzes the tables that grew; then nothing until they grow again', async () => {
  await ingest(0, 600)
  const ran = await upkeepTables(t.deps)
  expect(ran).toContain('vacuum and analyze term_blocks_tail')
  expect(ran).toContain('analyze documents') // 600 rows: analyzed (over 50), not yet vacuumed (under 1,000 inserted)
  expect(ran.every((r) => /^(vacuum|analyze|vacuum and analyze) [a-z_]+$/.test(r))).toBe(true)
  const after = await blocksStats()
  expect(after.vacuumed && after.analyzed).toBe(true)
  expect(after.tuples).toBeGreaterThan(2 * 600) // the planner now knows the table's size (each document's own numbers: 2 blocks)

  expect(await upkeepTables(t.deps)).toEqual([])
  await ingest(600, 10) // a few more: under every threshold
  expect(await upkeepTables(t.deps)).not.toContain('vacuum and analyze term_blocks_tail')
  await ingest(610, 600) // the table doubles: due again
  expect(await upkeepTables(t.deps)).toContain('vacuum and analyze term_blocks_tail')
}, 60_000)

test('a request waiting while the tables are kept up runs between two tables, not after them all', async () => {
  await ingest(2000, 600)
  let passDone = false
  const pass = upkeepTables(t.deps).then((ran) => {
    passDone = true
    return ran
  })
  const listed = await t.json('GET', '/api/documents?limit=1', { key: u.key })
  expect(listed.status).toBe(200)
  expect(passDone).toBe(false)
  expect((await pass).length).toBeGreaterThan(1)
}, 60_000)

test('the tick waits for a lull in requests before a table, for two minutes at most once it is due', async () => {
  await ingest(4000, 600)
  const dueSince = new Map<string, number>()
  // As the maintenance tick runs it: in the background (its own statements are no requests).
  const tick = () => inBackground(() => upkeepTables(t.deps, dueSince))
  // A request just ran: nothing is kept up yet, but what is due is remembered.
  expect((await t.json('GET', '/api/documents?limit=1', { key: u.key })).status).toBe(200)
  expect(await tick()).toEqual([])
  const due = [...dueSince.keys()]
  expect(due).toContain('term_blocks_tail')
  expect(due).toContain('documents')
  // Due for over two minutes: kept up even with requests coming.
  dueSince.set('term_blocks_tail', Date.now() - 2 * 60_000 - 1)
  expect((await t.json('GET', '/api/documents?limit=1', { key: u.key })).status).toBe(200)
  expect(await tick()).toEqual(['vacuum and analyze term_blocks_tail'])
  // A second without requests: the rest runs.
  await Bun.sleep(1_050)
  const rest = (await tick()).map((ran) => ran.split(' ').at(-1))
  expect(rest.sort()).toEqual(due.filter((name) => name !== 'term_blocks_tail').sort())
  expect(dueSince.size).toBe(0)
}, 60_000)
