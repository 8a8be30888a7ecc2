// Profiling aid: EXPLAIN ANALYZE of insert_indexed_documents' statement (from db/functions, or argv[2]) on an
// in-memory PGlite, for BATCHES (3) batches of 1,000 SciFact abstracts; PLAN=1 prints the plans. Each node's time
// is where a batch goes: to_tsvector, term grouping, each table's insert and its triggers.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'
import { functionsFolder } from '../../db/migrate'
import { chunkText } from '../../src/retrieval/chunking'
import { createTestApp } from '../harness'
import { documentRows } from './ingest-rows'
import { loadScifact } from './scifact'

const fn = readFileSync(process.argv[2] ?? join(functionsFolder, 'insert-indexed-documents.sql'), 'utf8')
const source = fn.slice(fn.indexOf('CREATE OR REPLACE FUNCTION insert_indexed_documents'))
const body = `${source.slice(source.indexOf('WITH d AS'), source.indexOf('SELECT count(*) INTO written'))}SELECT count(*) FROM new_documents`
const statement = body
  .replace(/p_docs/g, '$1')
  .replace(/p_parts/g, '$2')
  .replace(/p_config/g, "'english'::regconfig")
  .replace(/p_title_weight/g, '2')
  .replace(/p_max_attempts/g, '3')
  .replace(/p_now/g, 'now()')

const corpus = loadScifact().corpus
const t = await createTestApp({ env: { DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '1000000' } })
const user = await t.signUp()
const pg = (t.deps.db as unknown as { $client: PGlite }).$client
const ws = (await pg.query<{ id: string }>('select id from workspaces where user_id = $1', [user.id])).rows[0]!.id
const BATCH = Number(process.env.BENCH_BATCH ?? 1000)
for (let b = 0; b < Number(process.env.BATCHES ?? 3); b++) {
  const rows = documentRows(corpus.slice(b * BATCH, (b + 1) * BATCH), user.id, ws).map((d) => ({
    ...d,
    heading: d.title,
    job_id: crypto.randomUUID(),
    event_id: crypto.randomUUID(),
  }))
  const parts = rows.flatMap((d) =>
    chunkText(d.body).map((c) => ({
      id: crypto.randomUUID(),
      document_id: d.id,
      ordinal: c.ordinal,
      start_offset: c.start,
      content: c.content,
      span: d.body.slice(c.start, c.end),
    })),
  )
  await pg.query('begin')
  // The function's own settings.
  await pg.query(`set local work_mem = '${process.env.WORK_MEM ?? '32MB'}'`)
  const started = performance.now()
  const plan = await pg.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${statement}`, [
    JSON.stringify(rows),
    JSON.stringify(parts),
  ])
  console.log(`batch ${b}: ${(performance.now() - started).toFixed(0)} ms`)
  if (process.env.PLAN === '1') console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'))
  await pg.query('commit')
}
await t.close()
