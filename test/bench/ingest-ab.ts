// Profiling aid: A/B of the bulk insert (insertIndexedDocuments, batches of 1,000 SciFact abstracts) in one run,
// A on the migrated schema, B after the SQL of argv[2] (e.g. a variant of the function, an index dropped);
// batches alternate A, B, B, A… so a machine that gets busier mid-run skews neither.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDb } from '../../db/client'
import { runMigrations } from '../../db/migrate'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import type { PGlite } from '@electric-sql/pglite'
import { createTestApp } from '../harness'
import { insertIndexedDocuments } from '../../src/modules/documents/documents.insert'
import { documentRows } from './ingest-rows'
import { loadScifact } from './scifact'

const corpus = loadScifact().corpus
const BATCH = Number(process.env.BENCH_BATCH ?? 1000)
const BATCHES = Number(process.env.BATCHES ?? 5)

/** AB_ON_DISK=1: each side on PGlite in a fresh temporary directory, as the service runs by default. */
async function app() {
  const env = { DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '1000000' }
  if (process.env.AB_ON_DISK !== '1') return createTestApp({ env })
  const dir = mkdtempSync(join(tmpdir(), 'ingest-ab-'))
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', ...env })
  const database = await createDb(config)
  await runMigrations(database)
  const t = await createTestApp({ env, deps: await createDeps(config, { database }) })
  return { ...t, close: async () => (await t.close(), rmSync(dir, { recursive: true, force: true })) }
}

async function side(setup: string | null) {
  const t = await app()
  const user = await t.signUp()
  const pg = (t.deps.db as unknown as { $client: PGlite }).$client
  if (setup) await pg.exec(setup)
  const ws = (await pg.query<{ id: string }>('select id from workspaces where user_id = $1', [user.id])).rows[0]!.id
  let total = 0
  const times: number[] = []
  const batch = async (b: number) => {
    const docs = Array.from({ length: BATCH }, (_, i) => corpus[(b * BATCH + i) % corpus.length]!)
    const rows = documentRows(docs, user.id, ws)
    const started = performance.now()
    await t.deps.db.transaction((tx) => insertIndexedDocuments(tx, t.deps, rows as never))
    const ms = performance.now() - started
    total += ms
    if (b < BATCHES) times.push(ms)
    return ms
  }
  /** The catch-up read of the last batch's documents (index_changes_since, as the keyword index reads it), then their deletion, in ms. */
  const after = async () => {
    const [v] = (await pg.query<{ version: number }>('select version::float8 as version from keyword_stats where user_id = $1', [user.id]))
      .rows
    let started = performance.now()
    const r = await pg.query<{ r_current: string }>('select r_current from index_changes_since($1, $2, null, 5000)', [
      user.id,
      v!.version - 1,
    ])
    const read = performance.now() - started
    const ids = JSON.parse(r.rows[0]!.r_current).map((d: { id: string }) => d.id)
    started = performance.now()
    await pg.query('delete from documents where id = any($1::uuid[])', [ids])
    const deleted = performance.now() - started
    started = performance.now()
    const all = await pg.query('delete from documents where user_id = $1', [user.id])
    return { read, deleted, docs: ids.length, all: performance.now() - started, rest: all.affectedRows }
  }
  return { batch, times, after, user: user.id, total: () => total, pg, close: t.close }
}

const a = await side(null)
const b = await side(process.argv[2] ? readFileSync(process.argv[2], 'utf8') : null)
await a.batch(BATCHES) // warm-up, both sides (a batch beyond the measured ones)
await b.batch(BATCHES)
const [ta, tb] = [a.total(), b.total()]
for (let i = 0; i < BATCHES; i++) {
  const [first, second] = i % 2 === 0 ? [a, b] : [b, a]
  const x = await first.batch(i)
  const y = await second.batch(i)
  console.log(`batch ${i}: ${first === a ? 'A' : 'B'} ${x.toFixed(0)} ms, ${second === a ? 'A' : 'B'} ${y.toFixed(0)} ms`)
}
const [sa, sb] = [a.total() - ta, b.total() - tb]
const ratios = a.times.map((x, i) => b.times[i]! / x).sort((x, y) => x - y)
console.log(`B/A per batch, median ${ratios[ratios.length >> 1]!.toFixed(3)} (${ratios.map((r) => r.toFixed(2)).join(' ')})`)
console.log(
  `A ${((BATCHES * BATCH) / (sa / 1000)).toFixed(0)} docs/s, B ${((BATCHES * BATCH) / (sb / 1000)).toFixed(0)} docs/s, B/A time ${(sb / sa).toFixed(3)}`,
)
const count = async (s: typeof a) => (await s.pg.query<{ n: number }>('select count(*)::int as n from postings')).rows[0]!.n
console.log(`postings A ${await count(a)}, B ${await count(b)}`)
if (process.env.AB_AFTER === '1')
  for (const [name, s] of [
    ['A', a],
    ['B', b],
  ] as const) {
    const r = await s.after()
    console.log(
      `${name}: catch-up read of ${r.docs} documents ${r.read.toFixed(0)} ms, their deletion ${r.deleted.toFixed(0)} ms; then the user's other ${r.rest} ${r.all.toFixed(0)} ms`,
    )
  }
await a.close()
await b.close()
