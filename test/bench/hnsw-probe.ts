// One-off probe (bun test/bench/hnsw-probe.ts N): pgvector HNSW on PGlite against an exact scan, for the choice
// recorded in README "Semantic search at scale". N chunk vectors (hash embedder, 384 dimensions, SciFact texts
// replicated), one user among two so the user filter applies: index build time, query p50/p99, recall@10.
import { openPglite } from '../../db/client'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { loadScifact } from './scifact'

const N = Number(process.argv[2] ?? 15000)
const { corpus, queries } = loadScifact()
const db = await openPglite('memory://')
await db.exec(`create extension if not exists vector; create table c (id serial primary key, user_id int, e vector(384))`)
let t0 = performance.now()
for (let start = 0; start < N; start += 1000) {
  const rows = Array.from({ length: Math.min(1000, N - start) }, (_, j) => {
    const i = start + j
    const doc = corpus[i % corpus.length]!
    return {
      u: i % 10 === 0 ? 2 : 1,
      e: `[${hashEmbed(`${doc.title} ${doc.text} ${corpus[(i * 7919) % corpus.length]!.title}`, 384).join(',')}]`,
    }
  })
  await db.query(`insert into c (user_id, e) select u, e::vector from jsonb_to_recordset($1::jsonb) as v(u int, e text)`, [
    JSON.stringify(rows),
  ])
}
console.log(`${N} vectors inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
const qs = queries.slice(0, 50).map((q) => `[${hashEmbed(q.text, 384).join(',')}]`)
const exact: number[][] = []
const time = async (label: string, sql: string) => {
  const took: number[] = []
  const got: number[][] = []
  for (const q of qs) {
    const t = performance.now()
    got.push((await db.query<{ id: number }>(sql, [q])).rows.map((r) => r.id))
    took.push(performance.now() - t)
  }
  took.sort((a, b) => a - b)
  if (!exact.length) exact.push(...got)
  const recall =
    got.reduce((s, ids, k) => s + ids.filter((id) => exact[k]!.includes(id)).length, 0) / exact.reduce((s, e) => s + e.length, 0)
  console.log(`${label}: p50 ${took[24]!.toFixed(1)} ms, p99 ${took[49]!.toFixed(1)} ms, recall@10 ${recall.toFixed(3)}`)
}
const query = `select id from c where user_id = 1 order by e <=> $1::vector limit 10`
await time(
  'exact scan',
  `select id from (select id, e <=> $1::vector as dist from c where user_id = 1 offset 0) s order by dist, id limit 10`,
)
t0 = performance.now()
await db.exec(`set maintenance_work_mem = '256MB'; create index on c using hnsw (e vector_cosine_ops)`)
console.log(`hnsw (m 16, ef_construction 64) built in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
await db.exec(`set hnsw.iterative_scan = relaxed_order; set hnsw.ef_search = 40`)
await time('hnsw ef_search 40, iterative relaxed', query)
await db.exec(`set hnsw.ef_search = 100`)
await time('hnsw ef_search 100, iterative relaxed', query)
await db.close()
