// The rules of threads: a conversation sent from outside, its messages written as documents of kind message
// through the documents' bulk ingest (plan limits, lifecycle, search and workspaces apply to them unchanged),
// read back in order, deleted or forgotten with its messages.
import { and, asc, desc, eq, gte, lt, sql } from 'drizzle-orm'
import { documents, threads } from '../../../db/schema'
import { queryRows, type Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { conflict, notFound } from '../../http/errors'
import { decodeCursor, toPage } from '../../lib/cursor'
import { eraseForgotten, recordActivity } from '../activity/activity.service'
import type { SessionUser } from '../auth/sessions.service'
import { ingestMany, type ItemResult } from '../documents/bulk.service'
import { toDocumentDto } from '../documents/documents.model'
import { forgetDocuments } from '../documents/lifecycle.service'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'
import { queueExtractionIfDue } from './extraction.queue'
import { readMessages, type MessageOrigin } from './threads.input'
import { toThreadDto, type ThreadCounts, type ThreadRow } from './threads.model'

export interface CreateThreadInput {
  workspace_id?: string
  title?: string
  external_id?: string
  metadata?: Record<string, unknown>
  messages?: unknown[]
}

/** The user's thread, or 404: another user's thread is indistinguishable from a missing one. */
export async function findThread(db: Tx, userId: string, id: string): Promise<ThreadRow> {
  const [row] = await db
    .select()
    .from(threads)
    .where(and(eq(threads.id, id), eq(threads.user_id, userId)))
  if (!row) throw notFound(`thread ${id} not found`)
  return row
}

/**
 * A new thread, or the one its external_id already names (`created` false): a client sends a conversation's id
 * each time and never keeps ours. Messages sent with it are appended as by appendMessages.
 */
export async function createThread(deps: Deps, user: SessionUser, input: CreateThreadInput, origin: MessageOrigin) {
  const existing = input.external_id ? await byExternalId(deps.db, user.id, input.external_id) : undefined
  // A well-formed request that clashes with what is stored: a 409, as a client retrying with a new workspace expects.
  if (existing && input.workspace_id && existing.workspace_id !== input.workspace_id)
    throw conflict(`external_id ${input.external_id} names a thread of another workspace (${existing.workspace_id})`)
  let thread = existing
  if (!thread) {
    const inserted = await startThread(deps, user, {
      workspace_id: input.workspace_id,
      title: input.title,
      external_id: input.external_id,
      metadata: input.metadata,
    })
    thread = inserted ?? (await byExternalId(deps.db, user.id, input.external_id!))!
  }
  const results = input.messages ? await appendToThread(deps, user, thread, input.messages, origin) : undefined
  return { thread: await threadDto(deps.db, await findThread(deps.db, user.id, thread.id)), created: !existing, results }
}

export interface NewThread {
  /** The default workspace of the settings when not given. */
  workspace_id?: string
  title?: string
  external_id?: string
  conversation_id?: string
  metadata?: Record<string, unknown>
}

/**
 * Inserts a thread; undefined when its external_id or conversation_id names one already — two requests starting
 * the same conversation at once: the caller reads the first's.
 */
export async function startThread(deps: Deps, user: SessionUser, input: NewThread): Promise<ThreadRow | undefined> {
  const workspaceId = await resolveWorkspaceId(deps.db, user.id, input.workspace_id)
  const now = deps.clock.now()
  const [inserted] = await deps.db
    .insert(threads)
    .values({
      id: deps.ids.next(),
      user_id: user.id,
      workspace_id: workspaceId,
      title: input.title?.trim() || 'Conversation',
      external_id: input.external_id ?? null,
      conversation_id: input.conversation_id ?? null,
      metadata: input.metadata ?? {},
      created_at: now,
      updated_at: now,
    })
    .onConflictDoNothing()
    .returning()
  if (inserted) await recordActivity(deps.db, deps, user, { action: 'thread.create', ...aboutThread(inserted) })
  return inserted
}

const aboutThread = (row: ThreadRow) => ({
  object_type: 'thread' as const,
  object_id: row.id,
  title: row.title,
  workspace_id: row.workspace_id,
})

/** Appends (or updates, when sent again) messages of the thread: one result per message, in order. */
export async function appendMessages(deps: Deps, user: SessionUser, threadId: string, raw: unknown[], origin: MessageOrigin) {
  return appendToThread(deps, user, await findThread(deps.db, user.id, threadId), raw, origin)
}

async function appendToThread(deps: Deps, user: SessionUser, thread: ThreadRow, raw: unknown[], origin: MessageOrigin) {
  const items = await readMessages(thread, raw, origin, deps.clock.now())
  const written = await ingestMany(deps, user, items)
  await deps.db.update(threads).set({ updated_at: deps.clock.now() }).where(eq(threads.id, thread.id))
  await queueExtractionIfDue(deps, thread)
  return summarize(written)
}

function summarize(written: ItemResult[]) {
  const results = written.map((r) => ('error' in r ? r : { status: r.status, document: toDocumentDto(r.document) }))
  const count = (status: number) => results.filter((r) => r.status === status).length
  return { results, created: count(201), updated: count(200), failed: results.length - count(201) - count(200) }
}

export async function getThread(deps: Deps, user: SessionUser, id: string) {
  return threadDto(deps.db, await findThread(deps.db, user.id, id))
}

/** Threads, most recently written first. */
export async function listThreads(deps: Deps, user: SessionUser, query: { workspace_id?: string; limit?: number; cursor?: string }) {
  const limit = query.limit ?? 20
  const after = decodeCursor(query.cursor)
  const where = [eq(threads.user_id, user.id)]
  if (query.workspace_id) where.push(eq(threads.workspace_id, await resolveWorkspaceId(deps.db, user.id, query.workspace_id)))
  if (after) where.push(lt(threads.id, after))
  const rows = await deps.db
    .select()
    .from(threads)
    .where(and(...where))
    .orderBy(desc(threads.id))
    .limit(limit + 1)
  const page = toPage(rows, limit)
  const counts = await countsOf(
    deps.db,
    page.items.map((t) => t.id),
  )
  return { data: page.items.map((t) => toThreadDto(t, counts.get(t.id) ?? NO_MESSAGES)), next_cursor: page.next_cursor }
}

/** A page of the thread's active messages in thread order, from a position on. */
export async function listThreadMessages(deps: Deps, user: SessionUser, id: string, query: { from_position?: number; limit?: number }) {
  const thread = await findThread(deps.db, user.id, id)
  const limit = query.limit ?? 100
  const rows = await deps.db
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.thread_id, thread.id),
        eq(documents.user_id, user.id),
        eq(documents.status, 'active'),
        gte(documents.position, query.from_position ?? 0),
      ),
    )
    .orderBy(asc(documents.position))
    .limit(limit + 1)
  const page = rows.slice(0, limit)
  return { data: page.map(toDocumentDto), next_position: rows.length > limit ? rows[limit]!.position : null }
}

export async function patchThread(
  deps: Deps,
  user: SessionUser,
  id: string,
  input: { title?: string; metadata?: Record<string, unknown> },
) {
  const thread = await findThread(deps.db, user.id, id)
  const [updated] = await deps.db
    .update(threads)
    .set({
      ...(input.title !== undefined ? { title: input.title.trim() } : {}),
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      updated_at: deps.clock.now(),
    })
    .where(eq(threads.id, thread.id))
    .returning()
  await recordActivity(deps.db, deps, user, { action: 'thread.update', ...aboutThread(updated!), summary: { fields: Object.keys(input) } })
  return threadDto(deps.db, updated!)
}

/** Deletes the thread and its messages (by cascade, as deleting a document). */
export async function deleteThread(deps: Deps, user: SessionUser, id: string): Promise<void> {
  const thread = await findThread(deps.db, user.id, id)
  await deps.db.transaction(async (tx) => {
    await tx.delete(threads).where(eq(threads.id, thread.id))
    await recordActivity(tx, deps, user, { action: 'thread.delete', ...aboutThread(thread) })
  })
}

/** Forgets every message of the thread (each leaves a content-free tombstone, as forgetting a document) and the thread. */
export async function forgetThread(deps: Deps, user: SessionUser, id: string): Promise<void> {
  const thread = await findThread(deps.db, user.id, id)
  await deps.db.transaction(async (tx) => {
    const ids = await tx
      .select({ id: documents.id })
      .from(documents)
      .where(and(eq(documents.thread_id, thread.id), eq(documents.user_id, user.id)))
    await forgetDocuments(
      tx,
      deps,
      user.id,
      ids.map((r) => r.id),
    )
    await tx.delete(threads).where(eq(threads.id, thread.id))
    // The thread's title is what its messages were about: it goes from the record too.
    await eraseForgotten(tx, user.id, [thread.id])
    await recordActivity(tx, deps, user, {
      action: 'thread.forget',
      ...aboutThread(thread),
      title: null,
      summary: { messages: ids.length },
    })
  })
}

const NO_MESSAGES: ThreadCounts = { message_count: 0, first_occurred_at: null, last_occurred_at: null }

async function threadDto(db: Tx, row: ThreadRow) {
  return toThreadDto(row, (await countsOf(db, [row.id])).get(row.id) ?? NO_MESSAGES)
}

/** Each thread's message count and time span (every status: an archived message is still part of the thread). */
async function countsOf(db: Tx, ids: string[]): Promise<Map<string, ThreadCounts>> {
  if (ids.length === 0) return new Map()
  const rows = await queryRows<{ thread_id: string; n: number; first: string | null; last: string | null }>(
    db,
    sql`select thread_id, count(*)::int as n, min(occurred_at) as first, max(occurred_at) as last from documents
        where thread_id = any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)) group by thread_id`,
  )
  return new Map(
    rows.map((r) => [
      r.thread_id,
      {
        message_count: Number(r.n),
        first_occurred_at: r.first ? new Date(r.first) : null,
        last_occurred_at: r.last ? new Date(r.last) : null,
      },
    ]),
  )
}

async function byExternalId(db: Tx, userId: string, externalId: string): Promise<ThreadRow | undefined> {
  const [row] = await db
    .select()
    .from(threads)
    .where(and(eq(threads.user_id, userId), eq(threads.external_id, externalId)))
  return row
}
