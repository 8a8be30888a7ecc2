// The settings the embedded server starts with on DATA_DIR: PGlite's own, the write-ahead log's bound
// (pglite-checkpoints.ts) and the buffer pool's size.
import { PGlite } from '@electric-sql/pglite'
import { walStartParams } from './pglite-checkpoints'

/**
 * The embedded database's buffer pool (shared_buffers) on DATA_DIR, in MB. Why not initdb's 128 MB: PGlite's
 * shared memory is zero-filled inside its WebAssembly memory when the server starts, so every page of the pool is
 * resident from the first second, with an empty database too — it was most of the idle server's RSS. Measured on
 * `bun src/index.ts` with an empty DATA_DIR and EMBEDDING_PROVIDER=none, 5 s after start, 3 runs each (new
 * directory / restart): 128 MB 356–358 / 322–323 MiB; 64 MB 291–293 / 256–258; 32 MB 254–257 / 220–222; 16 MB
 * 235–237 / 201–202. Why not 32: a page not in the pool is a system call away (the OS's page cache), and with
 * today's one-row-a-posting keyword index the working set of a large ingest is hundreds of MB — at 30,000
 * documents (`BENCH_DOCS=30000 bun run bench:search --after-ingest`, one sitting) 32 MB cost 11–15 % more server
 * CPU a document (185 and 206 documents a CPU-second against 128 MB's 217 and 231; 64 MB 246) and its VACUUM of
 * the postings held the process ~1.9 s. What is left idle (~220 MiB at 32) is Bun (30), the service's modules
 * (~60) and PGlite's code, file bundle and the rest of its 128 MB of WebAssembly memory, which the module declares
 * as its minimum (`initialMemory` cannot go below it).
 */
export const SHARED_BUFFERS_MB = 64

/** PGlite's own start parameters, the log's bound and the buffer pool. */
export function pgliteStartParams(walLimitBytes: number): string[] {
  const defaults = (PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams
  return [...defaults, ...walStartParams(walLimitBytes), '-c', `shared_buffers=${SHARED_BUFFERS_MB}MB`]
}
