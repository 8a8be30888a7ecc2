// A process whose event loop stops turning does not hang silently: the watchdog thread says so in one line
// and kills it, so a supervisor can restart it. (The embedded database once spun forever this way.)
import { expect, test } from 'bun:test'

const script = (limitMs: number, body: string) => `
import { startStallWatchdog } from ${JSON.stringify(new URL('../../src/lib/stall-watchdog.ts', import.meta.url).pathname)}
startStallWatchdog(${limitMs}, 'test service')
${body}
`

async function run(source: string, timeoutMs = 15_000) {
  const file = `${process.env.TMPDIR ?? '/tmp'}/stall-${crypto.randomUUID()}.ts`
  await Bun.write(file, source)
  const child = Bun.spawn(['bun', file], { stdout: 'pipe', stderr: 'pipe' })
  const killer = setTimeout(() => child.kill('SIGTERM'), timeoutMs)
  const code = await child.exited
  clearTimeout(killer)
  return { code, signal: child.signalCode, stdout: await new Response(child.stdout).text(), stderr: await new Response(child.stderr).text() }
}

test('a blocked event loop is killed within its limit, with one error line naming what stalled', async () => {
  const result = await run(script(1_000, `console.log('busy'); for (;;) {}`))
  expect(result.signal).toBe('SIGKILL') // the test's own stop, after 15 s, would be SIGTERM
  expect(result.stdout).toContain('busy')
  const line = JSON.parse(result.stderr.trim().split('\n').at(-1)!)
  expect(line).toMatchObject({ level: 'error' })
  expect(line.message).toMatch(/^the test service stopped answering: its event loop has been blocked for \d+ s/)
})

test('a busy but turning event loop is left alone, and the watchdog never keeps a finished process alive', async () => {
  const result = await run(script(1_000, `for (let i = 0; i < 30; i++) { const end = Date.now() + 100; while (Date.now() < end) {} await Bun.sleep(1) } console.log('done')`))
  expect(result.code).toBe(0)
  expect(result.stdout).toContain('done')
  expect(result.stderr).toBe('')
})
