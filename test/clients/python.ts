// Popular Python clients of the service (requirements.txt, pinned with constraints.txt) in a venv made once under a
// cache keyed by a hash of both lists, as test/pg/server.ts installs its PostgreSQL; scripts in py/ run against a
// listening server. A test tool, never a dependency of the service. `bun test/clients/python.ts --install` only
// installs (what .ci/run does before the tests); nothing is downloaded when the venv is there.
import { spawnSync } from 'bun'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { installOnce, pipInstall, run } from '../cached-install'

const REQUIREMENTS = new URL('./requirements.txt', import.meta.url).pathname
const CONSTRAINTS = new URL('./constraints.txt', import.meta.url).pathname
const SCRIPTS = new URL('./py/', import.meta.url).pathname
/** Written last into a finished venv, so an interrupted install never looks complete. */
const DONE = '.installed'

/** Where the venvs are; MEMORY_PYCLIENTS_HOME overrides. */
function home(): string {
  if (process.env.MEMORY_PYCLIENTS_HOME) return process.env.MEMORY_PYCLIENTS_HOME
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'memory-pyclients')
}

/** The Python the venv is made with (PYCLIENTS_PYTHON names one): the pins install on 3.11 and later. */
function python(): { path: string; version: string } {
  const tried: string[] = []
  for (const path of process.env.PYCLIENTS_PYTHON ? [process.env.PYCLIENTS_PYTHON] : ['python3', 'python']) {
    const run = spawnSync([path, '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { stdout: 'pipe', stderr: 'ignore' })
    const version = run.exitCode === 0 ? run.stdout.toString().trim() : ''
    if (/^3\.\d+$/.test(version) && Number(version.split('.')[1]) >= 11) return { path, version }
    tried.push(`${path}: ${version || 'not found'}`)
  }
  throw new Error(`no Python 3.11 or later for the client tests (${tried.join('; ')})`)
}

export interface PythonClients {
  /** The venv's interpreter. */
  python: string
  /** The folder of the venv's packages. */
  sitePackages: string
}

/** The venv for requirements.txt and constraints.txt, made with pip the first time. */
export function installPythonClients(): PythonClients {
  const base = python()
  const hasher = new Bun.CryptoHasher('sha256')
  hasher.update(readFileSync(REQUIREMENTS))
  hasher.update(readFileSync(CONSTRAINTS))
  const target = join(home(), `py${base.version}-${hasher.digest('hex').slice(0, 16)}`)
  const found = (root: string): PythonClients => ({
    python: join(root, 'bin', 'python'),
    sitePackages: join(root, 'lib', `python${base.version}`, 'site-packages'),
  })
  // Made in a scratch folder, then renamed: only bin/python is run, by path, and a venv finds its packages from
  // there, so the move does not break it (pip's own scripts, never run here, keep the scratch path).
  const failure = installOnce(
    target,
    (dir) => existsSync(join(dir, DONE)),
    (scratch) => {
      const failed =
        run([base.path, '-m', 'venv', scratch], 3) ??
        run([...pipInstall(join(scratch, 'bin', 'python')), '-r', REQUIREMENTS, '-c', CONSTRAINTS], 3)
      if (failed === null) writeFileSync(join(scratch, DONE), '')
      return failed
    },
  )
  if (failure !== null) throw new Error(`could not make the Python clients' venv in ${target}: ${failure}`)
  return found(target)
}

export interface ScriptRun {
  code: number | null
  stdout: string
  stderr: string
  /** The last line of stdout read as JSON (each script prints its findings so), or null. */
  result: any
}

/**
 * `py/<script>` with `args`, under an environment of only PATH, HOME and `env` (no OPENAI_API_KEY or proxy from
 * the shell running the tests). tiktoken reads its encodings from the copy llama-index-core ships, so LangChain's
 * token counting needs no download.
 */
export async function runPython(clients: PythonClients, script: string, env: Record<string, string>, args: string[] = []) {
  const child = Bun.spawn([clients.python, join(SCRIPTS, script), ...args], {
    cwd: SCRIPTS,
    stdout: 'pipe',
    stderr: 'pipe',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONUNBUFFERED: '1',
      TIKTOKEN_CACHE_DIR: join(clients.sitePackages, 'llama_index', 'core', '_static', 'tiktoken_cache'),
      ...env,
    },
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  const last = stdout.trim().split('\n').pop() ?? ''
  let result: any = null
  try {
    result = JSON.parse(last)
  } catch {}
  return { code, stdout, stderr, result } satisfies ScriptRun
}

if (import.meta.main && process.argv.includes('--install')) {
  const clients = installPythonClients()
  console.log(`Python clients (test/clients/requirements.txt): ${clients.python}`)
}

export interface RecordingProxy {
  /** `http://127.0.0.1:<port>`, for HTTPS_PROXY, HTTP_PROXY and ALL_PROXY. */
  url: string
  /** The request line of every connection made to it ("CONNECT api.openai.com:443 HTTP/1.1", …). */
  seen: string[]
  stop(): void
}

/** A proxy that lets nothing through: it records the first line of each connection and answers 403. A client
 * given it in HTTPS_PROXY (and NO_PROXY for loopback) shows here every host it tries beyond the service. */
export function startRecordingProxy(): RecordingProxy {
  const seen: string[] = []
  const server = Bun.listen<{ recorded: boolean }>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      open(socket) {
        socket.data = { recorded: false }
      },
      data(socket, chunk) {
        if (socket.data.recorded) return
        socket.data.recorded = true
        const text = Buffer.from(chunk).toString('latin1')
        // A SOCKS client (ALL_PROXY read as socks) opens with a binary greeting: record it as such.
        seen.push(/^[A-Z]+ /.test(text) ? text.split('\r\n')[0]! : `non-HTTP greeting (${chunk.length} bytes)`)
        socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n')
      },
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    seen,
    stop: () => server.stop(true),
  }
}

/** The environment that sends every connection but loopback's to `proxy`. */
export const proxied = (proxy: RecordingProxy): Record<string, string> => ({
  HTTPS_PROXY: proxy.url,
  HTTP_PROXY: proxy.url,
  ALL_PROXY: proxy.url,
  https_proxy: proxy.url,
  http_proxy: proxy.url,
  all_proxy: proxy.url,
  NO_PROXY: '127.0.0.1,localhost',
  no_proxy: '127.0.0.1,localhost',
})
