// Work on a large index cut into steps (a generator yielding between two), so it can run between requests: the
// process has one thread, and a compaction's or a load's end at 100,000 documents is tens of millions of array
// steps (bench:search --after-ingest saw the process stall up to 226 ms as a compaction ended).
import { nextTurn } from '../lib/next-turn'

/** How long a slice of steps holds the event loop before handing it back. */
export const SLICE_MS = 8

/** Runs a generator to its end, handing the event loop back every SLICE_MS. */
export async function inSlices<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const until = performance.now() + SLICE_MS
    do {
      const next = steps.next()
      if (next.done) return next.value
    } while (performance.now() < until)
    await nextTurn()
  }
}

/** Runs a generator to its end at once (small work: a delta segment, a test). */
export function atOnce<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next()
    if (next.done) return next.value
  }
}
