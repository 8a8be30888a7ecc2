// bun run bench:reembed — background re-embedding of the SciFact corpus (5,183 abstracts) with the hash
// embedder on PGlite in memory: documents stored with no model are re-embedded by a process started with
// one (the boot tick marks them pending and starts the chain; the worker runs it), then a change of model
// (hash-512 → hash-256) is re-embedded by the in-process worker loop while keyword searches run beside it,
// to show what the API keeps. BENCH_DOCS (all) and BENCH_SEARCHES (200) override.
import { sql } from 'drizzle-orm'
import { createDb, queryRows, type Database } from '../../db/client'
import { runMigrations } from '../../db/migrate'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import type { Deps } from '../../src/deps'
import { createMaintenance } from '../../src/jobs/maintenance'
import { drainJobs, startWorker } from '../../src/jobs/worker'
import { countBacklog, countUnembedded } from '../../src/embedding/embedding-backlog'
import { loadScifact } from './scifact'

const { corpus: all, queries } = loadScifact()
const corpus = all.slice(0, Number(process.env.BENCH_DOCS) || undefined)
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 200)
const REEMBED = ['reembed-sweep', 'reembed-document'] as const
const env = {
  DATA_DIR: 'memory://',
  LOG_LEVEL: 'warn',
  DEFAULT_PLAN: 'pro',
  PLAN_PRO_DOCUMENTS: '1000000',
  PLAN_PRO_SEARCH_PER_MIN: '1000000',
  WORKER_IN_PROCESS: 'false',
}
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!.toFixed(1)

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now()
  const result = await work()
  return [result, performance.now() - started]
}

/** A process on `database` with this embedding provider, and a request helper with the bench user's key. */
async function processOn(database: Database | undefined, extra: Record<string, string>, key?: string) {
  const config = loadConfig({ ...env, ...extra })
  const deps = await createDeps(config, database ? { database: { ...database, close: async () => {} } } : {})
  const app = createApp(deps)
  const call = (
    method: string,
    path: string,
    body?: unknown,
    auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {},
  ) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { ...auth, 'content-type': 'application/json', origin: config.baseUrl },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    )
  return { deps, call }
}

async function stale(deps: Deps, model: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    deps.db,
    sql`select count(distinct document_id)::int as n from chunks where embedding_model is distinct from ${model}`,
  )
  return Number(row!.n)
}

console.log(
  `bench:reembed — ${corpus.length} SciFact abstracts, hash embedder, PGlite in memory, ${navigator.hardwareConcurrency} cores (shared)`,
)

// 1. Stored with no model: keyword-indexed, embed jobs run (no vectors), suggest-links jobs dropped.
const config = loadConfig({ ...env, EMBEDDING_PROVIDER: 'none' })
const database = await createDb(config)
await runMigrations(database, null)
const none = await processOn(database, { EMBEDDING_PROVIDER: 'none' })
const signUp = await none.call('POST', '/api/auth/sign-up', { email: 'bench@example.com', password: 'benchmark password' })
const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
const { key } = (await (await none.call('POST', '/api/keys', { label: 'bench' }, { cookie })).json()) as { key: string }
const [, ingestMs] = await timed(async () => {
  for (const doc of corpus) {
    const res = await none.call('POST', '/api/documents', { title: doc.title, body: doc.text }, { authorization: `Bearer ${key}` })
    if (res.status !== 201) throw new Error(`ingest: ${res.status} ${await res.text()}`)
  }
  await drainJobs(none.deps, 'seed', ['embed-document'])
  await none.deps.db.execute(sql`delete from jobs where kind = 'suggest-links'`)
})
const chunkCount = (await queryRows<{ n: number }>(none.deps.db, sql`select count(*)::int as n from chunks`))[0]!.n
console.log(
  `stored with EMBEDDING_PROVIDER=none: ${corpus.length} documents, ${chunkCount} chunks in ${seconds(ingestMs)} (ingest through app.handle + keyword-only embed jobs)`,
)

// 2. A process started with hash-512: the boot tick, then the worker re-embeds everything.
const h512 = await processOn(database, { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '512' }, key)
const [, bootMs] = await timed(() => createMaintenance(h512.deps)())
const backlog = await countBacklog(h512.deps.db)
// What a semantic or hybrid search adds: counting the caller's documents not embedded yet (here all of them).
const userId = (await queryRows<{ id: string }>(h512.deps.db, sql`select id from users limit 1`))[0]!.id
const counts: number[] = []
for (let i = 0; i < 50; i++)
  counts.push((await timed(() => countUnembedded(h512.deps.db, userId, sql`d.user_id = ${userId} and d.status = 'active'`)))[1])
console.log(
  `boot tick with hash-512: ${seconds(bootMs)} (marks ${backlog.pending} documents pending, starts the chain; includes VACUUM ANALYZE); the search notice's count p50/p95 ${pct(counts, 0.5)}/${pct(counts, 0.95)} ms`,
)
const [jobs512, reembedMs] = await timed(() => drainJobs(h512.deps, 'bench', REEMBED))
console.log(
  `re-embedding none → hash-512: ${jobs512} jobs in ${seconds(reembedMs)} = ${(corpus.length / (reembedMs / 1000)).toFixed(0)} docs/s; stale left ${await stale(h512.deps, 'hash-512')}`,
)
const [links, linksMs] = await timed(() => drainJobs(h512.deps, 'bench', ['suggest-links']))
console.log(`then link suggestions recomputed with the vectors: ${links} jobs in ${seconds(linksMs)}`)

// 3. A change of model (hash-512 → hash-256) re-embedded by the worker loop while searches run beside it.
const search = async (app: typeof h512, q: string) => {
  const started = performance.now()
  const res = await app.call('GET', `/api/search?mode=keyword&limit=10&q=${encodeURIComponent(q.slice(0, 200))}`)
  if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
  return performance.now() - started
}
const idle: number[] = []
for (let i = 0; i < SEARCHES; i++) idle.push(await search(h512, queries[i % queries.length]!.text))
const h256 = await processOn(database, { EMBEDDING_PROVIDER: 'hash', EMBEDDING_DIMENSIONS: '256' }, key)
await createMaintenance(h256.deps)()
// Searches at a steady RATE per second (not back to back: that would measure a saturated server).
const RATE = Number(process.env.BENCH_RATE ?? 10)
const busy: number[] = []
const [, changeMs] = await timed(async () => {
  const worker = startWorker(h256.deps, { pollMs: 50 })
  let [i, done] = [0, false]
  const watcher = (async () => {
    while ((await countBacklog(h256.deps.db)).pending > 0) await Bun.sleep(1000)
    done = true
  })()
  while (!done) {
    const tookMs = await search(h256, queries[i++ % queries.length]!.text)
    busy.push(tookMs)
    await Bun.sleep(Math.max(0, 1000 / RATE - tookMs))
  }
  await watcher
  await worker.stop()
})
console.log(
  `re-embedding hash-512 → hash-256 by the worker loop (link suggestions interleaved) with ${RATE} keyword searches/s beside it: ${seconds(changeMs)}; stale left ${await stale(h256.deps, 'hash-256')}`,
)
console.log(
  `keyword search (limit 10, app.handle) p50/p95: idle ${pct(idle, 0.5)}/${pct(idle, 0.95)} ms, during re-embedding ${pct(busy, 0.5)}/${pct(busy, 0.95)} ms (${busy.length} searches)`,
)
await database.close()
