// Service processes on one real PostgreSQL database, started the production way (`bun src/index.ts`,
// `bun src/jobs/main.ts`), each on its own loopback port: what "point DATABASE_URL at Postgres and run more
// processes" means, for tests that hold the promises across them.
import { createServer } from 'node:net'
import type { Subprocess } from 'bun'

const ROOT = new URL('../../', import.meta.url).pathname

export interface ServiceProcess {
  /** http://127.0.0.1:port for an API process; empty for a worker. */
  url: string
  /** The lines it logged, for a failing test to show. */
  log: string[]
  stop(): Promise<void>
}

export function serviceEnv(databaseUrl: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATA_DIR: 'memory://',
    DATABASE_URL: databaseUrl,
    ENCRYPTION_KEY: 'ab'.repeat(32),
    EMBEDDING_PROVIDER: 'hash',
    DEFAULT_PLAN: 'free',
    LOG_LEVEL: 'info',
    ...env,
  }
}

/** An API process, answering once GET / says it runs on postgres. */
export async function startApi(databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const proc = Bun.spawn(['bun', 'src/index.ts'], {
    cwd: ROOT,
    env: serviceEnv(databaseUrl, { PORT: String(port), BASE_URL: url, ...env }),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const service = track(proc, url)
  const deadline = Date.now() + 30_000
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) break
    const health = await fetch(url)
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null)
    if ((health as { database?: string } | null)?.database === 'postgres') return service
    await Bun.sleep(100)
  }
  await service.stop()
  throw new Error(`the API process did not start:\n${service.log.slice(-10).join('\n')}`)
}

/** A worker process (`bun run worker`). */
export function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}): ServiceProcess {
  return track(Bun.spawn(['bun', 'src/jobs/main.ts'], { cwd: ROOT, env: serviceEnv(databaseUrl, env), stdout: 'pipe', stderr: 'pipe' }), '')
}

function track(proc: Subprocess<'ignore', 'pipe', 'pipe'>, url: string): ServiceProcess {
  const log: string[] = []
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      const decoder = new TextDecoder()
      const reader = stream.getReader()
      for (let r = await reader.read(); !r.done; r = await reader.read()) log.push(...decoder.decode(r.value).split('\n').filter(Boolean))
    })()
  }
  return {
    url,
    log,
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
      await proc.exited
      clearTimeout(timer)
    },
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
