// Deps: everything a service needs, made once at boot (or per test) and passed explicitly.
import { createDb, type Database, type Db } from '../db/client'
import type { PgliteGuard } from '../db/pglite-guard'
import { runMigrations } from '../db/migrate'
import { loadEmbedder, type Embedder, type EmbeddingStatus } from './ai/embeddings'
import { loadChatModel, type ChatModel } from './ai/models'
import type { Config } from './config'
import { createLogger, type Logger } from './log'
import { flushEvents } from './modules/usage/events.buffer'
import { KeywordMemory } from './retrieval/keyword-memory'
import { VectorMemory } from './retrieval/vector-memory'

export interface Clock {
  now(): Date
}

export interface Deps {
  config: Config
  db: Db
  dbKind: Database['kind']
  /** The embedded database's crash state (absent on PostgreSQL): health answers 503 and the server exits on a crash. */
  databaseGuard?: PgliteGuard
  clock: Clock
  ids: { next(): string }
  log: Logger
  /** service-embed, or null when no model could be loaded (keyword search only; see embeddingStatus). */
  embedder: Embedder | null
  embeddingStatus: EmbeddingStatus
  /** service-rag: the configured chat model, or the built-in extractive answerer. Tests replace it. */
  chat: ChatModel
  /** In-process copies of users' keyword indexes: an exact accelerator of keyword ranking. */
  keywordMemory: KeywordMemory
  /** In-process copies of users' chunk vectors: an exact accelerator of semantic ranking. */
  vectorMemory: VectorMemory
  close(): Promise<void>
}

export interface DepsOverrides {
  database?: Database
  clock?: Clock
  log?: Logger
}

export const systemClock: Clock = { now: () => new Date() }

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  const log = overrides.log ?? createLogger(config.logLevel)
  const onStaleLock = (stale: { pid: number; command: string }) => log.warn('took over the lock of a process that is gone', { data_dir: config.dataDir, pid: stale.pid, command: stale.command })
  const database = overrides.database ?? (await createDb(config, { onStaleLock }))
  if (!overrides.database) await runMigrations(database, config.databaseUrl)
  const { embedder, status } = await loadEmbedder(config, log)
  const deps: Deps = {
    config,
    db: database.db,
    dbKind: database.kind,
    databaseGuard: database.guard,
    clock: overrides.clock ?? systemClock,
    ids: { next: () => Bun.randomUUIDv7() },
    log,
    embedder,
    embeddingStatus: status,
    chat: loadChatModel(config),
    keywordMemory: new KeywordMemory({ ...config.keywordMemory, log }),
    vectorMemory: new VectorMemory({ minDocuments: config.vectorMemory.minDocuments, maxBytes: config.vectorMemory.maxMegabytes * 1024 * 1024, log }),
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
