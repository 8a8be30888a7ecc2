// bench:load's setups: a corpus seeded once (users with keys, SciFact abstracts indexed as the API indexes them), and
// the service started on it the production way (`bun src/index.ts`, `bun src/jobs/main.ts`): the embedded default
// in one process, or one or two API processes and a worker on a real PostgreSQL.
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import postgres from 'postgres'
import { documents } from '../../db/schema'
import { createApp } from '../../src/app'
import { loadConfig } from '../../src/config'
import { createDeps } from '../../src/create-deps'
import { drainJobs } from '../../src/jobs/worker'
import { LOCK_FILE } from '../../src/lib/data-dir-lock'
import { contentHash, deriveExcerpt, deriveTitle, sizeOf } from '../../src/modules/documents/documents.model'
import { resolveWorkspaceId } from '../../src/modules/workspaces/workspaces.service'
import { indexDocument } from '../../src/retrieval/indexing'
import { startPostgres, type PgServer } from '../pg/server'
import type { CorpusDoc } from './scifact'

const ROOT = new URL('../../', import.meta.url).pathname

export interface LoadUser {
  key: string
  /** Ids of the user's preloaded documents (the reads pick among them). */
  ids: string[]
}

/** The service's environment in every setup. The rates are counted (the statement runs) but set out of reach, and
 * the caps lifted, so what is measured is the request path and not the limiter refusing. */
export function benchEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ENCRYPTION_KEY: 'ab'.repeat(32),
    EMBEDDING_PROVIDER: process.env.EMBEDDING_PROVIDER ?? 'none',
    ...(process.env.EMBEDDING_MODEL_PATH ? { EMBEDDING_MODEL_PATH: process.env.EMBEDDING_MODEL_PATH } : {}),
    DEFAULT_PLAN: 'unlimited',
    PLAN_UNLIMITED_SEARCH_PER_MIN: '100000000',
    PLAN_UNLIMITED_ASK_PER_MIN: '100000000',
    LOG_LEVEL: 'warn',
    DB_WATCHDOG_SECONDS: '0',
    ...extra,
  }
}

/** Signs up `users` accounts with a key each and indexes `docs` among them (round robin), in batches of one
 * transaction, through the API's own indexDocument; the embedding jobs are drained, so the run starts idle. */
export async function seed(env: Record<string, string>, users: number, docs: CorpusDoc[]): Promise<LoadUser[]> {
  const config = loadConfig({ ...env, WORKER_IN_PROCESS: 'false' })
  const deps = await createDeps(config)
  try {
    const app = createApp(deps)
    const made: (LoadUser & { id: string })[] = []
    for (let u = 0; u < users; u++) {
      const post = (path: string, body: unknown, cookie?: string) =>
        app.handle(
          new Request(`${config.baseUrl}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: config.baseUrl, ...(cookie ? { cookie } : {}) },
            body: JSON.stringify(body),
          }),
        )
      const signed = await post('/api/auth/sign-up', {
        email: `load-${u}-${crypto.randomUUID().slice(0, 8)}@example.com`,
        password: 'correct horse battery',
      })
      if (signed.status !== 201) throw new Error(`sign-up: ${signed.status} ${await signed.text()}`)
      const cookie = signed.headers.get('set-cookie')!.split(';')[0]!
      const id = ((await signed.json()) as { user: { id: string } }).user.id
      const key = await post('/api/keys', { label: 'load' }, cookie)
      if (key.status !== 201) throw new Error(`key: ${key.status} ${await key.text()}`)
      made.push({ id, key: ((await key.json()) as { key: string }).key, ids: [] })
    }
    const BATCH = 250
    for (let start = 0; start < docs.length; start += BATCH) {
      await deps.db.transaction(async (tx) => {
        for (let i = start; i < Math.min(docs.length, start + BATCH); i++) {
          const user = made[i % users]!
          const { title, text: body } = docs[i]!
          const excerpt = deriveExcerpt(body)
          const now = deps.clock.now()
          const [doc] = await tx
            .insert(documents)
            .values({
              id: deps.ids.next(),
              user_id: user.id,
              workspace_id: await resolveWorkspaceId(tx, user.id, undefined),
              title: title.trim() || deriveTitle(body, null),
              excerpt,
              body,
              tags: [],
              url: null,
              content_hash: contentHash(body),
              size_bytes: sizeOf({ title, excerpt, body }),
              index_status: 'pending',
              kind: 'document',
              status: 'active',
              source: 'api',
              source_ref: null,
              pinned: false,
              metadata: {},
              created_at: now,
              updated_at: now,
            })
            .returning()
          await indexDocument(tx, deps, doc!)
          user.ids.push(doc!.id)
        }
      })
    }
    await drainJobs(deps)
    return made.map(({ key, ids }) => ({ key, ids }))
  } finally {
    await deps.close()
  }
}

export interface Service {
  /** The API processes' base URLs; clients are split among them. */
  urls: string[]
  /** Each process's pid and the lines it logged. */
  processes: { pid: number; role: string; log: string[] }[]
  stop(): Promise<void>
}

function spawn(args: string[], env: Record<string, string>, role: string) {
  const proc = Bun.spawn(['bun', ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' })
  const log: string[] = []
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const decoder = new TextDecoder()
      const reader = stream.getReader()
      for (let r = await reader.read(); !r.done; r = await reader.read()) log.push(...decoder.decode(r.value).split('\n').filter(Boolean))
    })()
  }
  return { proc, log, role }
}

async function stopAll(procs: { proc: Subprocess }[]) {
  await Promise.all(
    procs.map(async ({ proc }) => {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
      await proc.exited
      clearTimeout(timer)
    }),
  )
}

/** Starts the API processes (and a worker when `worker`), waiting until each answers GET /. */
export async function startService(env: Record<string, string>, apis: number, worker: boolean): Promise<Service> {
  const started: ReturnType<typeof spawn>[] = []
  const urls: string[] = []
  try {
    for (let i = 0; i < apis; i++) {
      const port = await freePort()
      const url = `http://127.0.0.1:${port}`
      // BENCH_CPU_PROF_DIR=dir: each API process writes a CPU profile there (Markdown, grep-friendly) when it stops.
      const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof-md', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : []
      started.push(
        spawn([...profile, '--max-http-header-size=524288', 'src/index.ts'], { ...env, PORT: String(port), BASE_URL: url }, `api ${i + 1}`),
      )
      urls.push(url)
    }
    if (worker) started.push(spawn(['src/jobs/main.ts'], env, 'worker'))
    for (const [i, url] of urls.entries()) {
      const deadline = Date.now() + 60_000
      while (
        !(await fetch(url).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (started[i]!.proc.exitCode !== null || Date.now() > deadline)
          throw new Error(`${url} did not start:\n${started[i]!.log.slice(-10).join('\n')}`)
        await Bun.sleep(100)
      }
    }
  } catch (error) {
    await stopAll(started)
    throw error
  }
  return { urls, processes: started.map((s) => ({ pid: s.proc.pid, role: s.role, log: s.log })), stop: () => stopAll(started) }
}

/** The embedded default: PGlite under a DATA_DIR seeded once; each run gets a copy of it. */
export async function embeddedCorpus(users: number, docs: CorpusDoc[]) {
  const seeded = mkdtempSync(join(tmpdir(), 'load-seed-'))
  const seededUsers = await seed(benchEnv({ DATA_DIR: seeded }), users, docs)
  const copies: string[] = []
  return {
    users: seededUsers,
    /** A fresh copy of the seeded directory, for one run. */
    dataDir() {
      const dir = mkdtempSync(join(tmpdir(), 'load-run-'))
      cpSync(seeded, dir, { recursive: true })
      rmSync(join(dir, LOCK_FILE), { force: true })
      copies.push(dir)
      return dir
    },
    cleanup() {
      for (const dir of [seeded, ...copies]) rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A real PostgreSQL (test/pg/server.ts), seeded once into a template database; each run gets a copy of it. */
export async function postgresCorpus(users: number, docs: CorpusDoc[]) {
  const server: PgServer = await startPostgres()
  const admin = postgres(server.url, { max: 1, onnotice: () => {} })
  await admin.unsafe('create database load_seed')
  const seededUsers = await seed(benchEnv({ DATA_DIR: 'memory://', DATABASE_URL: server.urlFor('load_seed') }), users, docs)
  let runs = 0
  return {
    users: seededUsers,
    dataDir: server.dataDir,
    async databaseUrl() {
      const name = `load_run_${++runs}`
      await admin.unsafe(`create database ${name} template load_seed`)
      return server.urlFor(name)
    },
    async cleanup() {
      await admin.end({ timeout: 5 })
      await server.stop()
    },
  }
}

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = server.port
  server.stop(true)
  return port
}
