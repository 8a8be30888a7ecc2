// The activity record's rules: every write to a person's data appends what happened and who did it (in the
// write's own transaction, so a rolled-back write leaves no entry); the person reads it newest first; forgetting a
// document erases its title from every entry about it; entries older than ACTIVITY_RETENTION_DAYS go.
import { and, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm'
import { activity } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { decodeCursor, toPage } from '../../lib/cursor'
import type { TimeRange } from '../../lib/time-range'
import { SYSTEM, type SessionUser } from '../auth/session-user'
import { toActivityDto, type ActivityEntry } from './activity.model'

/**
 * Appends `entries` as done by `user`'s actor now, in one statement however many: the rows travel as one JSON
 * parameter (a bulk ingest records a thousand), so no statement grows a parameter per field.
 */
export async function recordActivity(
  db: Tx,
  deps: Deps,
  user: Pick<SessionUser, 'id' | 'actor'>,
  entries: ActivityEntry | ActivityEntry[],
): Promise<void> {
  const list = Array.isArray(entries) ? entries : [entries]
  if (list.length === 0) return
  const rows = list.map((e) => ({
    id: deps.ids.next(),
    action: e.action,
    object_type: e.object_type,
    object_id: e.object_id ?? null,
    title: e.title ?? null,
    workspace_id: e.workspace_id ?? null,
    summary: e.summary ?? {},
  }))
  await db.execute(sql`insert into ${activity} (id, user_id, at, action, object_type, object_id, title, workspace_id, actor, summary)
    select x.id, ${user.id}::uuid, ${deps.clock.now().toISOString()}::timestamptz, x.action, x.object_type, x.object_id, x.title,
      x.workspace_id, ${JSON.stringify(user.actor ?? SYSTEM)}::jsonb, x.summary
    from json_to_recordset(${JSON.stringify(rows)}::json) as x(id uuid, action text, object_type text, object_id uuid, title text,
      workspace_id uuid, summary jsonb)`)
}

export interface ActivityFilters extends TimeRange {
  object_id?: string
  object_type?: string
  /** An action (document.update) or a family of them (document, memory). */
  action?: string
  /** An actor: a key's, grant's or connector's id, or a kind (person, key, oauth, connector, system). */
  actor?: string
  limit: number
  cursor?: string
}

/** The user's activity, newest first, a page at a time. */
export async function listActivity(deps: Deps, user: SessionUser, filters: ActivityFilters) {
  const where: SQL[] = [eq(activity.user_id, user.id)]
  const before = decodeCursor(filters.cursor)
  if (before) where.push(lt(activity.id, before))
  if (filters.object_id) where.push(eq(activity.object_id, filters.object_id))
  if (filters.object_type) where.push(eq(activity.object_type, filters.object_type))
  if (filters.action) {
    where.push(filters.action.includes('.') ? eq(activity.action, filters.action) : sql`${activity.action} like ${`${filters.action}.%`}`)
  }
  if (filters.actor) {
    where.push(
      /^[0-9a-f-]{36}$/i.test(filters.actor)
        ? sql`${activity.actor}->>'id' = ${filters.actor.toLowerCase()}`
        : sql`${activity.actor}->>'kind' = ${filters.actor}`,
    )
  }
  if (filters.after !== undefined) where.push(gte(activity.at, new Date(filters.after)))
  if (filters.before !== undefined) where.push(lt(activity.at, new Date(filters.before)))
  const rows = await deps.db
    .select()
    .from(activity)
    .where(and(...where))
    .orderBy(desc(activity.id))
    .limit(filters.limit + 1)
  const page = toPage(rows, filters.limit)
  return { data: page.items.map(toActivityDto), next_cursor: page.next_cursor }
}

/** Forgotten documents keep their entries (what happened, and when) but not their titles: those are content. */
export async function eraseForgotten(tx: Tx, userId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  await tx
    .update(activity)
    .set({ title: null })
    .where(and(eq(activity.user_id, userId), inArray(activity.object_id, ids)))
}

/** Deletes entries older than the retention (none when it is 0: kept for ever); answers how many went. */
export async function pruneActivity(deps: Deps): Promise<number> {
  const days = deps.config.activityRetentionDays
  if (days === 0) return 0
  const cutoff = new Date(deps.clock.now().getTime() - days * 86_400_000)
  const gone = await deps.db.delete(activity).where(lt(activity.at, cutoff)).returning({ id: activity.id })
  return gone.length
}
