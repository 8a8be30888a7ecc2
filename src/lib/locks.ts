// Per-user transaction locks: serialise check-then-write rules (limits, dedup) across processes.
import { sql } from 'drizzle-orm'
import type { Tx } from '../../db/client'

export async function lockUser(tx: Tx, userId: string, scope: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${scope + ':' + userId}, 0))`)
}
