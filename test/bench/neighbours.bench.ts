// bun run bench:neighbours — whether one account's bulk ingest stalls another's search on the embedded default:
// the service started as `bun start` starts it (its own process, the job worker in it) on PGlite in a fresh data
// directory, no embedder; this process is only its clients. User B holds SciFact abstracts and searches them in a
// loop (one search at a time) while user A sends back-to-back bulks of ≈30 KB documents (BENCH_BULKS, default 3,
// of BENCH_BULK_DOCS, default 1,000). Prints B's search latency idle and during the bulks (p50/p95/p99/max) and
// A's bulk rate.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { benchEnv, startService } from './load-setup'
import { loadScifact, type CorpusDoc } from './scifact'

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const BULKS = env('BENCH_BULKS', 3)
const BULK_DOCS = env('BENCH_BULK_DOCS', 1000)
const DOC_CHARS = env('BENCH_DOC_CHARS', 30_000)
const B_DOCS = env('BENCH_B_DOCS', 2000)
const IDLE_SEARCHES = env('BENCH_IDLE_SEARCHES', 200)
/** BENCH_SEARCHING=0: B does not search during the bulks, for A's rate alone. */
const SEARCHING = process.env.BENCH_SEARCHING !== '0'

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!
const latencies = (xs: number[]) =>
  `p50 ${pct(xs, 0.5).toFixed(0)} ms, p95 ${pct(xs, 0.95).toFixed(0)} ms, p99 ${pct(xs, 0.99).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.length} searches)`

/** A's documents: consecutive abstracts joined up to DOC_CHARS, each starting elsewhere and numbered, so no two are alike. */
function largeDocuments(corpus: CorpusDoc[], count: number, offset: number) {
  return Array.from({ length: count }, (_, i) => {
    const n = offset + i
    const parts: string[] = [`Collection note ${n}.`]
    let size = parts[0]!.length
    for (let j = (n * 7) % corpus.length; size < DOC_CHARS; j = (j + 1) % corpus.length) {
      parts.push(corpus[j]!.text)
      size += corpus[j]!.text.length + 2
    }
    return { title: `Note ${n}: ${corpus[(n * 7) % corpus.length]!.title}`, body: parts.join('\n\n') }
  })
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-neighbours-'))
const service = await startService(benchEnv({ DATA_DIR: dataDir, EMBEDDING_PROVIDER: 'none' }), 1, false)
const base = service.urls[0]!

async function account(name: string): Promise<Record<string, string>> {
  const origin = base
  const signUp = await fetch(`${base}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: `${name}-${crypto.randomUUID()}@example.com`, password: 'benchmark password' }),
  })
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { key } = (await (await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin } })).json()) as { key: string }
  return { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
}

/** Sends a batch and answers its seconds. The 30 MiB answer is not parsed (that would hold this process's one
 * thread, and B's timings with it): its counts close it. */
async function bulk(headers: Record<string, string>, body: Uint8Array<ArrayBuffer>, expected: number): Promise<number> {
  const started = performance.now()
  const res = await fetch(`${base}/api/documents/bulk`, { method: 'POST', headers, body })
  const bytes = new Uint8Array(await res.arrayBuffer())
  const tail = new TextDecoder().decode(bytes.subarray(Math.max(0, bytes.length - 200)))
  if (res.status !== 200 || !tail.includes(`"created":${expected},`)) throw new Error(`bulk: ${res.status} …${tail}`)
  return (performance.now() - started) / 1000
}

async function search(headers: Record<string, string>, q: string): Promise<number> {
  const started = performance.now()
  const res = await fetch(`${base}/api/search?q=${encodeURIComponent(q)}&limit=10`, { headers })
  if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`)
  await res.arrayBuffer()
  return performance.now() - started
}

const scifact = loadScifact()
const queries = scifact.queries.map((q) => q.text)
const [a, b] = [await account('a'), await account('b')]
for (let i = 0; i < B_DOCS; i += 1000) {
  const documents = scifact.corpus.slice(i, Math.min(B_DOCS, i + 1000)).map((d) => ({ title: d.title, body: d.text }))
  await bulk(b, new TextEncoder().encode(JSON.stringify({ documents })), documents.length)
}
// The bodies are built before anything is timed; only sending and serving them is.
const batches = Array.from({ length: BULKS }, (_, i) => largeDocuments(scifact.corpus, BULK_DOCS, i * BULK_DOCS))
const bodies = batches.map((documents) => new TextEncoder().encode(JSON.stringify({ documents })))
const averageChars = Math.round(batches.flat().reduce((n, d) => n + d.body.length, 0) / (BULKS * BULK_DOCS))

console.log(
  `bench:neighbours — the service in its own process (bun src/index.ts, worker in process), PGlite in a data directory, embedder none, ${navigator.hardwareConcurrency} cores, load average ${load()}`,
)
console.log(
  `  user A: ${BULKS} bulks of ${BULK_DOCS} documents (${averageChars} characters on average, ${(bodies[0]!.byteLength / 1024 ** 2).toFixed(1)} MiB a request), one after another`,
)
console.log(
  `  user B: ${B_DOCS} SciFact abstracts; ${SEARCHING ? 'searches (hybrid, the default mode) one at a time, in a loop' : 'no searches during the bulks (BENCH_SEARCHING=0)'}`,
)

const idle: number[] = []
for (let i = 0; i < IDLE_SEARCHES; i++) idle.push(await search(b, queries[i % queries.length]!))
console.log(`  B idle:          ${latencies(idle)}`)

const busy: number[] = []
let bulking = SEARCHING
const searcher = (async () => {
  for (let i = 0; bulking; i++) busy.push(await search(b, queries[i % queries.length]!))
})()
const before = load()
const started = performance.now()
const seconds: number[] = []
for (const body of bodies) seconds.push(await bulk(a, body, BULK_DOCS))
const total = (performance.now() - started) / 1000
bulking = false
await searcher
if (SEARCHING) console.log(`  B during A's bulks: ${latencies(busy)}`)
console.log(
  `  A: ${((BULKS * BULK_DOCS) / total).toFixed(0)} docs/s, ${(bodies.reduce((n, s) => n + s.byteLength, 0) / 1024 ** 2 / total).toFixed(1)} MiB/s ` +
    `(bulks of ${seconds.map((s) => s.toFixed(1)).join(', ')} s); load average ${before} → ${load()}`,
)
await service.stop()
rmSync(dataDir, { recursive: true, force: true })
