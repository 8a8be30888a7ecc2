// bun run bench:retrieval — ingests BEIR SciFact through the HTTP API of a listening server on the embedded
// default (PGlite) and prints nDCG@10 and Recall@100 on the 150-query dev split for each search mode, with the
// latency of each mode at the default page size. The embedder: EMBEDDING_PROVIDER when set, else the real
// model (bge-small-en-v1.5 int8 from ../shared/models) when its folder is there, else the hash embedder.
import { vacuumAnalyzeAll } from '../../src/jobs/table-upkeep'
import { drainJobs } from '../../src/jobs/worker'
import { benchEnv, signUpWithKey, startBenchServer } from './bench-server'
import { mean, ndcgAt, recallAt } from './metrics'
import { loadScifact } from './scifact'

const env = benchEnv({
  DATA_DIR: 'memory://',
  LOG_LEVEL: 'warn',
  DEFAULT_PLAN: 'pro',
  PLAN_PRO_SEARCH_PER_MIN: '1000000',
  PLAN_PRO_DOCUMENTS: '1000000',
  WORKER_IN_PROCESS: 'false',
})
const { deps, server, base, origin } = await startBenchServer(env)
const auth = await signUpWithKey(base, origin, 'bench@example.com')

const scifact = loadScifact()
const { queries, qrels } = scifact
const corpus = scifact.corpus.slice(0, Number.isFinite(Number(process.env.BENCH_DOCS)) ? Number(process.env.BENCH_DOCS) : undefined)
const toBeir = new Map<string, string>()
let started = performance.now()
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4)
for (let i = 0; i < corpus.length; i += CONCURRENCY) {
  await Promise.all(
    corpus.slice(i, i + CONCURRENCY).map(async (doc) => {
      const res = await fetch(`${base}/api/documents`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ title: doc.title || undefined, body: doc.text, source_ref: `scifact:${doc._id}` }),
      })
      if (!res.ok) throw new Error(`ingest ${doc._id}: ${res.status} ${await res.text()}`)
      toBeir.set(((await res.json()) as { id: string }).id, doc._id)
    }),
  )
}
const ingestSeconds = (performance.now() - started) / 1000
console.log(
  `ingested ${corpus.length} documents in ${ingestSeconds.toFixed(1)} s (${(corpus.length / ingestSeconds).toFixed(0)} docs/s, concurrency ${CONCURRENCY}), keyword-searchable on commit`,
)
started = performance.now()
const jobs = await drainJobs(deps)
const embedSeconds = (performance.now() - started) / 1000
console.log(
  `embedder ${deps.embeddingStatus.available ? `${deps.embedder!.id} (${deps.embeddingStatus.dtype ?? 'n/a'})` : `unavailable (${deps.embeddingStatus.reason})`}: ${jobs} embed jobs in ${embedSeconds.toFixed(1)} s (${(corpus.length / embedSeconds).toFixed(0)} docs/s)`,
)
// What the server's maintenance tick does within 10 s of a bulk ingest (PGlite has no autovacuum).
await vacuumAnalyzeAll(deps)

// Hybrid is measured twice when the embedder has a feedback step: as the service runs it, and with the step off
// (the same vectors, so the difference is the step's alone).
const feedback = deps.embedder?.feedbackWeight ?? 0
const runs = deps.embedder ? ['keyword', 'semantic', ...(feedback > 0 ? ['hybrid-without-feedback'] : []), 'hybrid'] : ['keyword']
for (const run of runs) {
  const mode = run.startsWith('hybrid') ? 'hybrid' : run
  if (deps.embedder) deps.embedder.feedbackWeight = run === 'hybrid-without-feedback' ? 0 : feedback
  const ndcg: number[] = []
  const recall: number[] = []
  const took: number[] = []
  let any = 0
  for (const q of queries) {
    started = performance.now()
    const res = await fetch(`${base}/api/search?${new URLSearchParams({ q: q.text, limit: '100', mode })}`, { headers: auth })
    took.push(performance.now() - started)
    const body = (await res.json()) as { mode: string; matched: string; results: { document: { id: string } }[] }
    if (body.matched === 'any') any++
    const ranked = body.results.map((r) => toBeir.get(r.document.id)!)
    ndcg.push(ndcgAt(ranked, qrels.get(q._id)!))
    recall.push(recallAt(ranked, qrels.get(q._id)!))
  }
  took.sort((a, b) => a - b)
  console.log(
    `${(run === 'hybrid' && feedback > 0 ? `hybrid (feedback ${feedback})` : run).padEnd(8)} nDCG@10 ${mean(ndcg).toFixed(4)}  Recall@100 ${mean(recall).toFixed(4)}  ` +
      `(${queries.length} dev queries; OR fill on ${any}; HTTP p50 ${took[Math.floor(took.length / 2)]!.toFixed(1)} ms at limit 100)`,
  )
}
// Latency of each mode at the default page size (limit 10), sequential, after one warm-up pass; and the first
// 10 of limit 10 must be the first 10 of limit 100 (a page size never changes the ranking).
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!
for (const mode of deps.embedder ? (['keyword', 'semantic', 'hybrid'] as const) : (['keyword'] as const)) {
  for (const pass of ['warm-up', 'measured']) {
    const took: number[] = []
    for (const q of queries) {
      const t0 = performance.now()
      await (await fetch(`${base}/api/search?${new URLSearchParams({ q: q.text, mode })}`, { headers: auth })).arrayBuffer()
      took.push(performance.now() - t0)
    }
    took.sort((a, b) => a - b)
    if (pass === 'measured')
      console.log(
        `${mode.padEnd(8)} latency at limit 10 over HTTP: p50 ${pct(took, 0.5).toFixed(1)} ms, p95 ${pct(took, 0.95).toFixed(1)} ms, p99 ${pct(took, 0.99).toFixed(1)} ms (${corpus.length} docs, concurrency 1)`,
      )
  }
}
await server.stop()
await deps.close()
