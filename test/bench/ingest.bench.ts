// bun run bench:ingest — first the ingest rates (ingest-rates.ts): keyword-indexed documents per second through
// POST /api/documents/bulk (BENCH_BULK_DOCS, default 5,000, in batches of BENCH_BATCH, default 1,000) and through
// POST /api/documents one by one with BENCH_CLIENTS (8) clients (BENCH_SINGLE_DOCS, default 2,000), with no embedder.
// BENCH_EMBEDDING=1 (or EMBEDDING_PROVIDER set) then also measures, as before, documents per second through the
// HTTP API of a listening server on the embedded default: keyword-indexed on commit (concurrency 1 and 4), then
// fully embedded by the job worker per embedder.
// With EMBEDDING_PROVIDER set (e.g. `EMBEDDING_PROVIDER=local EMBEDDING_MODEL_PATH=../shared/models`), only that
// embedder is measured: chunks/s, tokens/s and documents/s through the service's embedding path (the queue's
// embedding jobs) beside the model alone on the same texts in the same run (throughput.ts). BENCH_DOCS (400;
// 2,000 without a provider) sets how many SciFact abstracts; BENCH_RESPONSIVENESS=1 adds keyword (and
// semantic) search latency and the ingest rate while the in-process worker drains a backlog of BENCH_BACKLOG
// (5,000) documents, against idle (responsiveness.ts).
import { loadavg } from 'node:os'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { drainJobs } from '../../src/jobs/worker'
import { printIngestRates } from './ingest-rates'
import { timeStatements } from './ingest-statements'
import { measureResponsiveness } from './responsiveness'
import { loadScifact } from './scifact'
import { modelAlone, printThroughput } from './throughput'

const N = Number(process.env.BENCH_DOCS ?? (process.env.EMBEDDING_PROVIDER ? 400 : 2000))
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 5000)
const scifact = loadScifact()
const corpus = scifact.corpus.slice(0, N)
const PROVIDER = process.env.EMBEDDING_PROVIDER
/** BENCH_RESPONSIVENESS=1: also keyword search p50/p99 and ingest rate while a backlog drains, against idle. */
const RESPONSIVENESS = process.env.BENCH_RESPONSIVENESS === '1'
const EMBEDDING_KINDS = ['embed-document', 'reembed-document'] as const
/** BENCH_STATEMENTS=1: the statements that held PGlite longest in each phase (ingest-statements.ts). */
const STATEMENTS = process.env.BENCH_STATEMENTS === '1'

async function run(embeddingProvider: string, concurrency: number) {
  const deps = await createDeps(
    loadConfig({
      ...process.env,
      DATA_DIR: 'memory://',
      LOG_LEVEL: 'warn',
      DEFAULT_PLAN: 'pro',
      PLAN_PRO_DOCUMENTS: '1000000',
      PLAN_PRO_SEARCH_PER_MIN: '1000000',
      WORKER_IN_PROCESS: 'false',
      EMBEDDING_PROVIDER: embeddingProvider,
    }),
  )
  if (embeddingProvider !== 'none' && !deps.embedder) throw new Error(`no embedder: ${deps.embeddingStatus.reason}`)
  const pglite = (deps.db as unknown as { $client?: import('@electric-sql/pglite').PGlite }).$client
  const statements = STATEMENTS && deps.dbKind === 'pglite' && pglite ? timeStatements(pglite) : null
  const server = Bun.serve({ port: 0, fetch: createApp(deps).fetch, maxRequestBodySize: 8 * 1024 * 1024 })
  const base = `http://127.0.0.1:${server.port}`
  const origin = deps.config.baseUrl
  const signUp = await fetch(`${base}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark password' }),
  })
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { key } = (await (await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin } })).json()) as { key: string }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const ingest = async (docs: typeof corpus) => {
    let next = 0
    const started = performance.now()
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < docs.length) {
          const doc = docs[next++]!
          const res = await fetch(`${base}/api/documents`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ title: doc.title, body: doc.text }),
          })
          if (res.status !== 201) throw new Error(`ingest: ${res.status} ${await res.text()}`)
        }
      }),
    )
    return (performance.now() - started) / 1000
  }
  const ingestSeconds = await ingest(corpus)
  // The model alone runs before and after the service, so a machine busier in one half skews neither side.
  const alone = deps.embedder && PROVIDER ? await modelAlone(deps) : null
  await alone?.run()
  statements?.reset()
  const embedStarted = performance.now()
  await drainJobs(deps, undefined, EMBEDDING_KINDS)
  const embedSeconds = (performance.now() - embedStarted) / 1000
  statements?.print('embedding jobs')
  await alone?.run(2)
  statements?.reset()
  const linksStarted = performance.now()
  await drainJobs(deps)
  const linksSeconds = (performance.now() - linksStarted) / 1000
  statements?.print('suggest-links jobs')
  console.log(
    `${corpus.length} docs, concurrency ${concurrency}, embedder ${deps.embedder?.id ?? 'none'}: ` +
      `${(corpus.length / ingestSeconds).toFixed(1)} docs/s keyword-indexed; ` +
      `embedding jobs ${(corpus.length / embedSeconds).toFixed(1)} docs/s; link suggestions ${(corpus.length / linksSeconds).toFixed(1)} docs/s; ` +
      `end to end ${(corpus.length / (ingestSeconds + embedSeconds + linksSeconds)).toFixed(1)} docs/s`,
  )
  if (alone) printThroughput(alone, corpus.length, embedSeconds)
  if (alone && RESPONSIVENESS) {
    // The backlog: more abstracts up to BENCH_BACKLOG (their jobs wait: no worker runs yet), all made stale again.
    const more = scifact.corpus.slice(N, Math.max(N, BACKLOG))
    if (more.length)
      console.log(`  ingesting ${more.length} more documents for the backlog: ${(more.length / (await ingest(more))).toFixed(1)} docs/s`)
    const extra = scifact.corpus.slice(Math.max(N, BACKLOG), Math.max(N, BACKLOG) + 150)
    await measureResponsiveness(
      deps,
      { base, headers },
      scifact.queries.slice(0, 200).map((q) => q.text),
      extra,
      statements,
    )
  }
  await server.stop()
  await deps.close()
}

const inference =
  process.env.EMBEDDING_PROVIDER === 'local'
    ? `; local model in a ${process.env.EMBEDDING_ISOLATION ?? 'process'} (nice ${process.env.EMBEDDING_NICE ?? 10}, ONNX threads ${process.env.EMBEDDING_THREADS ?? 'default'})`
    : ''
if (PROVIDER || process.env.BENCH_EMBEDDING === '1')
  console.log(
    `bench:ingest — SciFact abstracts (~1.5 KB each) through POST /api/documents on PGlite, ${navigator.hardwareConcurrency} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}${inference}`,
  )
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
if (!PROVIDER) {
  await printIngestRates(scifact.corpus, {
    bulkDocs: env('BENCH_BULK_DOCS', 5000),
    batch: env('BENCH_BATCH', 1000),
    singleDocs: env('BENCH_SINGLE_DOCS', 2000),
    clients: env('BENCH_CLIENTS', 8),
  })
}
if (PROVIDER) await run(PROVIDER, 4)
else if (process.env.BENCH_EMBEDDING === '1') {
  await run('none', 1)
  await run('none', 4)
  await run('hash', 4)
}
