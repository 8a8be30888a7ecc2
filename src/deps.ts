// Deps: everything a service needs, made once at boot (or per test) and passed explicitly.
import { createDb, type Database, type Db } from '../db/client'
import { runMigrations } from '../db/migrate'
import type { Config } from './config'
import { createLogger, type Logger } from './log'

export interface Clock {
  now(): Date
}

export interface Deps {
  config: Config
  db: Db
  dbKind: Database['kind']
  clock: Clock
  ids: { next(): string }
  log: Logger
  close(): Promise<void>
}

export interface DepsOverrides {
  database?: Database
  clock?: Clock
  log?: Logger
}

export const systemClock: Clock = { now: () => new Date() }

export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<Deps> {
  const database = overrides.database ?? (await createDb(config))
  if (!overrides.database) await runMigrations(database, config.databaseUrl)
  return {
    config,
    db: database.db,
    dbKind: database.kind,
    clock: overrides.clock ?? systemClock,
    ids: { next: () => Bun.randomUUIDv7() },
    log: overrides.log ?? createLogger(config.logLevel),
    close: () => database.close(),
  }
}
