// PGlite in memory (DATA_DIR=memory://, the tests' clones) without two costs of its in-memory file system that a
// data directory does not pay — together a fifth to a quarter of a bulk ingest batch (bench:ingest, A/B in one run).
//
// Emscripten's MEMFS keeps each file in one Uint8Array and, past 1 MiB, grows it by 12.5 % with a copy of the
// whole file: a relation or WAL segment written block by block is copied ~8 times over as it grows. Growing by
// half instead copies it ~2 times, for at most half a file of spare memory. And a new WAL segment is zero-filled
// (16 MiB written 8 KiB at a time, each write growing the file again), which reserves disk space a memory
// instance has none of; wal_init_zero = off writes its last byte instead.
import type { PGlite } from '@electric-sql/pglite'

const GROWTH = 1.5

interface MemfsNode {
  contents: Uint8Array | null
  usedBytes: number
}

/** Whether the instance keeps its data in memory: no data directory (memory://, or a clone). */
export function isInMemoryPglite(pglite: PGlite): boolean {
  const dir = (pglite as { dataDir?: string }).dataDir
  return !dir || dir.startsWith('memory://')
}

export async function tuneInMemoryPglite(pglite: PGlite): Promise<void> {
  // The root mount is MEMFS (data in memory lives under it); left as it is if a future PGlite differs.
  const fs = (pglite as unknown as { Module?: { FS?: { root?: { mount?: { type?: Record<string, unknown> } } } } }).Module?.FS
  const memfs = fs?.root?.mount?.type
  if (memfs && typeof memfs.expandFileStorage === 'function') {
    memfs.expandFileStorage = (node: MemfsNode, wanted: number) => {
      const had = node.contents?.length ?? 0
      if (had >= wanted) return
      const grown = new Uint8Array(Math.max(wanted, Math.floor(had * GROWTH), 256))
      if (node.contents) grown.set(node.contents.subarray(0, node.usedBytes))
      node.contents = grown
    }
  }
  // PGlite is one session, so the setting holds for every statement it runs.
  await pglite.exec('set wal_init_zero = off')
}
