// Starts test/http/fuzz/serve.ts as a child process and waits for its fixtures; stop() ends that child only.
import type { Fixtures } from './fixtures'

export interface FuzzChild {
  f: Fixtures
  /** The child's exit code once it has exited (a crash), else null. */
  exited(): number | null
  stop(): Promise<void>
}

export async function startFuzzChild(): Promise<FuzzChild> {
  // With the header limit `bun start` gives the service (package.json), so long query strings meet the same server.
  const child = Bun.spawn(['bun', '--max-http-header-size=524288', new URL('./serve.ts', import.meta.url).pathname], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  let code: number | null = null
  void child.exited.then((c) => (code = c))
  const reader = child.stdout.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`fuzz server exited before it was ready (code ${await child.exited}):\n${text}`)
    text += decoder.decode(value, { stream: true })
    const line = text.split('\n').find((l) => l.startsWith('FUZZ_READY '))
    if (line) {
      // Keep draining stdout so the child never blocks on a full pipe.
      void (async () => {
        while (!(await reader.read()).done);
      })()
      return {
        f: JSON.parse(line.slice('FUZZ_READY '.length)) as Fixtures,
        exited: () => code,
        async stop() {
          child.stdin.end()
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
          await child.exited
          clearTimeout(timer)
        },
      }
    }
  }
}
