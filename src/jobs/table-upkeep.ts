// What autovacuum does on PostgreSQL, done by the maintenance tick on the embedded database, which runs none: a
// table is VACUUMed once enough rows were inserted or left dead (so its pages are marked all-visible and its
// space reused) and ANALYZEd once enough of it changed (so the planner knows its size: plans made without
// statistics read every row of a user). The rules are autovacuum's own, read
// from pg_stat_user_tables, and each table is its own statement, with the requests waiting let through between two
// — PGlite runs a statement on the process's one thread, so the whole-database VACUUM ANALYZE this replaces held
// every request for seconds after a bulk ingest (bench:search --after-ingest); the tick's upkeep also waits for a
// lull in requests (LULL_MS, MAX_DEFER_MS). On PostgreSQL it does nothing.
import { sql } from 'drizzle-orm'
import { queryRows, requestsQuietFor, walMegabytesSince, walPosition, yieldConnection } from '../../db/client'
import type { Deps } from '../deps'

// PostgreSQL's autovacuum_* defaults, except the insert scale: 0.2 there; smaller here, so that the vacuum of a
// growing table comes in more, smaller steps (a vacuum skips pages already all-visible: the total is the same).
const VACUUM_THRESHOLD = 50
const VACUUM_SCALE = 0.2
const INSERT_THRESHOLD = 1000
const INSERT_SCALE = 0.05
const ANALYZE_THRESHOLD = 50
const ANALYZE_SCALE = 0.1
/** How long a statement waits, at most, for the requests queued before it (yieldConnection). */
const LET_THROUGH_MS = 250
/**
 * The maintenance tick's upkeep of a table waits for a lull this long in requests: the VACUUM or ANALYZE of a large
 * table holds the thread for 100s of ms (postings: 270–330 ms at 20,000 documents), which a search arriving then
 * waits out — the slowest search after a bulk ingest was one of those…
 */
const LULL_MS = 1_000
/** …for this long at most once the table is due, so a busy server's planner statistics still stay current. */
const MAX_DEFER_MS = 2 * 60_000

interface TableCounts {
  name: string
  /** pg_class.reltuples: rows at the last VACUUM or ANALYZE (0 before either). */
  tuples: number
  dead: number
  inserted: number
  modified: number
}

/** What a table is due for by autovacuum's rules. */
export function dueFor(t: TableCounts): { vacuum: boolean; analyze: boolean } {
  return {
    vacuum: t.dead > VACUUM_THRESHOLD + VACUUM_SCALE * t.tuples || t.inserted > INSERT_THRESHOLD + INSERT_SCALE * t.tuples,
    analyze: t.modified > ANALYZE_THRESHOLD + ANALYZE_SCALE * t.tuples,
  }
}

/**
 * One pass: each table due VACUUMed and/or ANALYZEd, one statement at a time. Answers what ran ("vacuum postings").
 * With `dueSince` (the maintenance tick's, kept across its passes: when each table became due), a table waits for a
 * lull in requests (LULL_MS), or until it has been due for MAX_DEFER_MS; without, every table due runs now.
 */
export async function upkeepTables(deps: Deps, dueSince?: Map<string, number>): Promise<string[]> {
  if (deps.dbKind !== 'pglite') return []
  // The counts of the statements just run are flushed at most once a second; this asks for them now.
  await deps.db.execute(sql`select pg_stat_force_next_flush()`)
  const tables = await queryRows<TableCounts>(
    deps.db,
    sql`select s.relname as name, greatest(c.reltuples, 0)::float8 as tuples, s.n_dead_tup::float8 as dead,
          s.n_ins_since_vacuum::float8 as inserted, s.n_mod_since_analyze::float8 as modified
        from pg_stat_user_tables s join pg_class c on c.oid = s.relid
        where s.schemaname = 'public' order by s.relname`,
  )
  const ran: string[] = []
  for (const table of tables) {
    const due = dueFor(table)
    if (!due.vacuum && !due.analyze) continue
    if (dueSince) {
      const since = dueSince.get(table.name) ?? Date.now()
      dueSince.set(table.name, since)
      if (requestsQuietFor(deps.db) < LULL_MS && Date.now() - since < MAX_DEFER_MS) continue
      dueSince.delete(table.name)
    }
    await yieldConnection(deps.db, LET_THROUGH_MS)
    const name = sql.identifier(table.name)
    const started = performance.now()
    const walBefore = await walPosition(deps.db)
    if (due.vacuum && due.analyze) await deps.db.execute(sql`vacuum (analyze) ${name}`)
    else if (due.vacuum) await deps.db.execute(sql`vacuum ${name}`)
    else await deps.db.execute(sql`analyze ${name}`)
    const what = `${due.vacuum ? 'vacuum' : ''}${due.vacuum && due.analyze ? ' and ' : ''}${due.analyze ? 'analyze' : ''} ${table.name}`
    // What each statement cost the process and the log: the log's bound is kept between statements, not within one.
    deps.log.debug('table kept up', {
      ran: what,
      ms: Math.round(performance.now() - started),
      wal_mb: await walMegabytesSince(deps.db, walBefore),
    })
    ran.push(what)
  }
  return ran
}

/** Every table VACUUMed and ANALYZEd, one at a time (benchmarks, after seeding: the state the tick reaches). */
export async function vacuumAnalyzeAll(deps: Deps): Promise<void> {
  if (deps.dbKind !== 'pglite') return
  const tables = await queryRows<{ name: string }>(
    deps.db,
    sql`select relname as name from pg_stat_user_tables where schemaname = 'public' order by relname`,
  )
  for (const { name } of tables) await deps.db.execute(sql`vacuum (analyze) ${sql.identifier(name)}`)
}
