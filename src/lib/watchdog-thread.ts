// The watchdog's own thread: when the main thread's heartbeats (one per database answer) stop for too long, it
// logs one error line and ends the process, so a supervisor restarts it instead of it hanging silently.
// It has to be a thread of its own: a wedged embedded database can hold the main thread in a busy loop, where
// no timer of that thread ever fires again.
import { dlopen, FFIType } from 'bun:ffi'
import { writeSync } from 'node:fs'

declare const self: Worker

interface Start {
  type: 'start'
  limitMs: number
  tickMs: number
  /** Fields of the log line (the main logger lives on the other thread). */
  fields: Record<string, unknown>
  quiet: boolean
}

let lastBeat = Date.now()

self.onmessage = (event: MessageEvent<Start | { type: 'beat' }>) => {
  if (event.data.type === 'beat') {
    lastBeat = Date.now()
    return
  }
  const { limitMs, tickMs, fields, quiet } = event.data
  lastBeat = Date.now()
  self.postMessage({ type: 'started' })
  setInterval(() => {
    const silentMs = Date.now() - lastBeat
    if (silentMs < limitMs) return
    if (!quiet) {
      const line = {
        time: new Date().toISOString(),
        level: 'error',
        message: `database has not answered for ${Math.round(silentMs / 1000)} s: exiting so a supervisor can restart the service`,
        ...fields,
      }
      writeSync(2, JSON.stringify(line) + '\n')
    }
    exitNow(70)
  }, tickMs)
}

/**
 * Ends the whole process from this thread. process.exit() here would end only the thread, and a signal to
 * ourselves is ignored when we are PID 1 in a container; libc's _exit is neither. Found at start: loading
 * anything once the main thread is stuck could wait on it.
 */
const libcExit = (() => {
  const names = process.platform === 'darwin' ? ['libSystem.B.dylib'] : ['libc.so.6', 'libc.musl-x86_64.so.1', 'libc.musl-aarch64.so.1']
  for (const name of names) {
    try {
      return dlopen(name, { _exit: { args: [FFIType.i32], returns: FFIType.void } }).symbols._exit
    } catch {}
  }
  return null
})()
const pid = process.pid

function exitNow(code: number): void {
  if (libcExit) libcExit(code)
  process.kill(pid, 'SIGKILL')
}
