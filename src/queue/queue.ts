// The shared Postgres job queue: enqueue, claim with FOR UPDATE SKIP LOCKED (so any number of workers in any
// number of processes can share it), finish, and retry failures with exponential backoff.
import { and, eq, getTableColumns, sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { jobs } from '../../db/schema'

export type JobRow = typeof jobs.$inferSelect

export interface EnqueueInput {
  id: string
  kind: string
  payload: Record<string, unknown>
  userId: string | null
  runAt: Date
  maxAttempts: number
}

export async function enqueue(db: Tx, input: EnqueueInput | EnqueueInput[]): Promise<void> {
  const many = Array.isArray(input) ? input : [input]
  if (many.length === 0) return
  await db.insert(jobs).values(
    many.map((job) => ({
      id: job.id,
      user_id: job.userId,
      kind: job.kind,
      payload: job.payload,
      status: 'queued' as const,
      max_attempts: job.maxAttempts,
      run_at: job.runAt,
      created_at: job.runAt,
      updated_at: job.runAt,
    })),
  )
}

/** Jobs whose worker died on their last attempt: they have no attempt left, so they failed. Answers them. */
export async function failAbandoned(db: Tx, now: Date, staleAfterMs: number): Promise<JobRow[]> {
  const stale = new Date(now.getTime() - staleAfterMs).toISOString()
  return db
    .update(jobs)
    .set({
      status: 'failed',
      locked_at: null,
      locked_by: null,
      updated_at: now,
      last_error: 'the worker running the last attempt stopped answering',
    })
    .where(sql`${jobs.status} = 'running' and ${jobs.locked_at} < ${stale}::timestamptz and ${jobs.attempts} >= ${jobs.max_attempts}`)
    .returning()
}

/**
 * Claims the next due job. A job left `running` past `staleAfterMs` (its worker crashed) is claimable
 * again, so work is picked up, not lost; SKIP LOCKED keeps two workers from claiming the same row.
 * `kinds` restricts the claim to those job kinds (a worker dedicated to some work); all kinds by default.
 */
export async function claimNext(
  db: Tx,
  workerId: string,
  now: Date,
  staleAfterMs: number,
  kinds?: readonly string[],
): Promise<JobRow | null> {
  const [job] = await claimDue(db, workerId, now, staleAfterMs, kinds, 1)
  return job ?? null
}

/** Claims up to `limit` due jobs at once, oldest first, on the same terms as claimNext — one statement (db/functions/claim-due-jobs.sql). */
export async function claimDue(
  db: Tx,
  workerId: string,
  now: Date,
  staleAfterMs: number,
  kinds: readonly string[] | undefined,
  limit: number,
): Promise<JobRow[]> {
  // Timestamps as ISO text: postgres.js does not bind Date values inside raw SQL.
  const [at, stale] = [now.toISOString(), new Date(now.getTime() - staleAfterMs).toISOString()]
  const claimed = await queryRows<Record<string, unknown>>(
    db,
    sql`select * from claim_due_jobs(${workerId}, ${at}::timestamptz, ${stale}::timestamptz,
                                     ${kinds ? `{${kinds.map((k) => JSON.stringify(k)).join(',')}}` : null}::text[], ${limit})`,
  )
  return claimed.map(jobRow).sort((a, b) => a.run_at.getTime() - b.run_at.getTime() || a.id.localeCompare(b.id))
}

/** A row of jobs read in raw SQL as the query builder reads it (each driver answers timestamps its own way). */
function jobRow(raw: Record<string, unknown>): JobRow {
  const columns = Object.entries(getTableColumns(jobs)).map(([key, column]) => {
    const value = raw[column.name]
    return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)]
  })
  return Object.fromEntries(columns) as JobRow
}

export async function completeJob(db: Tx, job: JobRow, now: Date): Promise<void> {
  await completeJobs(db, [job], now)
}

/** Completes these jobs in one statement (each only if not claimed again meanwhile: same attempt). */
export async function completeJobs(db: Tx, done: JobRow[], now: Date): Promise<void> {
  if (!done.length) return
  const claims = JSON.stringify(done.map((j) => ({ id: j.id, attempts: j.attempts })))
  await db
    .update(jobs)
    .set({ status: 'succeeded', locked_at: null, locked_by: null, last_error: null, updated_at: now })
    .where(
      // The ids as an array too, so the rows are read by primary key (not a scan of the queue joined to the recordset).
      sql`${jobs.id} = any(${`{${done.map((j) => j.id).join(',')}}`}::uuid[])
          and (${jobs.id}, ${jobs.attempts}) in (select x.id, x.attempts from jsonb_to_recordset(${claims}::jsonb) as x(id uuid, attempts int))`,
    )
}

/** Exponential backoff with jitter: ~2 s, 4 s, 8 s … capped at 10 minutes. */
export const backoffMs = (attempt: number) => Math.min(600_000, 1000 * 2 ** attempt) * (0.75 + Math.random() * 0.5)

/** 'lost' when the job was meanwhile claimed again (this worker was taken for dead): nothing is written. */
export async function failJob(db: Tx, job: JobRow, error: string, now: Date): Promise<'retry' | 'failed' | 'lost'> {
  const outcome = job.attempts >= job.max_attempts ? 'failed' : 'retry'
  const updated = await db
    .update(jobs)
    .set({
      status: outcome === 'failed' ? 'failed' : 'queued',
      run_at: outcome === 'failed' ? job.run_at : new Date(now.getTime() + backoffMs(job.attempts)),
      locked_at: null,
      locked_by: null,
      last_error: error.slice(0, 2000),
      updated_at: now,
    })
    .where(and(eq(jobs.id, job.id), eq(jobs.attempts, job.attempts), eq(jobs.status, 'running')))
    .returning({ id: jobs.id })
  return updated.length ? outcome : 'lost'
}

/**
 * Renews a long job's claim so it is not taken for a crashed worker's. False when the job was meanwhile
 * claimed again (this worker was taken for dead): the caller must stop without writing.
 */
export async function touchJob(db: Tx, job: JobRow, now: Date): Promise<boolean> {
  const touched = await db
    .update(jobs)
    .set({ locked_at: now, updated_at: now })
    .where(and(eq(jobs.id, job.id), eq(jobs.attempts, job.attempts), eq(jobs.status, 'running')))
    .returning({ id: jobs.id })
  return touched.length > 0
}
