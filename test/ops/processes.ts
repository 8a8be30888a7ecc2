// Real processes of the service for the ops tests: `bun <script>` with its own environment, its stderr read
// line by line (JSON log lines and one-line refusals), and its exit.
import type { Subprocess } from 'bun'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = new URL('../..', import.meta.url).pathname

export interface ServiceProcess {
  proc: Subprocess<'ignore', 'ignore', 'pipe'>
  pid: number
  /** Every stderr line so far. */
  lines(): string[]
  /** Resolves with the first line matching, or rejects when the process exits first. */
  waitFor(pattern: RegExp): Promise<string>
  exited: Promise<number>
}

const made: string[] = []

export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ops-data-'))
  made.push(dir)
  return dir
}

/** For afterAll: each embedded database is tens of MB. */
export function removeTempDataDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** Only what is given (plus PATH): nothing leaks in from the shell running the tests. */
export function spawnService(script: string, env: Record<string, string>): ServiceProcess {
  const proc = Bun.spawn(['bun', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', EMBEDDING_PROVIDER: 'none', LOG_LEVEL: 'info', ...env },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const lines: string[] = []
  const waiters: { pattern: RegExp; resolve(line: string): void }[] = []
  const reading = (async () => {
    let rest = ''
    const decoder = new TextDecoder()
    const reader = proc.stderr.getReader()
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      rest += decoder.decode(read.value, { stream: true })
      const parts = rest.split('\n')
      rest = parts.pop()!
      for (const line of parts) {
        lines.push(line)
        for (const w of waiters.filter((w) => w.pattern.test(line))) {
          waiters.splice(waiters.indexOf(w), 1)
          w.resolve(line)
        }
      }
    }
    if (rest) lines.push(rest)
  })()
  const exited = proc.exited.then(async (code) => (await reading, code))
  return {
    proc,
    pid: proc.pid,
    lines: () => [...lines],
    waitFor(pattern) {
      const seen = lines.find((l) => pattern.test(l))
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve })
        void exited.then((code) => reject(new Error(`exited ${code} before ${pattern}:\n${lines.join('\n')}`)))
      })
    },
    exited,
  }
}

/** A started server: its port read from the `listening` line. */
export async function startService(env: Record<string, string>, script = 'src/index.ts') {
  const service = spawnService(script, { PORT: '0', ...env })
  const line = await service.waitFor(/"message":"listening"/)
  return { ...service, port: JSON.parse(line).port as number }
}
