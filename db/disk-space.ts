// Room left on the disk holding DATA_DIR, and the reserve writes must leave. A full disk stopped the embedded
// database's writes with errors (and, were the write-ahead log unable to grow, a PANIC that ends the process,
// which restarted into the same full disk). Writes are refused while less than the reserve is free, so what is
// left serves what reads write on their way (usage counts, a key's last use, a renewed session) and the log; a
// person freeing space resumes writes at once, no restart.
import { statfsSync } from 'node:fs'

/** How long a measurement is trusted: one statfs a second at most, whatever the request rate. */
const TTL_MS = 1_000

export interface DiskSpace {
  /** Bytes free for this process, and the reserve; `low` when free is under it. */
  read(): { freeBytes: number; reserveBytes: number; low: boolean }
}

export function watchDiskSpace(dir: string, reserveBytes: number): DiskSpace {
  let measured: { at: number; freeBytes: number } | null = null
  return {
    read() {
      const now = performance.now()
      if (!measured || now - measured.at >= TTL_MS) measured = { at: now, freeBytes: freeBytesOf(dir) }
      return { freeBytes: measured.freeBytes, reserveBytes, low: measured.freeBytes < reserveBytes }
    },
  }
}

/** Free bytes an unprivileged writer may use (bavail), or Infinity when the file system cannot be asked. */
function freeBytesOf(dir: string): number {
  try {
    const stats = statfsSync(dir)
    return Number(stats.bavail) * Number(stats.bsize)
  } catch {
    return Number.POSITIVE_INFINITY
  }
}
