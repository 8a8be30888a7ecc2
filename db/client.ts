// createDb(config): embedded PGlite under DATA_DIR by default (one process at a time: it holds the directory's
// lock), postgres.js when DATABASE_URL is set — one Db type.
import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { PGlite, type QueryOptions, type Transaction } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { type SQL, sql } from 'drizzle-orm'
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core'
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite'
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js'
import postgres from 'postgres'
import { DEFAULT_WAL_MAX_MB, isInMemory, type Config } from '../src/config'
import { lockDataDir, type DataDirLock, type LockOwner } from '../src/lib/data-dir-lock'
import { startCheckpointer, type Checkpointer } from './pglite-checkpoints'
import { pgTimestampToIso } from './pg-timestamps'
import { pgliteStartParams } from './pglite-start-params'
import { guardPglite, type PgliteGuard } from './pglite-guard'
import * as schema from './schema'

export type Schema = typeof schema
export type Db = PgDatabase<PgQueryResultHKT, Schema>
/** A transaction or the database itself: services take either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db

export interface Database {
  db: Db
  kind: 'pglite' | 'postgres'
  close(): Promise<void>
  /** The embedded instance, when there is one (tests clone it). */
  pglite?: PGlite
  /** Whether the embedded instance has crashed (db/pglite-guard.ts); absent for PostgreSQL. */
  guard?: PgliteGuard
  /** The embedded instance's checkpoints and sizes, when it keeps its files in DATA_DIR (db/pglite-checkpoints.ts). */
  checkpointer?: Checkpointer
}

export interface CreateDbOptions {
  /** Use this PGlite instance (e.g. a clone of a migrated template) instead of opening DATA_DIR. */
  pglite?: PGlite
  /** postgres.js pool size; 10 by default. */
  poolSize?: number
  /** Told when DATA_DIR's lock was left by a process that is gone (kill -9, a crash) and is taken over. */
  onStaleLock?: (stale: LockOwner) => void
  /** Told when a background checkpoint of the embedded database fails. */
  onError?: (error: unknown) => void
  /** Told of each statement or transaction on the embedded database that held its one connection (and, PGlite
   * running on the process's thread, every request) for SLOW_STATEMENT_MS or more. */
  onSlow?: (slow: SlowStatement) => void
}

/** What the embedded database held its connection for SLOW_STATEMENT_MS or more: the statement's opening words
 * (parameters are sent apart from the text, so no value is in it), or "transaction". */
export interface SlowStatement {
  ms: number
  statement: string
}
/** Longer than this, a statement on the embedded database is worth a debug line: every request waited for it. */
export const SLOW_STATEMENT_MS = 100

export async function createDb(
  config: Pick<Config, 'dataDir' | 'databaseUrl'> & Partial<Pick<Config, 'walMaxMegabytes'>>,
  options: CreateDbOptions = {},
): Promise<Database> {
  if (config.databaseUrl && !options.pglite) {
    const client = postgres(config.databaseUrl, { max: options.poolSize ?? 10, onnotice: () => {} })
    const db = drizzlePostgres(client, { schema }) as unknown as Db
    // After drizzle, which sets these types' parsers to hand the text on as it came.
    for (const oid of TIMESTAMP_TYPES) client.options.parsers[oid] = pgTimestampToIso
    return { db, kind: 'postgres', close: () => client.end({ timeout: 5 }) }
  }
  if (options.pglite) return pgliteDatabase(options.pglite, null, options.onSlow)
  // The lock is taken before PGlite touches the directory, and let go only once it is closed.
  const lock = isInMemory(config) ? null : lockDataDir(resolve(config.dataDir), options.onStaleLock)
  const walLimitBytes = (config.walMaxMegabytes ?? DEFAULT_WAL_MAX_MB) * 1024 * 1024
  try {
    const database = pgliteDatabase(await openPglite(config.dataDir, walLimitBytes), lock, options.onSlow)
    if (!isInMemory(config)) database.checkpointer = checkpointerFor(database, config.dataDir, walLimitBytes, options.onError)
    return database
  } catch (error) {
    lock?.release()
    throw error
  }
}

function checkpointerFor(database: Database, dataDir: string, limitBytes: number, onError = (_: unknown) => {}): Checkpointer {
  const pglite = database.pglite as PGlite
  const use = connectionUses.get(pglite) as ConnectionUse
  const checkpointer = startCheckpointer({
    pglite,
    dataDir: resolve(dataDir),
    clusterDir: join(resolve(dataDir), 'pglite'),
    limitBytes,
    waitForQuiet: (atMostMs) => waitForQuiet(use, atMostMs),
    onError,
  })
  const close = database.close
  database.close = () => {
    checkpointer.stop()
    return close()
  }
  return checkpointer
}

function pgliteDatabase(pglite: PGlite, lock: DataDirLock | null, onSlow?: (slow: SlowStatement) => void): Database {
  const guard = guardPglite(pglite)
  const close = async () => {
    try {
      // A crashed instance cannot run its shutdown statements; its files stay as the last commit left them.
      if (!pglite.closed && guard.crashed === null) await pglite.close()
    } finally {
      lock?.release()
    }
  }
  return {
    db: drizzlePglite(countUses(withTextParsers(pglite), onSlow), { schema }) as unknown as Db,
    kind: 'pglite',
    close,
    pglite,
    guard,
  }
}

/** How many statements and transactions are waiting for or holding an embedded instance's one connection. */
interface ConnectionUse {
  busy: number
  /** When the last of them ended (performance.now()). */
  lastDone: number
  /** Told when `busy` drops to 0. */
  idle: (() => void)[]
  /** The same for requests' statements alone (those not run inBackground), which background statements wait for. */
  foreground: number
  lastForeground: number
}

const connectionUses = new WeakMap<PGlite, ConnectionUse>()

/** Counts what goes through the instance's query, exec and transaction (everything drizzle sends), for
 * yieldConnection, and tells `onSlow` of what took SLOW_STATEMENT_MS or more. */
function countUses(pglite: PGlite, onSlow?: (slow: SlowStatement) => void): PGlite {
  const use: ConnectionUse = { busy: 0, lastDone: 0, idle: [], foreground: 0, lastForeground: 0 }
  const target = pglite as unknown as Record<'query' | 'exec' | 'transaction', (...args: unknown[]) => Promise<unknown>>
  for (const name of ['query', 'exec', 'transaction'] as const) {
    const original = target[name].bind(pglite)
    const run = (args: unknown[], foreground: boolean) => {
      use.busy++
      if (foreground) use.foreground++
      const done = () => {
        use.lastDone = performance.now()
        if (foreground) use.foreground--, (use.lastForeground = use.lastDone)
        if (--use.busy === 0) for (const tell of use.idle.splice(0)) tell()
      }
      if (!onSlow) return original(...args).finally(done)
      const started = performance.now()
      return original(...args).finally(() => {
        done()
        const ms = performance.now() - started
        if (ms >= SLOW_STATEMENT_MS)
          onSlow({
            ms: Math.round(ms),
            statement: typeof args[0] === 'string' ? args[0].replace(/\s+/g, ' ').slice(0, 120) : 'transaction',
          })
      })
    }
    target[name] = (...args) => (background.getStore() ? afterRequests(use).then(() => run(args, false)) : run(args, true))
  }
  connectionUses.set(pglite, use)
  return pglite
}

/** Once others used the connection, how long it must stay unused before a long writer takes it again: PGlite runs
 * a statement on the process's one thread, so a writer's statement would also hold the rest of their requests (an
 * answer compressed off the thread, waiting to be sent). */
const QUIET_MS = 10

const background = new AsyncLocalStorage<true>()

/** How long a background statement waits for requests at most: under constant load, background work still moves. */
const BACKGROUND_WAIT_MS = 25

/**
 * Runs `work` as background work (the job worker, maintenance): on the embedded database each of its statements and
 * transactions, before it starts, lets requests go first — it waits until their statements have left the
 * connection for QUIET_MS, or BACKGROUND_WAIT_MS at most. PGlite runs one statement at a time on the process's one
 * thread, first come first served: without this a search right after a bulk ingest, with a suggestion job a
 * document queued, waited behind a job’s statement before each of its own (bench:search --after-ingest).
 * A transaction waits once, before it starts; its statements never do. On
 * PostgreSQL `work` just runs: its pool gives requests connections of their own.
 */
export const inBackground = <T>(work: () => PromiseLike<T>): Promise<T> => background.run(true, async () => await work())

/** How long requests' statements have left the embedded database's connection alone, in ms (Infinity on PostgreSQL). */
export function requestsQuietFor(db: Db): number {
  const client = (db as unknown as { $client?: PGlite }).$client
  const use = client && connectionUses.get(client)
  return use ? quietFor(use) : Number.POSITIVE_INFINITY
}

/**
 * Background work about to hold the thread with work of its own (a job's rankings in memory) lets requests go first
 * as its statements do: it waits until their statements have left the embedded database alone for QUIET_MS, or
 * BACKGROUND_WAIT_MS at most. At once outside inBackground, and on PostgreSQL.
 */
export async function requestsFirst(db: Tx): Promise<void> {
  const client = (db as unknown as { $client?: PGlite }).$client
  const use = client && connectionUses.get(client)
  if (use && background.getStore()) await afterRequests(use)
}

const quietFor = (use: ConnectionUse) => (use.foreground > 0 ? 0 : performance.now() - use.lastForeground)

async function afterRequests(use: ConnectionUse): Promise<void> {
  const deadline = performance.now() + BACKGROUND_WAIT_MS
  for (;;) {
    const [now, quiet] = [performance.now(), quietFor(use)]
    if (quiet >= QUIET_MS || now >= deadline) return
    await Bun.sleep(Math.min(QUIET_MS - quiet, deadline - now))
  }
}

/**
 * For a long write cut into transactions (a bulk ingest): between two of them, lets every statement and transaction
 * that waits for the embedded database's one connection run first, and the requests they belong to finish — until,
 * after a turn of the event loop, nobody has used the connection, or nobody has for QUIET_MS — or until `atMostMs`
 * passed, so the writer keeps at least its share. PGlite's queue is first come, first served: without this, a
 * request of several statements would wait a whole transaction of the writer before each of them. At once on
 * PostgreSQL, whose pool gives every request a connection of its own.
 */
export async function yieldConnection(db: Db, atMostMs: number): Promise<void> {
  const client = (db as unknown as { $client?: PGlite }).$client
  const use = client && connectionUses.get(client)
  if (use) await waitForQuiet(use, atMostMs)
}

async function waitForQuiet(use: ConnectionUse, atMostMs: number): Promise<void> {
  const started = performance.now()
  const deadline = started + atMostMs
  await new Promise((resolve) => setImmediate(resolve))
  for (;;) {
    const now = performance.now()
    if (now >= deadline) return
    if (use.busy > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - now)
        use.idle.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
      continue
    }
    if (use.lastDone <= started || now - use.lastDone >= QUIET_MS) return
    await Bun.sleep(Math.min(QUIET_MS - (now - use.lastDone), deadline - now))
  }
}

/** Types drizzle reads as the text PostgreSQL sends: timestamps, dates, intervals, and arrays of them and of numeric. */
const TEXT_TYPES = [1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182]
/** Timestamp and timestamptz, handed on as ISO 8601 rather than PostgreSQL's text (db/pg-timestamps.ts says why). */
const TIMESTAMP_TYPES = [1114, 1184]

/**
 * PGlite, without a cost drizzle adds: drizzle's PGlite session sends the same parsers (TEXT_TYPES as text) with
 * every query, and PGlite merges them into its own table of ~300 type parsers on every query — an object spread
 * that costs more than a small statement does (0.27 ms a query against 0.12 ms without, measured). The parsers
 * are set on the instance once instead, and its queries (and its transactions' queries) go without them: the
 * same results. The instance is changed in place, so whoever holds it gets the same behaviour.
 */
function withTextParsers(pglite: PGlite): PGlite {
  const parsers = (pglite as unknown as { parsers: Record<number, (value: string) => unknown> }).parsers
  for (const oid of TEXT_TYPES) parsers[oid] = TIMESTAMP_TYPES.includes(oid) ? pgTimestampToIso : (value) => value
  const dropParsers = (client: Pick<PGlite, 'query'>) => {
    const query = client.query.bind(client)
    client.query = ((text: string, params?: unknown[], options?: QueryOptions) =>
      query(text, params, options?.parsers ? { ...options, parsers: undefined } : options)) as PGlite['query']
  }
  dropParsers(pglite)
  const transaction = pglite.transaction.bind(pglite)
  pglite.transaction = ((fn: (tx: Transaction) => Promise<unknown>) =>
    transaction((tx) => {
      dropParsers(tx)
      return fn(tx)
    })) as PGlite['transaction']
  return pglite
}

/** PGlite on DATA_DIR (or in memory). Callers other than createDb hold the directory's lock themselves. */
export async function openPglite(dataDir: string, walLimitBytes = DEFAULT_WAL_MAX_MB * 1024 * 1024): Promise<PGlite> {
  if (isInMemory({ dataDir })) return PGlite.create({ extensions: { vector } })
  const dir = join(resolve(dataDir), 'pglite')
  mkdirSync(dir, { recursive: true })
  return PGlite.create({ dataDir: dir, extensions: { vector }, startParams: pgliteStartParams(walLimitBytes) })
}

/** Rows of a raw SQL query on either driver (PGlite answers `{ rows }`, postgres.js an array). */
export async function queryRows<T>(db: Tx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] }
  return Array.isArray(result) ? result : result.rows
}

/** Bytes of write-ahead log written since the cluster began: two readings apart, what was written between them. */
export async function walPosition(db: Tx): Promise<number> {
  const [row] = await queryRows<{ bytes: number }>(db, sql`select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 as bytes`)
  return Number(row?.bytes ?? 0)
}

/** The log written since `before` (a walPosition), in MB to a tenth: what a maintenance statement's debug line says. */
export async function walMegabytesSince(db: Tx, before: number): Promise<number> {
  return Math.round(((await walPosition(db)) - before) / 100_000) / 10
}
