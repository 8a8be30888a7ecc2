// Does the database answer? A `select 1` with a deadline: used by GET / and by the watchdog.
import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'

/** Long enough for a busy database, short enough for a load balancer's health check. */
export const DATABASE_CHECK_MS = 2_000

/** null when the database answered within `timeoutMs`; else why not, in words a health check can show. */
export async function checkDatabase(db: Db, timeoutMs = DATABASE_CHECK_MS): Promise<string | null> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`database did not answer within ${timeoutMs / 1000} s`), timeoutMs)
  })
  const answer = db.execute(sql`select 1`).then(
    () => null,
    // drizzle wraps the driver's error in "Failed query: …"; the cause is what says why.
    (error: unknown) =>
      `database error: ${String((error as Error)?.cause instanceof Error ? (error as Error).cause : error).replace(/^\w*Error: /, '')}`,
  )
  try {
    return await Promise.race([answer, late])
  } finally {
    clearTimeout(timer)
  }
}
