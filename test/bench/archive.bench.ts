// Account archive rates: a BENCH_ARCHIVE_DOCS-document account (10,000: SciFact abstracts, taken twice under two
// titles when the corpus is shorter) exported through GET /api/account/export of a listening server, the zip read
// to its end, then imported into a fresh account through POST /api/account/import — documents per second each way,
// with the zip's size, the process's memory and the conditions printed. No embedder (imports queue embedding jobs
// that no worker runs here). BENCH_ON_DISK=1 puts PGlite in a data directory; DATABASE_URL runs on PostgreSQL.
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { loadScifact } from './scifact'

const N = Number(process.env.BENCH_ARCHIVE_DOCS ?? 10_000)
const corpus = loadScifact().corpus
const docs = Array.from({ length: N }, (_, i) => {
  const doc = corpus[i % corpus.length]!
  const round = Math.floor(i / corpus.length)
  return { title: round ? `${doc.title} (${round + 1})` : doc.title, body: doc.text }
})
const dataDir = process.env.BENCH_ON_DISK === '1' ? mkdtempSync(join(tmpdir(), 'archive-bench-')) : 'memory://'
const deps = await createDeps(
  loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DEFAULT_PLAN: 'pro',
    PLAN_PRO_DOCUMENTS: '1000000',
    WORKER_IN_PROCESS: 'false',
    EMBEDDING_PROVIDER: 'none',
  }),
)
const server = Bun.serve({ port: 0, fetch: createApp(deps).fetch, maxRequestBodySize: 128 * 1024 * 1024 })
const base = `http://127.0.0.1:${server.port}`
const origin = deps.config.baseUrl

async function signUp(email: string) {
  const res = await fetch(`${base}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email, password: 'benchmark password' }),
  })
  return res.headers.getSetCookie()[0]!.split(';')[0]!
}

/** The largest resident size seen while `work` runs (sampled every 50 ms). */
async function peakRss<T>(work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50)
  try {
    return { result: await work(), peak }
  } finally {
    clearInterval(timer)
  }
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`
const source = await signUp('archive-source@example.com')
const filling = performance.now()
for (let i = 0; i < docs.length; i += 1000) {
  const res = await fetch(`${base}/api/documents/bulk`, {
    method: 'POST',
    headers: { cookie: source, origin, 'content-type': 'application/json' },
    body: JSON.stringify({ documents: docs.slice(i, i + 1000) }),
  })
  if (res.status !== 200) throw new Error(`bulk: ${res.status} ${await res.text()}`)
}
const fillSeconds = (performance.now() - filling) / 1000
Bun.gc(true)
const rssBefore = process.memoryUsage.rss()

const exporting = performance.now()
const { result: zip, peak: exportPeak } = await peakRss(async () => {
  const res = await fetch(`${base}/api/account/export`, { headers: { cookie: source } })
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`)
  // Read as a client saving it would: chunk by chunk, kept (the import needs the bytes).
  const parts: Uint8Array[] = []
  const reader = res.body!.getReader()
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value)
  return new Uint8Array(await new Blob(parts as Uint8Array<ArrayBuffer>[]).arrayBuffer())
})
const exportSeconds = (performance.now() - exporting) / 1000

const target = await signUp('archive-target@example.com')
Bun.gc(true)
const importing = performance.now()
const { result: imported, peak: importPeak } = await peakRss(async () => {
  const res = await fetch(`${base}/api/account/import`, {
    method: 'POST',
    headers: { cookie: target, origin, 'content-type': 'application/zip' },
    body: zip,
  })
  if (res.status !== 200) throw new Error(`import: ${res.status} ${await res.text()}`)
  return (await res.json()) as { documents: { created: number } }
})
const importSeconds = (performance.now() - importing) / 1000
if (imported.documents.created !== N) throw new Error(`import created ${imported.documents.created} of ${N}`)

const chars = docs.reduce((n, d) => n + d.title.length + d.body.length, 0)
console.log(`bun run bench:files — account archive, ${new Date().toISOString().slice(0, 10)}`)
console.log(
  `conditions: ${N} documents (SciFact abstracts, ${Math.round(chars / N)} characters on average), ` +
    `${deps.dbKind === 'pglite' ? `PGlite ${dataDir === 'memory://' ? 'in memory' : 'in a data directory'}` : 'PostgreSQL'}, ` +
    `no embedder, ${availableParallelism()} cores (${cpus()[0]?.model.trim()}), load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, bun ${Bun.version}; filled by bulk ingest at ${Math.round(N / fillSeconds)} documents/s`,
)
console.log(
  `export: ${Math.round(N / exportSeconds)} documents/s (${exportSeconds.toFixed(1)} s), zip ${mib(zip.byteLength)}, ` +
    `peak RSS ${mib(exportPeak)} (${mib(exportPeak - rssBefore)} above the filled server)`,
)
console.log(
  `import: ${Math.round(N / importSeconds)} documents/s (${importSeconds.toFixed(1)} s, one transaction), ` +
    `peak RSS ${mib(importPeak)} (${mib(importPeak - rssBefore)} above the filled server)`,
)
server.stop(true)
await deps.close()
if (dataDir !== 'memory://') rmSync(dataDir, { recursive: true, force: true })
