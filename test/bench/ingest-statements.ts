// bench:ingest's BENCH_STATEMENTS=1: how long each statement holds PGlite's one connection (the synchronous part
// of execProtocolRawSync, when nothing else on the thread runs), grouped by statement text — the longest ones are
// what a request queued behind the worker waits for.
import type { PGlite } from '@electric-sql/pglite'

interface Timing {
  count: number
  total: number
  max: number
  /** Runs of at least SLOW_MS: a one-off maximum on a shared machine can be a GC or the scheduler, many are the statement. */
  slow: number
}

const SLOW_MS = 5

export function timeStatements(pglite: PGlite) {
  const timings = new Map<string, Timing>()
  const target = pglite as unknown as { execProtocolRawSync(message: Uint8Array): Uint8Array }
  const original = target.execProtocolRawSync.bind(pglite)
  let statement = '(simple query)'
  const decoder = new TextDecoder()
  target.execProtocolRawSync = (message: Uint8Array) => {
    // A Parse message ('P', int32 length, name\0, query\0, …) names the statement that the next Execute runs.
    if (message[0] === 80) {
      const nameEnd = message.indexOf(0, 5)
      const queryEnd = message.indexOf(0, nameEnd + 1)
      statement = decoder.decode(message.subarray(nameEnd + 1, queryEnd)).replace(/\s+/g, ' ')
    } else if (message[0] === 81) statement = decoder.decode(message.subarray(5, message.length - 1)).replace(/\s+/g, ' ')
    const started = performance.now()
    const answer = original(message)
    const took = performance.now() - started
    const t = timings.get(statement) ?? { count: 0, total: 0, max: 0, slow: 0 }
    t.count++
    t.total += took
    t.max = Math.max(t.max, took)
    if (took >= SLOW_MS) t.slow++
    timings.set(statement, t)
    return answer
  }
  return {
    reset: () => timings.clear(),
    /** The statements whose longest run took at least SLOW_MS, longest first. */
    print(label: string, top = 25) {
      const rows = [...timings].filter(([, t]) => t.max >= SLOW_MS).sort((a, b) => b[1].max - a[1].max)
      console.log(`  protocol calls holding PGlite ≥ ${SLOW_MS} ms, ${label} (max / mean ms, calls ≥ ${SLOW_MS} ms of all):`)
      for (const [sql, t] of rows.slice(0, top))
        console.log(`    ${t.max.toFixed(1)} / ${(t.total / t.count).toFixed(2)} ms, ${t.slow} of ${t.count}  ${sql.slice(0, 200)}`)
    },
  }
}
