// The watchdog's thread (src/lib/stall-watchdog.ts): kills the process when the main thread's beat stops.
import { writeSync } from 'node:fs'

declare const self: Worker

self.onmessage = (event: MessageEvent<{ beat: SharedArrayBuffer; limitMs: number; what: string }>) => {
  const { beat, limitMs, what } = event.data
  const time = new Float64Array(beat)
  setInterval(() => {
    const stalled = Date.now() - time[0]!
    if (stalled <= limitMs) return
    // The logger lives on the blocked thread: write the line here, synchronously, in its JSON shape.
    const line = { time: new Date().toISOString(), level: 'error', message: `the ${what} stopped answering: its event loop has been blocked for ${Math.round(stalled / 1000)} s; exiting so a supervisor restarts it` }
    writeSync(2, `${JSON.stringify(line)}\n`)
    process.kill(process.pid, 'SIGKILL')
  }, Math.min(1_000, limitMs / 4))
}
