// Usage: API calls per calendar month (atomic upserts, correct across processes), documents and storage.
import { and, eq, sql, type SQL } from 'drizzle-orm'
import { documents, settings, storageTotals, usageCounters } from '../../../db/schema'
import { queryRows, type Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { asPlan, limitsOf } from '../../plans'
import type { Plan } from '../../config'
import type { SessionUser } from '../auth/session-user'
import { bufferEvent, type EventType } from './events.buffer'

export const periodOf = (date: Date) => date.toISOString().slice(0, 7)

/** Counts one authenticated request and answers this month's total. */
export async function countApiCall(deps: Deps, userId: string): Promise<number> {
  const [row] = await deps.db
    .insert(usageCounters)
    .values({ user_id: userId, period: periodOf(deps.clock.now()), api_calls: 1 })
    .onConflictDoUpdate({ target: [usageCounters.user_id, usageCounters.period], set: { api_calls: sql`${usageCounters.api_calls} + 1` } })
    .returning({ api_calls: usageCounters.api_calls })
  return row?.api_calls ?? 1
}

/**
 * A credential's lookup (`lookup` selects one row whose `id` is the user's id, or none), the caller's settings, and,
 * when `count`, this request counted against the month — in one statement: every authenticated request pays one
 * round trip for all three instead of three. Nothing is counted when the credential matches nothing. `api_calls` is
 * the month's total with this request (null when not counted); `settings` is the stored row's JSON, or null.
 */
export async function lookupAndCount<T extends { id: string }>(
  deps: Deps,
  lookup: SQL,
  count: boolean,
): Promise<(T & { api_calls: number | null; settings: Record<string, string | null> | null }) | undefined> {
  const [row] = await queryRows<T & { api_calls: number | null; settings: Record<string, string | null> | null }>(
    deps.db,
    sql`with found as (${lookup}),
      counted as (
        insert into ${usageCounters} (user_id, period, api_calls)
        select found.id, ${periodOf(deps.clock.now())}, 1 from found where ${sql.raw(count ? 'true' : 'false')}
        on conflict (user_id, period) do update set api_calls = ${usageCounters}.api_calls + 1
        returning api_calls)
      select found.*, (select api_calls from counted) as api_calls,
        (select to_jsonb(s) from ${settings} s where s.user_id = found.id) as settings
      from found`,
  )
  return row && { ...row, api_calls: row.api_calls === null ? null : Number(row.api_calls) }
}

/** Documents and bytes that count against the plan: every stored document, whatever its status. */
/** One row read (storage_totals, kept by a trigger), less the document being replaced when `excludeId` is one of the user's. */
export async function storedTotals(db: Tx, userId: string, excludeId?: string): Promise<{ documents: number; storage_bytes: number }> {
  const [row] = await queryRows<{ documents: number; bytes: number }>(
    db,
    sql`select t.documents - (d.id is not null)::int as documents, t.bytes - coalesce(d.size_bytes, 0) as bytes
        from ${storageTotals} t
        left join ${documents} d on d.id = ${excludeId ?? null}::uuid and d.user_id = t.user_id
        where t.user_id = ${userId}`,
  )
  return { documents: Number(row?.documents ?? 0), storage_bytes: Number(row?.bytes ?? 0) }
}

export interface UsageDto {
  plan: Plan
  period: string
  documents: { used: number; limit: number | null }
  storage_bytes: { used: number; limit: number | null }
  api_calls: { used: number; limit: number | null }
}

export async function getUsage(deps: Deps, user: SessionUser): Promise<UsageDto> {
  const period = periodOf(deps.clock.now())
  const limits = limitsOf(deps, user.plan)
  const totals = await storedTotals(deps.db, user.id)
  const [calls] = await deps.db
    .select({ n: usageCounters.api_calls })
    .from(usageCounters)
    .where(and(eq(usageCounters.user_id, user.id), eq(usageCounters.period, period)))
  return {
    plan: asPlan(user.plan),
    period,
    documents: { used: totals.documents, limit: limits.documents },
    storage_bytes: { used: totals.storage_bytes, limit: limits.storage_bytes },
    api_calls: { used: calls?.n ?? 0, limit: limits.api_calls_per_month },
  }
}

/** Counts an event for statistics and their daily series: `search`, `answer`, `ingest` — written behind the request
 * (events.buffer.ts), so it costs the request no statement. */
export async function recordEvent(deps: Deps, userId: string, type: EventType): Promise<void> {
  bufferEvent(deps, userId, type)
}
