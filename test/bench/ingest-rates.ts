// The ingest rates of bench:ingest: keyword-indexed documents per second through POST /api/documents/bulk
// (batches of BENCH_BATCH, default 1,000, one client) and through POST /api/documents one by one (8 clients),
// each on a fresh in-memory PGlite (or, with DATABASE_URL, a new account on that PostgreSQL) with no embedder,
// over a listening server.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { timeStatements } from './ingest-statements'
import type { CorpusDoc } from './scifact'

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')

/** BENCH_ON_DISK=1: PGlite in a fresh directory under the system's temporary one (as the service runs by default),
 * instead of in memory — whose files grow by copying (Emscripten's MEMFS), a cost a data directory does not pay. */
const ON_DISK = process.env.BENCH_ON_DISK === '1'
/** BENCH_STATEMENTS=1: the statements that held PGlite longest while each rate was measured (ingest-statements.ts). */
const STATEMENTS = process.env.BENCH_STATEMENTS === '1'

async function serve() {
  const dataDir = ON_DISK ? mkdtempSync(join(tmpdir(), 'bench-ingest-')) : 'memory://'
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
  const pglite = deps.dbKind === 'pglite' ? (deps.db as unknown as { $client?: import('@electric-sql/pglite').PGlite }).$client : undefined
  const statements = STATEMENTS && pglite ? timeStatements(pglite) : null
  const server = Bun.serve({ port: 0, fetch: createApp(deps).fetch, maxRequestBodySize: 64 * 1024 * 1024 })
  const base = `http://127.0.0.1:${server.port}`
  const origin = deps.config.baseUrl
  const signUp = await fetch(`${base}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email: `bench-${crypto.randomUUID()}@example.com`, password: 'benchmark password' }),
  })
  const cookie = signUp.headers.getSetCookie()[0]!.split(';')[0]!
  const { key } = (await (await fetch(`${base}/api/keys`, { method: 'POST', headers: { cookie, origin } })).json()) as { key: string }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  statements?.reset()
  const close = async (label: string) => {
    statements?.print(label, 10)
    await server.stop()
    await deps.close()
    if (ON_DISK) rmSync(dataDir, { recursive: true, force: true })
  }
  return { base, headers, close }
}

/** A rate in wall-clock time, and in this process's CPU time (server and client share it): on a machine that
 * others keep busy, the second says what the code does with the CPU it gets. */
export interface Rate {
  wall: number
  cpu: number
}

function timer() {
  const [started, cpu] = [performance.now(), process.cpuUsage()]
  return (n: number): Rate => {
    const used = process.cpuUsage(cpu)
    return { wall: n / ((performance.now() - started) / 1000), cpu: n / ((used.user + used.system) / 1e6) }
  }
}

/** Documents per second through the bulk route, one batch after another. */
export async function bulkRate(docs: CorpusDoc[], batch: number): Promise<Rate> {
  const { base, headers, close } = await serve()
  const rate = timer()
  for (let i = 0; i < docs.length; i += batch) {
    const documents = docs.slice(i, i + batch).map((d) => ({ title: d.title, body: d.text }))
    const res = await fetch(`${base}/api/documents/bulk`, { method: 'POST', headers, body: JSON.stringify({ documents }) })
    const body = (await res.json()) as { created: number }
    if (res.status !== 200 || body.created !== documents.length)
      throw new Error(`bulk: ${res.status} ${JSON.stringify(body).slice(0, 300)}`)
  }
  const result = rate(docs.length)
  await close('bulk')
  return result
}

/** Messages per second through POST /api/threads/:id/messages: the same texts as one thread's messages, said in
 * turn by two speakers, in batches of `batch` — bulk ingest of a conversation, beside bulkRate's documents. */
export async function messagesRate(docs: CorpusDoc[], batch: number): Promise<Rate> {
  const { base, headers, close } = await serve()
  const thread = await fetch(`${base}/api/threads`, { method: 'POST', headers, body: JSON.stringify({ title: 'bench' }) })
  const { id } = (await thread.json()) as { id: string }
  const start = Date.parse('2023-05-08T13:56:00Z')
  const rate = timer()
  for (let i = 0; i < docs.length; i += batch) {
    const messages = docs.slice(i, i + batch).map((d, j) => ({
      speaker: (i + j) % 2 ? 'Caroline' : 'Melanie',
      content: `${d.title} ${d.text}`,
      occurred_at: new Date(start + (i + j) * 60_000).toISOString(),
    }))
    const res = await fetch(`${base}/api/threads/${id}/messages`, { method: 'POST', headers, body: JSON.stringify({ messages }) })
    const body = (await res.json()) as { created: number }
    if (res.status !== 200 || body.created !== messages.length)
      throw new Error(`messages: ${res.status} ${JSON.stringify(body).slice(0, 300)}`)
  }
  const result = rate(docs.length)
  await close('messages')
  return result
}

/** Documents per second through POST /api/documents with `clients` clients. */
export async function oneByOneRate(docs: CorpusDoc[], clients: number): Promise<Rate> {
  const { base, headers, close } = await serve()
  let next = 0
  const rate = timer()
  await Promise.all(
    Array.from({ length: clients }, async () => {
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
  const result = rate(docs.length)
  await close('one by one')
  return result
}

const shown = (r: Rate) => `${r.wall.toFixed(0)} docs/s (${r.cpu.toFixed(0)} per CPU-second of this process)`

export async function printIngestRates(
  corpus: CorpusDoc[],
  options: { bulkDocs: number; batch: number; singleDocs: number; clients: number },
) {
  const bulkDocs = corpus.slice(0, options.bulkDocs)
  const singleDocs = corpus.slice(0, options.singleDocs)
  const chars = (docs: CorpusDoc[]) => Math.round(docs.reduce((n, d) => n + d.title.length + d.text.length, 0) / docs.length)
  const database = process.env.DATABASE_URL ? 'PostgreSQL at DATABASE_URL' : ON_DISK ? 'PGlite on disk' : 'PGlite in memory'
  console.log(`ingest rates — keyword-indexed at commit, embedder none, ${database}, ${navigator.hardwareConcurrency} cores`)
  let before = load()
  const bulk = await bulkRate(bulkDocs, options.batch)
  console.log(
    `  bulk:        ${shown(bulk)} — ${bulkDocs.length} SciFact documents (${chars(bulkDocs)} characters on average) in batches of ${options.batch}, 1 client; load average ${before} → ${load()}`,
  )
  before = load()
  const messages = await messagesRate(bulkDocs, options.batch)
  console.log(
    `  messages:    ${shown(messages).replace('docs/s', 'messages/s')} — the same texts as one thread's messages, in batches of ${options.batch}, 1 client; load average ${before} → ${load()}`,
  )
  before = load()
  const single = await oneByOneRate(singleDocs, options.clients)
  console.log(
    `  one by one:  ${shown(single)} — ${singleDocs.length} SciFact documents (${chars(singleDocs)} characters on average), ${options.clients} clients; load average ${before} → ${load()}`,
  )
}
