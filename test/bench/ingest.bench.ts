// bun run bench:ingest — documents per second through the HTTP API of a listening server on the embedded
// default: keyword-indexed on commit (concurrency 1 and 4), then fully embedded by the job worker per embedder.
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/deps'
import { drainJobs } from '../../src/jobs/worker'
import { loadScifact } from './scifact'

const N = Number(process.env.BENCH_DOCS ?? 2000)
const corpus = loadScifact().corpus.slice(0, N)

async function run(embeddingProvider: string, concurrency: number) {
  const deps = await createDeps(loadConfig({ DATA_DIR: 'memory://', LOG_LEVEL: 'warn', DEFAULT_PLAN: 'pro', PLAN_PRO_DOCUMENTS: '1000000', WORKER_IN_PROCESS: 'false', EMBEDDING_PROVIDER: embeddingProvider }))
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
  const embedStarted = performance.now()
  await drainJobs(deps)
  const embedSeconds = (performance.now() - embedStarted) / 1000
  console.log(
    `${corpus.length} docs, concurrency ${concurrency}, embedder ${deps.embedder?.id ?? 'none'}: ` +
      `${(corpus.length / ingestSeconds).toFixed(0)} docs/s keyword-indexed; ` +
      `jobs (embedding + link suggestions) ${(corpus.length / embedSeconds).toFixed(0)} docs/s; ` +
      `end to end ${(corpus.length / (ingestSeconds + embedSeconds)).toFixed(0)} docs/s`,
  )
  await server.stop()
  await deps.close()
}

console.log(`bench:ingest — SciFact abstracts (~1.5 KB each) through POST /api/documents on PGlite, ${navigator.hardwareConcurrency} cores`)
await run('none', 1)
await run('none', 4)
await run('hash', 4)
