// The embedded database's checkpointer, and the sizes of its data directory.
//
// Why: PostgreSQL runs inside PGlite in single-user mode, which has no checkpointer process and never asks for a
// checkpoint when the write-ahead log grows (that request is made only under a postmaster): a checkpoint happened
// at shutdown alone, so pg_wal grew with every write for as long as the process ran (2.19 GB at 60,000 documents,
// twice max_wal_size) and a self-hoster's disk filled over weeks. This does the checkpointer's job from outside:
// once the segments written since the last checkpoint reach a quarter of WAL_MAX_MB, or five minutes after a
// write, it runs CHECKPOINT at a moment nobody else is using the one connection (or after waiting at most 200 ms).
// PostgreSQL then recycles the old segments itself, keeping at most max_wal_size of them for reuse (a quarter of
// the bound), so pg_wal holds about half the bound, and the other half is room for what is written between the
// moment the trigger is seen and the checkpoint's turn (a bulk ingest writes ~30 MB of log a second).
// What was written is read from the files (segments modified since the last checkpoint began): watching costs
// the database nothing, so it looks five times a second.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { PGlite } from '@electric-sql/pglite'

const SEGMENT_BYTES = 16 * 1024 * 1024
/** A segment's file name: timeline, log and segment numbers, 24 hex digits. */
const SEGMENT = /^[0-9A-F]{24}$/
/** A checkpoint starts once this share of the bound has been written since the last one. */
const TRIGGER_SHARE = 0.25
/** …or this long after a write, as PostgreSQL's checkpoint_timeout, so an idle service's log is short too. */
const TIMEOUT_MS = 5 * 60_000
const TICK_MS = 200
/** How long a checkpoint waits for a quiet connection before it takes its turn anyway. */
const WAIT_FOR_QUIET_MS = 200
/** Sizes are read from the directory at most this often (GET / is public: a request must not cost a walk). */
const SIZES_TTL_MS = 5_000

/** The server settings for a bound: segments kept for reuse up to a quarter of it, at least the two PostgreSQL requires.
 * Not wal_compression: pglz wrote 30 % less log but made a bulk ingest 1.6× slower (test/db/wal-bound.test.ts's
 * ingest, measured); PGlite is built without lz4 and zstd. */
export function walStartParams(limitBytes: number): string[] {
  const mb = (bytes: number) => `${Math.max(2 * SEGMENT_BYTES, Math.floor(bytes / SEGMENT_BYTES) * SEGMENT_BYTES) / 1024 / 1024}MB`
  return ['-c', `max_wal_size=${mb(limitBytes * TRIGGER_SHARE)}`, '-c', `min_wal_size=${mb(0)}`]
}

export interface StorageSizes {
  /** Every file under DATA_DIR: the database, the log, models downloaded there, the encryption key. */
  dataDirBytes: number
  /** The write-ahead log's segments (pg_wal), including those recycled for reuse. */
  walBytes: number
  walLimitBytes: number
  /** When the last checkpoint ended, null before the first since start. */
  lastCheckpointAt: Date | null
}

export interface Checkpointer {
  sizes(): StorageSizes
  /** Runs a checkpoint now (after waiting for a quiet connection), unless one is running: then waits for that one. */
  checkpoint(): Promise<void>
  stop(): void
}

export interface CheckpointerOptions {
  pglite: PGlite
  /** DATA_DIR, and the cluster's directory inside it (holding pg_wal). */
  dataDir: string
  clusterDir: string
  limitBytes: number
  /** Resolves once nobody has used the connection for a moment, or after at most `atMostMs`. */
  waitForQuiet: (atMostMs: number) => Promise<void>
  onError: (error: unknown) => void
}

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const { pglite, limitBytes } = options
  let running: Promise<void> | null = null
  let lastCheckpointAt: Date | null = null
  let wroteAt: number | null = null
  let stopped = false

  const checkpoint = (): Promise<void> => {
    running ??= (async () => {
      try {
        await options.waitForQuiet(WAIT_FOR_QUIET_MS)
        if (stopped || pglite.closed) return
        await pglite.exec('checkpoint')
        lastCheckpointAt = new Date()
        wroteAt = null
      } finally {
        running = null
      }
    })()
    return running
  }

  // Segments modified after the last checkpoint ended hold what it did not cover (nothing else runs on the one
  // connection during it); before the first one, all there is: a directory left with a long log by an older
  // version is checkpointed at start.
  let coveredUpTo = 0
  const tick = async () => {
    const written = segmentsWrittenSince(options.clusterDir, coveredUpTo)
    if (written === 0) return
    const now = Date.now()
    wroteAt ??= now
    if (written * SEGMENT_BYTES >= limitBytes * TRIGGER_SHARE || now - wroteAt >= TIMEOUT_MS) {
      await checkpoint()
      coveredUpTo = Date.now()
    }
  }

  let ticking = false
  const timer = setInterval(() => {
    if (ticking || running || stopped || pglite.closed) return
    ticking = true
    tick()
      .catch(options.onError)
      .finally(() => {
        ticking = false
      })
  }, TICK_MS)
  timer.unref?.()

  let measured: { at: number; dataDirBytes: number; walBytes: number } | null = null
  return {
    sizes() {
      const now = performance.now()
      if (!measured || now - measured.at >= SIZES_TTL_MS)
        measured = { at: now, dataDirBytes: directoryBytes(options.dataDir), walBytes: walBytes(options.clusterDir) }
      return { dataDirBytes: measured.dataDirBytes, walBytes: measured.walBytes, walLimitBytes: limitBytes, lastCheckpointAt }
    },
    checkpoint,
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}

/** How many of pg_wal's segments were modified after `since` (ms since the epoch). */
function segmentsWrittenSince(clusterDir: string, since: number): number {
  const wal = join(clusterDir, 'pg_wal')
  let count = 0
  for (const name of safeReaddir(wal)) if (SEGMENT.test(name) && safeModified(join(wal, name)) > since) count++
  return count
}

/** The bytes of pg_wal's segment files (24 hex digits), not its archive status or history files. */
export function walBytes(clusterDir: string): number {
  const wal = join(clusterDir, 'pg_wal')
  let total = 0
  for (const name of safeReaddir(wal)) if (SEGMENT.test(name)) total += safeSize(join(wal, name))
  return total
}

/** Every regular file under a directory, as `du` would count their apparent sizes. */
export function directoryBytes(dir: string): number {
  let total = 0
  for (const entry of safeReaddir(dir, true)) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) total += directoryBytes(path)
    else if (entry.isFile()) total += safeSize(path)
  }
  return total
}

// Files come and go while the database runs (segments recycled, relations dropped): a vanished one counts 0.
function safeReaddir(dir: string): string[]
function safeReaddir(dir: string, withTypes: true): import('node:fs').Dirent[]
function safeReaddir(dir: string, withTypes?: true) {
  try {
    return withTypes ? readdirSync(dir, { withFileTypes: true }) : readdirSync(dir)
  } catch {
    return []
  }
}

function safeModified(path: string): number {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
}

function safeSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
