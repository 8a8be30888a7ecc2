// The database watchdog of a server or worker process: probes the database every few seconds and, each time
// it answers, tells the watchdog thread (watchdog-thread.ts), which ends the process when the answers stop.
import type { Db } from '../../db/client'
import { checkDatabase } from './database-check'

export interface WatchdogOptions {
  /** Silence after which the process exits; 0 turns the watchdog off. */
  seconds: number
  /** Put into the error line: which process and database. */
  fields: Record<string, unknown>
  quiet?: boolean
}

/** Resolves once the watchdog's thread runs (a thread that has not started yet could not watch a stuck main
 * thread: starting it takes the main thread's help); answers the function that stops it. */
export async function startWatchdog(db: Db, { seconds, fields, quiet = false }: WatchdogOptions): Promise<() => void> {
  if (seconds <= 0) return () => {}
  const limitMs = seconds * 1000
  // Several probes fit in the limit, so one slow answer alone never ends the process.
  const tickMs = Math.min(5_000, Math.max(100, Math.floor(limitMs / 4)))
  const thread = new Worker(new URL('./watchdog-thread.ts', import.meta.url).href)
  // Bun's Worker has unref(); the DOM typing does not: the thread must not keep a finished process alive.
  ;(thread as unknown as { unref(): void }).unref()
  await new Promise<void>((resolve, reject) => {
    thread.onmessage = () => resolve()
    thread.onerror = (event) => reject(new Error(`the database watchdog did not start: ${event.message}`))
    thread.postMessage({ type: 'start', limitMs, tickMs, fields, quiet })
  })
  let probing = false
  const probe = async () => {
    // One probe at a time: a wedged database would otherwise pile up a query per tick.
    if (probing) return
    probing = true
    try {
      if ((await checkDatabase(db, limitMs)) === null) thread.postMessage({ type: 'beat' })
    } finally {
      probing = false
    }
  }
  const timer = setInterval(() => void probe(), tickMs)
  timer.unref()
  return () => {
    clearInterval(timer)
    thread.terminate()
  }
}
