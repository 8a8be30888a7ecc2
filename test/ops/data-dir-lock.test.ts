// One writer per embedded DATA_DIR, with real processes: a second server, `bun run worker` or `bun run reindex`
// on a directory in use refuses in one line naming it and the holder; a lock left by kill -9 (or naming a
// reused PID) is taken over; SIGTERM frees it; a port in use is one line too, before anything is opened.
import { afterAll, setDefaultTimeout, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LOCK_FILE } from '../../src/lib/data-dir-lock'
import { removeTempDataDirs, spawnService, startService, tempDataDir } from './processes'

// Each case starts real processes (a boot migrates a fresh database); the preload's 30 s is lost after src/*.test.ts files.
setDefaultTimeout(60_000)
afterAll(removeTempDataDirs)

const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number; command: string }

async function signUp(port: number, email: string) {
  const res = await fetch(`http://127.0.0.1:${port}/api/auth/sign-up`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  })
  return res.status
}

async function signIn(port: number, email: string) {
  const res = await fetch(`http://127.0.0.1:${port}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  })
  return res.status
}

/** A refused start: exit 1 and exactly one line, which names the directory and the holder's PID. */
async function expectRefused(script: string, env: Record<string, string>, dir: string, holder: number) {
  const refused = spawnService(script, env)
  expect(await refused.exited).toBe(1)
  const lines = refused.lines()
  expect(lines).toHaveLength(1)
  expect(lines[0]).toStartWith(`DATA_DIR ${dir} is in use by process ${holder} (bun src/index.ts, since `)
  return lines[0]!
}

describe('a running server holds its DATA_DIR', () => {
  const dir = tempDataDir()
  let first: Awaited<ReturnType<typeof startService>>
  beforeAll(async () => {
    first = await startService({ DATA_DIR: dir })
  })
  afterAll(() => first.proc.kill('SIGKILL'))

  test('the lock file names the server', () => {
    expect(lockOf(dir)).toMatchObject({ pid: first.pid, command: 'bun src/index.ts' })
  })

  test('a second server refuses in one line naming the directory and the holder; the first keeps serving', async () => {
    const line = await expectRefused('src/index.ts', { DATA_DIR: dir, PORT: '0' }, dir, first.pid)
    expect(line).toContain('DATABASE_URL')
    expect((await fetch(`http://127.0.0.1:${first.port}/`)).status).toBe(200)
    expect(lockOf(dir).pid).toBe(first.pid)
  })

  test('bun run worker and bun run reindex refuse likewise', async () => {
    await expectRefused('src/jobs/main.ts', { DATA_DIR: dir }, dir, first.pid)
    await expectRefused('src/jobs/reindex.ts', { DATA_DIR: dir, EMBEDDING_PROVIDER: 'hash' }, dir, first.pid)
  })

  test('SIGTERM: a clean exit (0) that removes the lock', async () => {
    first.proc.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
  })
})

describe('stale locks are taken over', () => {
  test('after kill -9 the lock stays; the next server takes it over, says so, and has the data', async () => {
    const dir = tempDataDir()
    const killed = await startService({ DATA_DIR: dir })
    expect(await signUp(killed.port, 'ada@example.com')).toBe(201)
    killed.proc.kill('SIGKILL')
    await killed.exited
    expect(lockOf(dir).pid).toBe(killed.pid)

    const next = await startService({ DATA_DIR: dir })
    try {
      const warning = next
        .lines()
        .map((l) => JSON.parse(l))
        .find((l) => l.message === 'took over the lock of a process that is gone')
      expect(warning).toMatchObject({ level: 'warn', pid: killed.pid })
      expect(lockOf(dir).pid).toBe(next.pid)
      expect(await signIn(next.port, 'ada@example.com')).toBe(200)
    } finally {
      next.proc.kill('SIGTERM')
      await next.exited
    }
  })

  test('a lock naming a live PID that is another process (its start time differs: a reused PID) is taken over', async () => {
    const dir = tempDataDir()
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, start: '1', command: 'bun src/index.ts', started_at: '2020-01-01T00:00:00.000Z' }),
    )
    const next = await startService({ DATA_DIR: dir })
    try {
      expect(lockOf(dir).pid).toBe(next.pid)
    } finally {
      next.proc.kill('SIGTERM')
      await next.exited
    }
  })
})

test('two servers started at the same moment on a fresh DATA_DIR: exactly one serves, the other refuses', async () => {
  const dir = tempDataDir()
  const both = [spawnService('src/index.ts', { DATA_DIR: dir, PORT: '0' }), spawnService('src/index.ts', { DATA_DIR: dir, PORT: '0' })]
  const first = await Promise.race(both.map((p) => p.exited.then(() => p)))
  expect(await first.exited).toBe(1)
  expect(first.lines()).toHaveLength(1)
  expect(first.lines()[0]).toStartWith(`DATA_DIR ${dir} is in use by process `)
  const winner = both.find((p) => p !== first)!
  await winner.waitFor(/"message":"listening"/)
  expect(lockOf(dir).pid).toBe(winner.pid)
  winner.proc.kill('SIGTERM')
  expect(await winner.exited).toBe(0)
})

test('a port in use: one line naming it and PORT, exit 1, and neither the lock nor the database is touched', async () => {
  const squatter = Bun.serve({ hostname: '0.0.0.0', port: 0, fetch: () => new Response('taken') })
  const dir = tempDataDir()
  try {
    const refused = spawnService('src/index.ts', { DATA_DIR: dir, PORT: String(squatter.port) })
    expect(await refused.exited).toBe(1)
    expect(refused.lines()).toEqual([`port ${squatter.port} is already in use: stop the process using it, or set PORT to another port`])
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false)
    // No database opened, so no worker or maintenance ever ran.
    expect(existsSync(join(dir, 'pglite'))).toBe(false)
  } finally {
    await squatter.stop(true)
  }
})
