// bun run bench:storage — the embedded engine's cost, as a new user meets it: the service started as a real process
// (`bun src/index.ts`) on the embedded default (PGlite in a fresh DATA_DIR, EMBEDDING_PROVIDER=none), SciFact-sized
// documents sent through POST /api/documents/bulk (2 clients, batches of 1,000); prints the ingest rate (overall and
// per 10,000), pg_wal sampled every 100 ms against its bound, the data directory, pg_wal and base/ once the
// service's own checkpoint ran after the ingest's last keyword blocks were compacted (and after shutdown), the largest tables and indexes, the server
// process's RSS idle and after — and, in the same run, SQLite FTS5 (bun:sqlite) over the same documents as the
// reference. The figures end in a table beside the goals of the issue "The embedded engine's cost".
// Flags: --docs N (100,000: SciFact's 5,183 abstracts cycled), --settle S (330: how long to wait for the service's
// checkpoint after the ingest; it checkpoints within 5 min of a write), --clients N (2), --batch N (1,000),
// --postgres (also the same ingest on a real PostgreSQL, test/pg/server.ts: rate, RSS, table and index sizes).
import { Database } from 'bun:sqlite'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import postgres from 'postgres'
import { openPglite } from '../../db/client'
import { startPostgres } from '../pg/server'
import { apiKey, documentsOf, ingest as ingestBulk, type Ingest, loadAverage, printIngest } from './bulk-ingest'
import { startService, type Service } from './load-setup'
import { loadScifact } from './scifact'

const { values: flags } = parseArgs({
  options: {
    docs: { type: 'string', default: '100000' },
    settle: { type: 'string', default: '330' },
    clients: { type: 'string', default: '2' },
    batch: { type: 'string', default: '1000' },
    postgres: { type: 'boolean', default: false },
  },
})
const N = Number(flags.docs)
const SETTLE_S = Number(flags.settle)
const CLIENTS = Number(flags.clients)
const BATCH = Number(flags.batch)
/** Two maintenance ticks: a user's last keyword blocks are compacted within this of their last write. */
const QUIET_S = 25
/** How long the idle process is left before its RSS is read, and again after the ingest's checkpoint. */
const IDLE_S = 5
const MB = 1e6

// The goals of the issue, at 100,000 SciFact documents.
const GOAL = { dirTimesText: 5, docsPerSecond: 2000, idleRssMiB: 300 }

const ingest = (url: string, key: string, docs: { title: string; body: string }[], pid: number) =>
  ingestBulk(url, key, docs, pid, { clients: CLIENTS, batch: BATCH })

// ── Files ────────────────────────────────────────────────────────────────────────────────────────────────────

const SEGMENT = /^[0-9A-F]{24}$/
function sizeOf(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
/** pg_wal's segment files (24 hex digits), read from the directory. */
function walBytes(clusterDir: string): number {
  const dir = join(clusterDir, 'pg_wal')
  let total = 0
  try {
    for (const name of readdirSync(dir)) if (SEGMENT.test(name)) total += sizeOf(join(dir, name))
  } catch {}
  return total
}
/** Every regular file under a directory (apparent sizes, as `du --apparent-size`). */
function dirBytes(dir: string): number {
  let total = 0
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) total += dirBytes(path)
      else if (entry.isFile()) total += sizeOf(path)
    }
  } catch {}
  return total
}

function rssKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`))
  return Number(line?.split(/\s+/)[1] ?? NaN)
}
const rssMiB = (pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS') => rssKiB(pid, field) / 1024

const mb = (bytes: number) => (bytes / MB).toFixed(1)
const load = loadAverage

/** The service's settings a caller may set to see what they change (WAL_MAX_MB=512, WORKER_IN_PROCESS=false, …):
 * passed through and printed; everything else is the default a new user gets. */
const KNOBS = /^(WORKER_IN_PROCESS|WAL_MAX_MB|DISK_RESERVE_MB|DB_WATCHDOG_SECONDS|KEYWORD_MEMORY_\w+|VECTOR_MEMORY_\w+|LOG_LEVEL)$/
const knobs = Object.fromEntries(Object.entries(process.env).filter(([name]) => KNOBS.test(name))) as Record<string, string>

function serviceEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    LOG_LEVEL: 'warn',
    ...knobs,
    EMBEDDING_PROVIDER: 'none',
    ...extra,
  }
}

// ── The service ──────────────────────────────────────────────────────────────────────────────────────────────

interface Health {
  storage: { data_dir_bytes: number; wal_bytes: number; wal_limit_bytes: number; last_checkpoint_at: string | null } | null
}
const health = async (url: string) => (await (await fetch(url)).json()) as Health

async function stop(service: Service) {
  const started = performance.now()
  await service.stop()
  return (performance.now() - started) / 1000
}

// ── The embedded default ─────────────────────────────────────────────────────────────────────────────────────

interface Embedded {
  textBytes: number
  ingest: Ingest
  walMax: number
  walMaxApi: number
  walLimit: number
  checkpointsSeen: number
  settled: { dir: number; wal: number; base: number; checkpointed: boolean; waitedS: number }
  shutdown: { dir: number; wal: number; base: number }
  rssIdle: number
  rssAfterIngest: number
  rssSettled: number
  rssPeak: number
}

async function embedded(docs: { title: string; body: string }[], textBytes: number): Promise<Embedded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-storage-'))
  const cluster = join(dataDir, 'pglite')
  try {
    const env = serviceEnv({ DATA_DIR: dataDir })
    const service = await startService(env, 1, false)
    const url = service.urls[0]!
    const pid = service.processes[0]!.pid
    try {
      const key = await apiKey(url, 'bench:storage')
      await Bun.sleep(IDLE_S * 1000)
      const rssIdle = rssMiB(pid)
      const before = await health(url)
      if (!before.storage) throw new Error('GET / reports no storage: not the embedded database in DATA_DIR?')
      const walLimit = before.storage.wal_limit_bytes
      console.log(
        `\nembedded default: PGlite in ${dataDir}, EMBEDDING_PROVIDER=none, WAL bound ${mb(walLimit)} MB (WAL_MAX_MB); ` +
          `idle RSS ${rssIdle.toFixed(0)} MiB (${IDLE_S} s after start, user and key made); data dir ${mb(dirBytes(dataDir))} MB`,
      )

      // pg_wal from the files every 100 ms; GET / every second (its sizes are at most 5 s old), counting checkpoints.
      let walMax = 0
      let walMaxAt = Date.now()
      let walMaxApi = 0
      const checkpoints = new Set<string>()
      const sampleFiles = setInterval(() => {
        const wal = walBytes(cluster)
        if (wal > walMax) [walMax, walMaxAt] = [wal, Date.now()]
      }, 100)
      let polling = true
      const pollApi = (async () => {
        while (polling) {
          const s = (await health(url).catch(() => null))?.storage
          if (s) {
            walMaxApi = Math.max(walMaxApi, s.wal_bytes)
            if (s.last_checkpoint_at) checkpoints.add(s.last_checkpoint_at)
          }
          await Bun.sleep(1000)
        }
      })()
      // A failed request: what the service logged last says why.
      const result = await ingest(url, key, docs, pid).catch((error) => {
        console.error(`the service's last lines:\n${service.processes.flatMap((p) => p.log.slice(-30)).join('\n')}`)
        throw error
      })
      const rssAfterIngest = rssMiB(pid)
      printIngest(result, docs.length)
      console.log(
        `  right after: data dir ${mb(dirBytes(dataDir))} MB, pg_wal ${mb(walBytes(cluster))} MB, RSS ${rssAfterIngest.toFixed(0)} MiB`,
      )

      // The service's own checkpoint: GET / reports one that ended once the keyword index was compacted (the
      // maintenance compacts a user's last blocks after a tick without writes: within QUIET_S of the last write).
      const waitStarted = performance.now()
      let checkpointed = false
      while ((performance.now() - waitStarted) / 1000 < SETTLE_S) {
        const at = (await health(url)).storage?.last_checkpoint_at
        if (at && Date.parse(at) > result.endedAt + QUIET_S * 1000) {
          checkpointed = true
          checkpoints.add(at)
          break
        }
        await Bun.sleep(1000)
      }
      const waitedS = (performance.now() - waitStarted) / 1000
      await Bun.sleep(IDLE_S * 1000)
      polling = false
      clearInterval(sampleFiles)
      await pollApi
      walMax = Math.max(walMax, walBytes(cluster))
      const rssSettled = rssMiB(pid)
      const rssPeak = rssMiB(pid, 'VmHWM')
      const settled = { dir: dirBytes(dataDir), wal: walBytes(cluster), base: dirBytes(join(cluster, 'base')), checkpointed, waitedS }
      console.log(
        `  ${checkpointed ? `the service checkpointed ${waitedS.toFixed(0)} s after the ingest` : `no checkpoint by the service within ${SETTLE_S} s (--settle)`}; ` +
          `${IDLE_S} s later: data dir ${mb(settled.dir)} MB (${(settled.dir / textBytes).toFixed(2)}× the text), pg_wal ${mb(settled.wal)} MB, ` +
          `base/ ${mb(settled.base)} MB; RSS ${rssSettled.toFixed(0)} MiB (peak ${rssPeak.toFixed(0)} MiB)`,
      )
      console.log(
        `  pg_wal during the ingest and settle: max ${mb(walMax)} MB from the files every 100 ms (${mb(walMaxApi)} MB by GET / every 1 s), ` +
          `bound ${mb(walLimit)} MB — ${walMax <= walLimit ? 'within' : 'OVER'}; ${checkpoints.size} checkpoints seen by GET /`,
      )
      // With LOG_LEVEL=debug, what the service did in the 30 s before the peak: the maintenance's statements with the
      // log each wrote, and the statements slower than 100 ms (a bulk batch, a merge's slice).
      if (knobs.LOG_LEVEL === 'debug') {
        const before = service.processes[0]!.log.filter((l) => {
          const at = Date.parse(/"time":"([^"]+)"/.exec(l)?.[1] ?? '')
          return at > walMaxAt - 30_000 && at <= walMaxAt && /wal_mb|slow database statement/.test(l)
        })
        console.log(
          `  the 30 s before pg_wal's peak (${mb(walMax)} MB at ${new Date(walMaxAt).toISOString()}):\n    ${before.map((l) => l.slice(0, 240)).join('\n    ')}`,
        )
      }
      const errors = service.processes[0]!.log.filter((l) => /"level":"(error|fatal)"/.test(l))
      if (errors.length) console.log(`  logged errors (${errors.length}):\n    ${errors.slice(0, 3).join('\n    ')}`)

      const stopS = await stop(service)
      const shutdown = { dir: dirBytes(dataDir), wal: walBytes(cluster), base: dirBytes(join(cluster, 'base')) }
      console.log(
        `  after SIGTERM (stopped in ${stopS.toFixed(1)} s, shutdown checkpoint): data dir ${mb(shutdown.dir)} MB, pg_wal ${mb(shutdown.wal)} MB, base/ ${mb(shutdown.base)} MB`,
      )
      const other = readdirSync(dataDir).filter((f) => f !== 'pglite')
      if (other.length)
        console.log(
          `  beside pglite/ in DATA_DIR: ${other.map((f) => `${f} ${mb(dirBytes(join(dataDir, f)) || sizeOf(join(dataDir, f)))} MB`).join(', ')}`,
        )

      // The relations, read by opening the stopped service's directory with PGlite in this process.
      const pglite = await openPglite(dataDir, walLimit)
      try {
        await printRelations(async (q) => (await pglite.query<Record<string, unknown>>(q)).rows)
      } finally {
        await pglite.close()
      }
      return {
        textBytes,
        ingest: result,
        walMax,
        walMaxApi,
        walLimit,
        checkpointsSeen: checkpoints.size,
        settled,
        shutdown,
        rssIdle,
        rssAfterIngest,
        rssSettled,
        rssPeak,
      }
    } finally {
      await service.stop()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

// ── Relations ────────────────────────────────────────────────────────────────────────────────────────────────

const RELATIONS = `
  select c.relname as name, pg_table_size(c.oid)::bigint as table_bytes, pg_indexes_size(c.oid)::bigint as index_bytes,
    pg_total_relation_size(c.oid)::bigint as total_bytes, c.reltuples::bigint as rows
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'm', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
  order by pg_total_relation_size(c.oid) desc limit 15`
const INDEXES = `
  select i.relname as name, t.relname as on_table, am.amname as method, pg_relation_size(i.oid)::bigint as bytes
  from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid join pg_am am on am.oid = i.relam
  join pg_namespace n on n.oid = i.relnamespace
  where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
  order by pg_relation_size(i.oid) desc limit 15`
const DATABASE = `select pg_database_size(current_database())::bigint as bytes`

async function printRelations(query: (sql: string) => Promise<Record<string, unknown>[]>) {
  await query('analyze') // the rows' estimates: none before the first autovacuum (-1 on PostgreSQL, stale on PGlite)
  const [{ bytes }] = (await query(DATABASE)) as [{ bytes: number }]
  console.log(`  database: ${mb(Number(bytes))} MB (pg_database_size); the 15 largest tables (table = heap + TOAST):`)
  console.log('  | table | rows (estimate) | table MB | indexes MB | total MB |')
  console.log('  |---|---|---|---|---|')
  for (const r of await query(RELATIONS))
    console.log(
      `  | ${r.name} | ${Number(r.rows)} | ${mb(Number(r.table_bytes))} | ${mb(Number(r.index_bytes))} | ${mb(Number(r.total_bytes))} |`,
    )
  console.log('  the 15 largest indexes:')
  console.log('  | index | on | method | MB |')
  console.log('  |---|---|---|---|')
  for (const r of await query(INDEXES)) console.log(`  | ${r.name} | ${r.on_table} | ${r.method} | ${mb(Number(r.bytes))} |`)
  // What the ingest left queued for the worker (EMBEDDING_PROVIDER=none: no embedding jobs), by kind and status.
  const jobs = await query('select kind, status, count(*)::int as n from jobs group by kind, status order by kind, status')
  console.log(`  jobs: ${jobs.map((j) => `${j.kind} ${j.status} ${j.n}`).join(', ') || 'none'}`)
}

// ── SQLite FTS5, the reference ──────────────────────────────────────────────────────────────────────────────

/** A table holding the text and an FTS5 index over it (external content: the text stored once, as the service's
 * documents table holds it), default unicode61 tokenizer, in a temporary file. */
function fts5(docs: { title: string; body: string }[]) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fts5-'))
  const file = join(dir, 'fts5.db')
  try {
    const started = performance.now()
    const db = new Database(file, { create: true })
    db.run('create table docs (id integer primary key, title text not null, body text not null)')
    db.run("create virtual table docs_fts using fts5(title, body, content='docs', content_rowid='id')")
    const insertDoc = db.prepare('insert into docs (id, title, body) values (?, ?, ?)')
    const insertFts = db.prepare('insert into docs_fts (rowid, title, body) values (?, ?, ?)')
    for (let start = 0; start < docs.length; start += BATCH) {
      db.transaction(() => {
        for (let i = start; i < Math.min(docs.length, start + BATCH); i++) {
          insertDoc.run(i + 1, docs[i]!.title, docs[i]!.body)
          insertFts.run(i + 1, docs[i]!.title, docs[i]!.body)
        }
      })()
    }
    db.close()
    const seconds = (performance.now() - started) / 1000
    const bytes = sizeOf(file) + sizeOf(`${file}-wal`) + sizeOf(`${file}-journal`)
    const check = new Database(file, { readonly: true })
    const hits = (check.query("select count(*) as n from docs_fts where docs_fts match 'protein'").get() as { n: number }).n
    check.close()
    return { bytes, seconds, hits }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

// ── PostgreSQL ───────────────────────────────────────────────────────────────────────────────────────────────

async function onPostgres(docs: { title: string; body: string }[]) {
  const server = await startPostgres()
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-storage-pg-'))
  try {
    const admin = postgres(server.url, { max: 1, onnotice: () => {} })
    await admin.unsafe('create database storage_bench')
    await admin.end({ timeout: 5 })
    // The service refuses DATABASE_URL without ENCRYPTION_KEY (on the embedded default it makes one in DATA_DIR).
    const env = serviceEnv({ DATA_DIR: dataDir, DATABASE_URL: server.urlFor('storage_bench'), ENCRYPTION_KEY: 'ab'.repeat(32) })
    const service = await startService(env, 1, false)
    try {
      const url = service.urls[0]!
      const pid = service.processes[0]!.pid
      const key = await apiKey(url, 'bench:storage')
      await Bun.sleep(IDLE_S * 1000)
      const rssIdle = rssMiB(pid)
      const walBefore = walBytes(server.dataDir)
      console.log(
        `\nPostgreSQL 18 (test/pg/server.ts: fsync off, synchronous_commit off, full_page_writes off), one API process; idle RSS ${rssIdle.toFixed(0)} MiB`,
      )
      const result = await ingest(url, key, docs, pid)
      printIngest(result, docs.length, "the API process (the PostgreSQL server's own CPU not counted)")
      await Bun.sleep(IDLE_S * 1000)
      console.log(
        `  API process RSS after ${rssMiB(pid).toFixed(0)} MiB (peak ${rssMiB(pid, 'VmHWM').toFixed(0)} MiB); server's pg_wal ${mb(walBefore)} → ${mb(walBytes(server.dataDir))} MB (max_wal_size 1 GB, its default)`,
      )
      const sql = postgres(server.urlFor('storage_bench'), { max: 1, onnotice: () => {} })
      try {
        await sql.unsafe('checkpoint')
        await printRelations((q) => sql.unsafe(q) as Promise<Record<string, unknown>[]>)
      } finally {
        await sql.end({ timeout: 5 })
      }
    } finally {
      await service.stop()
    }
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

// ── The run ──────────────────────────────────────────────────────────────────────────────────────────────────

const { corpus } = loadScifact()
const docs = documentsOf(corpus, N)
const encoder = new TextEncoder()
const textBytes = docs.reduce((n, d) => n + encoder.encode(d.title).length + encoder.encode(d.body).length, 0)
console.log(
  `bench:storage — ${N} documents: SciFact's ${corpus.length} abstracts cycled (copy c ≥ 1 of an abstract: its sentences rotated by c places, ` +
    `"(copy c)" appended), ${mb(textBytes)} MB of text (titles and bodies, UTF-8), ${(textBytes / N).toFixed(0)} bytes a document`,
)
console.log(
  `  POST /api/documents/bulk, ${CLIENTS} clients, batches of ${BATCH}; ${availableParallelism()} cores, load average ${load()}, bun ${Bun.version}`,
)
console.log(
  `  the service's settings: its defaults, EMBEDDING_PROVIDER=none${Object.entries(knobs)
    .map(([k, v]) => `, ${k}=${v}`)
    .join('')}`,
)

const reference = fts5(docs)
console.log(
  `\nSQLite FTS5 (bun:sqlite, SQLite ${(new Database(':memory:').query('select sqlite_version() as v').get() as { v: string }).v}; ` +
    `a table with the text and an external-content FTS5 index, unicode61): ${mb(reference.bytes)} MB ` +
    `(${(reference.bytes / textBytes).toFixed(2)}× the text), built in ${reference.seconds.toFixed(1)} s ('protein' matches ${reference.hits})`,
)

const e = await embedded(docs, textBytes)

const met = (ok: boolean) => (ok ? 'met' : 'NOT met')
const rate = N / e.ingest.seconds
const times = e.settled.dir / textBytes
console.log('\nsummary (embedded default; goals of the issue at 100,000 SciFact documents)')
console.log('| measure | figure | goal | |')
console.log('|---|---|---|---|')
console.log(`| documents | ${N} | 100,000 | |`)
console.log(`| text | ${mb(textBytes)} MB | | |`)
console.log(
  `| data dir after ingest + the service's checkpoint | ${mb(e.settled.dir)} MB (${times.toFixed(2)}× text)${e.settled.checkpointed ? '' : ' — no checkpoint seen'} | ≤ ${GOAL.dirTimesText}× text | ${met(times <= GOAL.dirTimesText && e.settled.checkpointed)} |`,
)
console.log(`| data dir after shutdown | ${mb(e.shutdown.dir)} MB (${(e.shutdown.dir / textBytes).toFixed(2)}× text) | | |`)
console.log(
  `| pg_wal max (every 100 ms) / bound | ${mb(e.walMax)} / ${mb(e.walLimit)} MB | ≤ bound throughout | ${met(e.walMax <= e.walLimit)} |`,
)
console.log(`| pg_wal after the checkpoint | ${mb(e.settled.wal)} MB | | |`)
console.log(`| base/ | ${mb(e.settled.base)} MB | | |`)
console.log(`| bulk ingest | ${rate.toFixed(0)} docs/s | ≥ ${GOAL.docsPerSecond} docs/s | ${met(rate >= GOAL.docsPerSecond)} |`)
console.log(`| RSS idle | ${e.rssIdle.toFixed(0)} MiB | ≤ ${GOAL.idleRssMiB} MiB | ${met(e.rssIdle <= GOAL.idleRssMiB)} |`)
console.log(
  `| RSS after ingest / settled / peak | ${e.rssAfterIngest.toFixed(0)} / ${e.rssSettled.toFixed(0)} / ${e.rssPeak.toFixed(0)} MiB | | |`,
)
console.log(
  `| FTS5 file / build | ${mb(reference.bytes)} MB (${(reference.bytes / textBytes).toFixed(2)}× text) / ${reference.seconds.toFixed(1)} s | reference | |`,
)
if (flags.postgres) await onPostgres(docs)
