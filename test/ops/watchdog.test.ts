// The database watchdog, on a real server process whose embedded database really stops answering: it logs
// one error line and exits non-zero (for a supervisor to restart it) instead of hanging silently — whether the
// database holds the thread in a busy loop or leaves every query waiting while the process idles.
import { afterAll, setDefaultTimeout, expect, test } from 'bun:test'
import { removeTempDataDirs, startService, tempDataDir } from './processes'

// Each case starts real processes (a boot migrates a fresh database); the preload's 30 s is lost after src/*.test.ts files.
setDefaultTimeout(60_000)
afterAll(removeTempDataDirs)

test.each(['busy', 'idle'])('a database that stops answering (%s): one error line, exit 70', async (wedge) => {
  const server = await startService({ DATA_DIR: tempDataDir(), DB_WATCHDOG_SECONDS: '2', WEDGE: wedge }, 'test/ops/wedged-server.ts')
  try {
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(200)
    await server.waitFor(/"message":"worker started"/)
    server.proc.kill('SIGUSR2')
    expect(await server.exited).toBe(70)
    const errors = server
      .lines()
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatchObject({
      message: expect.stringMatching(/^database has not answered for \d+ s: exiting so a supervisor can restart the service$/),
      role: 'server',
      database: 'pglite',
      pid: server.pid,
    })
  } finally {
    server.proc.kill('SIGKILL')
  }
})

test('while the database answers, the watchdog lets the server run (and SIGTERM still exits 0)', async () => {
  // 3 s, not 1: on a loaded machine (two test processes on two cores) a healthy server's event loop can be
  // starved for over a second, and the watchdog rightly cannot tell that from a wedged database.
  const server = await startService({ DATA_DIR: tempDataDir(), DB_WATCHDOG_SECONDS: '3' }, 'test/ops/wedged-server.ts')
  // Several watchdog periods of real traffic: no exit.
  const until = Date.now() + 7_000
  while (Date.now() < until) {
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(200)
    await Bun.sleep(100)
  }
  await Bun.sleep(3_500)
  expect(server.proc.exitCode).toBeNull()
  server.proc.kill('SIGTERM')
  expect(await server.exited).toBe(0)
  expect(server.lines().some((l) => l.includes('"level":"error"'))).toBe(false)
})
