// createDeps: makes the Deps of one process (or one test) — database, migrations, models, in-memory indexes —
// in boot order. The composition root: it imports the rooms it wires, and only entry points import it.
import { resolve } from 'node:path'
import { createDb, type Database, type SlowStatement } from '../db/client'
import { watchDiskSpace } from '../db/disk-space'
import { runMigrations } from '../db/migrate'
import { loadEmbedder } from './embedding/embeddings'
import { loadChatModel } from './ai/models'
import { isInMemory, type Config } from './config'
import type { Clock, Deps } from './deps'
import { createLogger, type Logger } from './log'
import { flushEvents } from './modules/usage/events.buffer'
import { IndexCache } from './retrieval/index-cache'
import { keywordSource } from './retrieval/keyword-cache'
import { vectorSource } from './retrieval/vector-cache'

export interface DepsOverrides {
  database?: Database
  clock?: Clock
  log?: Logger
}

export const systemClock: Clock = { now: () => new Date() }

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  const log = overrides.log ?? createLogger(config.logLevel)
  const onStaleLock = (stale: { pid: number; command: string }) =>
    log.warn('took over the lock of a process that is gone', { data_dir: config.dataDir, pid: stale.pid, command: stale.command })
  const onError = (error: unknown) => log.warn('checkpointing the embedded database failed', { error: String(error) })
  // At LOG_LEVEL=debug, what held the embedded database (and so every request) for 100 ms or more.
  const onSlow = config.logLevel === 'debug' ? (slow: SlowStatement) => log.debug('slow database statement', { ...slow }) : undefined
  const database = overrides.database ?? (await createDb(config, { onStaleLock, onError, onSlow }))
  if (!overrides.database) await runMigrations(database, config.databaseUrl)
  const { embedder, status } = await loadEmbedder(config, log)
  const deps: Deps = {
    config,
    db: database.db,
    dbKind: database.kind,
    databaseGuard: database.guard,
    databaseStorage: database.checkpointer,
    diskSpace:
      database.kind === 'pglite' && !isInMemory(config)
        ? watchDiskSpace(resolve(config.dataDir), config.diskReserveMegabytes * 1024 * 1024)
        : undefined,
    clock: overrides.clock ?? systemClock,
    ids: { next: () => Bun.randomUUIDv7() },
    log,
    embedder,
    embeddingStatus: status,
    chat: loadChatModel(config),
    keywordCache: new IndexCache(keywordSource, { ...config.keywordCache, log }),
    vectorCache: new IndexCache(vectorSource, {
      minDocuments: config.vectorCache.minDocuments,
      maxBytes: config.vectorCache.maxMegabytes * 1024 * 1024,
      log,
    }),
    async close() {
      // The embedder switched in last (embedder-reload) is the one running; the model's process goes with us.
      await deps.embedder?.inference?.close()
      // Statistics events still held in this process (usage/events.buffer.ts) are written before the database goes.
      await flushEvents(deps)
      await database.close()
    },
  }
  return deps
}
