// Deps: everything a service needs, made once at boot (or per test, create-deps.ts) and passed explicitly.
// Types only: every layer reads this contract, so it imports nothing that runs (checked: .dependency-cruiser.cjs).
import type { Database, Db } from '../db/client'
import type { DiskSpace } from '../db/disk-space'
import type { Checkpointer } from '../db/pglite-checkpoints'
import type { PgliteGuard } from '../db/pglite-guard'
import type { Embedder, EmbeddingStatus } from './embedding/embeddings'
import type { ChatModel } from './ai/models'
import type { Config } from './config'
import type { Logger } from './log'
import type { IndexCache } from './retrieval/index-cache'
import type { KeywordIndex } from './retrieval/keyword-cache'
import type { VectorIndex } from './retrieval/vector-cache'

export interface Clock {
  now(): Date
}

export interface Deps {
  config: Config
  db: Db
  dbKind: Database['kind']
  /** The embedded database's crash state (absent on PostgreSQL): health answers 503 and the server exits on a crash. */
  databaseGuard?: PgliteGuard
  /** The embedded database's checkpoints and data directory sizes (absent on PostgreSQL and in memory). */
  databaseStorage?: Checkpointer
  /** Room on DATA_DIR's disk, for the embedded database: writes are refused while it is under the reserve. */
  diskSpace?: DiskSpace
  clock: Clock
  ids: { next(): string }
  log: Logger
  /** service-embed, or null when no model could be loaded (keyword search only; see embeddingStatus). */
  embedder: Embedder | null
  embeddingStatus: EmbeddingStatus
  /** service-rag: the configured chat model, or the built-in extractive answerer. Tests replace it. */
  chat: ChatModel
  /** Users' keyword indexes cached in process: an exact accelerator of keyword ranking. */
  keywordCache: IndexCache<KeywordIndex>
  /** Users' vector indexes (chunk vectors of the loaded model) cached in process: an exact accelerator of semantic ranking. */
  vectorCache: IndexCache<VectorIndex>
  close(): Promise<void>
}
