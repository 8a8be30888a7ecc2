// A watchdog on its own thread for an event loop that stops turning. Whatever blocks the main thread —
// a busy loop inside the embedded database's WebAssembly, say — also stops every timer on it, so nothing
// on that thread can notice; a worker thread can. The main thread writes the time into shared memory on a
// short interval; when the worker sees no beat for `limitMs`, it writes one error line to stderr and kills
// the process, so a supervisor restarts a service that would otherwise hang silently, answering nothing.
const BEAT_MS = 500

export interface StallWatchdog {
  stop(): void
}

export function startStallWatchdog(limitMs: number, what: string): StallWatchdog {
  const beat = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT)
  // One aligned 8-byte value, written by one thread and read by the other: a torn read cannot happen.
  const time = new Float64Array(beat)
  time[0] = Date.now()
  const ticker = setInterval(() => (time[0] = Date.now()), BEAT_MS)
  ticker.unref()
  const worker = new Worker(new URL('./stall-watchdog.worker.ts', import.meta.url).href)
  worker.postMessage({ beat, limitMs, what })
  // Bun's Worker can be unref'd (its types do not say so): the watchdog must never keep a process alive.
  ;(worker as unknown as { unref(): void }).unref()
  return {
    stop() {
      clearInterval(ticker)
      worker.terminate()
    },
  }
}
