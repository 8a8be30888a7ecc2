// bun run bench:ingest — documents per second through the HTTP API of a listening server on the embedded
// default: keyword-indexed on commit (concurrency 1 and 4), then fully embedded by the job worker per embedder.
// With EMBEDDING_PROVIDER set (e.g. `EMBEDDING_PROVIDER=local EMBEDDING_MODEL_PATH=../shared/models`), only that
// embedder is measured: chunks/s, tokens/s and documents/s through the service's embedding path (the queue's
// embedding jobs), beside what the model alone reaches on the same texts in the same run (sorted by length,
// in batches of 32 before and after the service, and one text per pass; no database). BENCH_DOCS (2,000) sets
// how many SciFact abstracts; BENCH_RESPONSIVENESS=1 adds keyword search latency and ingest rate while the
// in-process worker drains a backlog (responsiveness.ts).
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps, type Deps } from '../../src/deps'
import { drainJobs } from '../../src/jobs/worker'
import { measureResponsiveness } from './responsiveness'
import { loadScifact } from './scifact'

const N = Number(process.env.BENCH_DOCS ?? 2000)
const scifact = loadScifact()
const corpus = scifact.corpus.slice(0, N)
const PROVIDER = process.env.EMBEDDING_PROVIDER
/** BENCH_RESPONSIVENESS=1: also keyword search p50/p99 and ingest rate while a backlog drains, against idle. */
const RESPONSIVENESS = process.env.BENCH_RESPONSIVENESS === '1'
const EMBEDDING_KINDS = ['embed-document', 'reembed-document'] as const

async function run(embeddingProvider: string, concurrency: number) {
  const deps = await createDeps(loadConfig({ ...process.env, DATA_DIR: 'memory://', LOG_LEVEL: 'warn', DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '1000000', PLAN_PRO_SEARCH_PER_MIN: '1000000', WORKER_IN_PROCESS: 'false', EMBEDDING_PROVIDER: embeddingProvider }))
  if (embeddingProvider !== 'none' && !deps.embedder) throw new Error(`no embedder: ${deps.embeddingStatus.reason}`)
  const server = Bun.serve({ port: 0, fetch: createApp(deps).fetch, maxRequestBodySize: 8 * 1024 * 1024 })
  const base = `http://127.0.0.1:${server.port}`
  const origin = deps.config.baseUrl
  const signUp = await fetch(`${base}/api/auth/sign-up`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ email: 'bench@example.com', password: 'benchmark password' }) })
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { key } = (await (await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin } })).json()) as { key: string }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < corpus.length) {
        const doc = corpus[next++]!
        const res = await fetch(`${base}/api/documents`, { method: 'POST', headers, body: JSON.stringify({ title: doc.title, body: doc.text }) })
        if (res.status !== 201) throw new Error(`ingest: ${res.status} ${await res.text()}`)
      }
    }),
  )
  const ingestSeconds = (performance.now() - started) / 1000
  // The model alone runs before and after the service, so a machine busier in one half skews neither side.
  const alone = deps.embedder ? await modelAlone(deps) : null
  const embedStarted = performance.now()
  await drainJobs(deps, undefined, EMBEDDING_KINDS)
  const embedSeconds = (performance.now() - embedStarted) / 1000
  const linksStarted = performance.now()
  await drainJobs(deps)
  const linksSeconds = (performance.now() - linksStarted) / 1000
  console.log(
    `${corpus.length} docs, concurrency ${concurrency}, embedder ${deps.embedder?.id ?? 'none'}: ` +
      `${(corpus.length / ingestSeconds).toFixed(1)} docs/s keyword-indexed; ` +
      `embedding jobs ${(corpus.length / embedSeconds).toFixed(1)} docs/s; link suggestions ${(corpus.length / linksSeconds).toFixed(1)} docs/s; ` +
      `end to end ${(corpus.length / (ingestSeconds + embedSeconds + linksSeconds)).toFixed(1)} docs/s`,
  )
  if (alone) {
    const after = await alone.run(32)
    const rates = (s: number) =>
      `${(alone.texts.length / s).toFixed(1)} chunks/s, ${alone.tokens ? `${(alone.tokens / s).toFixed(0)} tokens/s, ` : ''}${(corpus.length / s).toFixed(1)} docs/s (${s.toFixed(1)} s)`
    const batched = (alone.before + after) / 2
    console.log(`  ${alone.texts.length} chunks${alone.tokens ? `, ${alone.tokens} tokens` : ''}`)
    console.log(`  service (embedding jobs): ${rates(embedSeconds)}`)
    console.log(`  model alone, sorted, batches of 32 (before / after the service): ${rates(alone.before)} / ${rates(after)}`)
    console.log(`  model alone, one text per pass: ${rates(alone.single)}`)
    console.log(`  service / model alone: ${((100 * batched) / embedSeconds).toFixed(0)} % of batches of 32, ${((100 * alone.single) / embedSeconds).toFixed(0)} % of one text per pass`)
    if (RESPONSIVENESS) await measureResponsiveness(deps, { base, headers }, scifact.queries.slice(0, 200).map((q) => q.text), scifact.corpus.slice(N, N + 100))
  }
  await server.stop()
  await deps.close()
}

/** The texts the service will embed (its chunks), embedded by the model alone: the ceiling it is held to. */
async function modelAlone(deps: Deps) {
  const rows = await queryRows<{ content: string }>(deps.db, sql`select content from chunks`)
  const texts = rows.map((r) => r.content).sort((a, b) => a.length - b.length)
  const tokens = await countTokens(deps, texts)
  const model = deps.embedder!.model as unknown as { doEmbed(o: { values: string[] }): Promise<unknown> }
  const run = async (size: number) => {
    const started = performance.now()
    for (let i = 0; i < texts.length; i += size) await model.doEmbed({ values: texts.slice(i, i + size) })
    return (performance.now() - started) / 1000
  }
  return { texts, tokens, run, before: await run(32), single: await run(1) }
}

/** Tokens the local model sees (its tokenizer, truncated at 512); null for other providers. */
async function countTokens(deps: Deps, texts: string[]): Promise<number | null> {
  if (deps.embedder?.provider !== 'local') return null
  const { AutoTokenizer } = await import('@huggingface/transformers')
  const tokenizer = await AutoTokenizer.from_pretrained(deps.config.embeddings.model)
  let total = 0
  for (const text of texts) total += Math.min(512, tokenizer.encode(text).length)
  return total
}

console.log(`bench:ingest — SciFact abstracts (~1.5 KB each) through POST /api/documents on PGlite, ${navigator.hardwareConcurrency} cores`)
if (PROVIDER) await run(PROVIDER, 4)
else {
  await run('none', 1)
  await run('none', 4)
  await run('hash', 4)
}
