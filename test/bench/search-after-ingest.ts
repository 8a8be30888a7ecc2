// bun run bench:search --after-ingest — keyword search as a new user meets it right after a large import: the service
// started as a real process on the embedded default (PGlite in a fresh DATA_DIR, EMBEDDING_PROVIDER=none), N
// SciFact-sized documents sent through POST /api/documents/bulk (2 clients, batches of 1,000), then SciFact's 150
// claims searched by keyword over HTTP, one at a time, three passes — p50/p95/p99/max per pass and over all, the
// slowest searches with when they ran, and what the service logged about its index cache meanwhile. bench:search's
// other measurements seed their corpus without the API and never see what a bulk ingest leaves behind (a cache
// load or catch-up, merges, background jobs, statistics).
// BENCH_DOCS (100,000), BENCH_PASSES (3), BENCH_KEEP_DIR=1 keeps the data directory; the service's own variables (KEYWORD_MEMORY_*, WORKER_IN_PROCESS, …) pass through.
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiKey, documentsOf, ingest, loadAverage, printIngest } from './bulk-ingest'
import { startService } from './load-setup'
import { loadScifact } from './scifact'

const N = Number(process.env.BENCH_DOCS ?? 100_000)
const PASSES = Number(process.env.BENCH_PASSES ?? 3)
const KNOBS = /^(WORKER_IN_PROCESS|WAL_MAX_MB|KEYWORD_MEMORY_\w+|VECTOR_MEMORY_\w+|LOG_LEVEL)$/
const knobs = Object.fromEntries(Object.entries(process.env).filter(([name]) => KNOBS.test(name))) as Record<string, string>

const scifact = loadScifact()
const docs = documentsOf(scifact.corpus, N)
const claims = scifact.queries.map((q) => q.text)
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const line = (times: number[]) => {
  const sorted = [...times].sort((a, b) => a - b)
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p95 ${percentile(sorted, 95).toFixed(1)}, p99 ${percentile(sorted, 99).toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)}`
}

console.log(
  `bench:search --after-ingest — ${N} SciFact-sized documents through POST /api/documents/bulk (2 clients, batches of 1,000), ` +
    `then ${claims.length} claims × ${PASSES} by keyword over HTTP, one at a time; ${availableParallelism()} cores, load average ${loadAverage()}` +
    `${Object.entries(knobs)
      .map(([k, v]) => `, ${k}=${v}`)
      .join('')}`,
)
const dataDir = mkdtempSync(join(tmpdir(), 'bench-after-ingest-'))
const service = await startService(
  {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LOG_LEVEL: 'debug',
    ...knobs,
    EMBEDDING_PROVIDER: 'none',
    DATA_DIR: dataDir,
  },
  1,
  false,
)
try {
  const url = service.urls[0]!
  const pid = service.processes[0]!.pid
  const key = await apiKey(url, 'bench:search')
  const result = await ingest(url, key, docs, pid, { clients: 2, batch: 1000 })
  printIngest(result, N)
  const ingested = performance.now()
  const headers = { authorization: `Bearer ${key}` }
  const all: { ms: number; at: number; pass: number; query: string }[] = []
  // Two probes every 50 ms while the searches run: a path no route has (the event loop alone) and GET / (the event
  // loop and one statement on the database's connection) — a search stalled with them is stalled by the process.
  const probes = { loop: [] as { at: number; ms: number }[], db: [] as { at: number; ms: number }[] }
  let probing = true
  const probe = async (path: string, into: { at: number; ms: number }[]) => {
    while (probing) {
      const sent = performance.now()
      await fetch(`${url}${path}`).then(
        (r) => r.arrayBuffer(),
        () => null,
      )
      into.push({ at: (sent - ingested) / 1000, ms: performance.now() - sent })
      await Bun.sleep(50)
    }
  }
  const probing_ = [probe('/no-such-path', probes.loop), probe('/', probes.db)]
  console.log(`  GET / right after the ingest: ${JSON.stringify(await (await fetch(url)).json())}`)
  for (let pass = 1; pass <= PASSES; pass++) {
    const times: number[] = []
    for (const query of claims) {
      const sent = performance.now()
      const params = new URLSearchParams({ q: query, mode: 'keyword', limit: '10' })
      const res = await fetch(`${url}/api/search?${params}`, { headers })
      if (res.status !== 200) throw new Error(`search: ${res.status} ${await res.text()}`)
      await res.arrayBuffer()
      const ms = performance.now() - sent
      times.push(ms)
      all.push({ ms, at: (sent - ingested) / 1000, pass, query })
    }
    console.log(`  pass ${pass}: ${line(times)}`)
  }
  probing = false
  await Promise.all(probing_)
  console.log(`  all ${all.length}: ${line(all.map((s) => s.ms))}`)
  for (const [name, samples] of Object.entries(probes)) {
    const slow = samples.filter((p) => p.ms > 100)
    console.log(
      `  probe ${name === 'loop' ? 'GET /no-such-path (event loop)' : 'GET / (event loop + database)'}: ${samples.length} samples, ${line(samples.map((p) => p.ms))}; ` +
        `over 100 ms: ${slow.map((p) => `${p.ms.toFixed(0)} ms at ${p.at.toFixed(1)} s`).join(', ') || 'none'}`,
    )
  }
  const slowest = [...all].sort((a, b) => b.ms - a.ms).slice(0, 5)
  console.log(
    `  slowest: ${slowest.map((s) => `${s.ms.toFixed(0)} ms (pass ${s.pass}, ${s.at.toFixed(1)} s after the ingest)`).join('; ')}`,
  )
  const cacheLines = service.processes[0]!.log.filter(
    (l) => /index|catch|merge|analy|checkpoint|vacuum|slow database/i.test(l) && !/"request"/.test(l),
  )
  if (process.env.BENCH_LOG_FILE) await Bun.write(process.env.BENCH_LOG_FILE, service.processes[0]!.log.join('\n'))
  console.log(`  the service logged (${cacheLines.length} lines about indexes, checkpoints, statistics):`)
  for (const l of cacheLines.slice(-20)) console.log(`    ${l.slice(0, 300)}`)
} finally {
  await service.stop()
  if (process.env.BENCH_KEEP_DIR) console.log(`  kept ${dataDir} (BENCH_KEEP_DIR)`)
  else rmSync(dataDir, { recursive: true, force: true })
}
