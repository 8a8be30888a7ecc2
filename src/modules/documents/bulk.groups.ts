// How a bulk ingest shares the process with other requests: its items taken a group at a time — checked, hashed,
// and on the embedded database written, one transaction a group — with a turn of the event loop between two groups,
// so no step of a 32 MiB batch holds the one thread or the one connection for long.
import { nextTurn } from '../../lib/next-turn'

/** A group's bound: a transaction of about 100 ms on the embedded database for large documents (bench:neighbours),
 * and few enough transactions that small documents keep their rate (bench:ingest). */
export const GROUP_BYTES = 256 * 1024
export const GROUP_DOCUMENTS = 100

/** Consecutive items, at most GROUP_DOCUMENTS and GROUP_BYTES of text (`size`) each; a larger item alone. */
export function groupsOf<T>(items: T[], size: (item: T) => number): T[][] {
  const groups: T[][] = []
  let bytes = 0
  for (const item of items) {
    const n = size(item)
    const last = groups.at(-1)
    if (!last || last.length >= GROUP_DOCUMENTS || bytes + n > GROUP_BYTES) {
      groups.push([item])
      bytes = n
    } else {
      last.push(item)
      bytes += n
    }
  }
  return groups
}

/** `fn` over every item, a group at a time, letting whatever else waits run between two groups. */
export async function mapInGroups<T, U>(items: T[], size: (item: T) => number, fn: (item: T, index: number) => U): Promise<U[]> {
  const out: U[] = []
  for (const [g, group] of groupsOf(items, size).entries()) {
    if (g > 0) await nextTurn()
    for (const item of group) out.push(fn(item, out.length))
  }
  return out
}
