// Documents: the plan-limit verdict (ingest.service.ts and connectors use it), list, fetch, update
// (re-indexed; an agent's edit of an approved memory becomes a draft), delete and bulk delete.
import { toFileDto } from './files.service'
import { and, arrayContains, asc, desc, eq, getTableColumns, inArray, lt, sql, type SQL } from 'drizzle-orm'
import { documentFiles, documents, threads } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { notFound, paymentRequired } from '../../http/errors'
import { decodeCursor, toPage } from '../../lib/cursor'
import { lockUser } from '../../lib/locks'
import { assertWithinLimit, exceeds, limitMessage, limitsOf } from '../../plans'
import type { Action } from '../activity/activity.model'
import { recordActivity } from '../activity/activity.service'
import { actorOf, type SessionUser } from '../auth/session-user'
import { timeConditions, type TimeRange } from '../../retrieval/document-fields'
import { indexDocument, reindexFollowers } from '../../retrieval/indexing'
import { storedTotals } from '../usage/usage.service'
import { findWorkspace } from '../workspaces/workspaces.service'
import { draftRow, insertDrafts, needsApproval, type Writer } from './approval'
import { aboutDocument, changeSummary } from './document-changes'
import { countLinks } from './link-counts'
import {
  assertBodySize,
  contentHash,
  deriveExcerpt,
  normalizeTags,
  sizeOf,
  toDocumentDto,
  toSummaryDto,
  type DocumentRow,
  type Status,
} from './documents.model'

/** The limit an ingest would break, or null. Shared by ingest and GET /check so both give the same verdict. */
export async function limitVerdict(deps: Deps, db: Tx, user: SessionUser, sizeBytes: number, replacing: DocumentRow | undefined) {
  const totals = await storedTotals(db, user.id, replacing?.id)
  const limits = limitsOf(deps, user.plan)
  let reason: string | null = null
  if (!replacing && exceeds(totals.documents + 1, limits.documents)) reason = limitMessage(deps, user.plan, 'documents')
  else if (exceeds(totals.storage_bytes + sizeBytes, limits.storage_bytes)) reason = limitMessage(deps, user.plan, 'storage_bytes')
  const used = { documents: totals.documents + (replacing ? 1 : 0), storage_bytes: totals.storage_bytes + (replacing?.size_bytes ?? 0) }
  return {
    reason,
    usage: {
      documents: { used: used.documents, limit: limits.documents },
      storage_bytes: { used: used.storage_bytes, limit: limits.storage_bytes },
    },
  }
}

export interface ListFilters {
  workspace_id?: string
  tag?: string
  source?: string
  kind?: string
  kinds?: readonly string[]
  status?: Status
  /** Only this thread's messages, in their order (position) rather than newest first. */
  thread_id?: string
  /** Only what happened (occurred_at) in [after, before). */
  time?: TimeRange
  limit?: number
  cursor?: string
}

export async function listDocuments(deps: Deps, user: SessionUser, filters: ListFilters) {
  const limit = filters.limit ?? 20
  const after = decodeCursor(filters.cursor)
  const where: (SQL | undefined)[] = [eq(documents.user_id, user.id), eq(documents.status, filters.status ?? 'active')]
  if (filters.workspace_id) where.push(eq(documents.workspace_id, (await findWorkspace(deps.db, user.id, filters.workspace_id)).id))
  if (filters.tag) where.push(arrayContains(documents.tags, [filters.tag]))
  if (filters.source) where.push(eq(documents.source, filters.source))
  if (filters.kind) where.push(eq(documents.kind, filters.kind))
  if (filters.kinds) where.push(inArray(documents.kind, [...filters.kinds]))
  where.push(...timeConditions(sql`${documents.occurred_at}`, filters.time ?? {}))
  const thread = filters.thread_id
  if (thread) {
    const [found] = await deps.db
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.id, thread), eq(threads.user_id, user.id)))
    if (!found) throw notFound(`thread ${thread} not found`)
    where.push(eq(documents.thread_id, thread))
    // A thread's messages in the order they were said; the cursor (the last message's id) pages on from its place.
    if (after) where.push(sql`${documents.position} > (select position from documents where id = ${after} and thread_id = ${thread})`)
  } else if (after) where.push(lt(documents.id, after))
  const rows = await deps.db
    .select()
    .from(documents)
    .where(and(...where))
    .orderBy(...(thread ? [asc(documents.position)] : [desc(documents.id)]))
    .limit(limit + 1)
  const page = toPage(rows, limit)
  const linked = await countLinks(
    deps.db,
    user.id,
    page.items.map((r) => r.id),
  )
  return { data: page.items.map((r) => ({ ...toSummaryDto(r), links: linked.get(r.id) ?? 0 })), next_cursor: page.next_cursor }
}

/** The user's document, or 404 — another user's document is indistinguishable from a missing one. */
export async function findDocument(db: Tx, userId: string, id: string): Promise<DocumentRow> {
  const [row] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.id, id), eq(documents.user_id, userId)))
  if (!row) throw notFound(`document ${id} not found`)
  return row
}

/** A document, with the file it was uploaded as when it was. */
export async function getDocument(deps: Deps, user: SessionUser, id: string) {
  // One statement: the document and, when it was uploaded, its file's facts (never its bytes).
  const { bytes: _, ...facts } = getTableColumns(documentFiles)
  const [found] = await deps.db
    .select({ row: documents, file: facts })
    .from(documents)
    .leftJoin(documentFiles, eq(documentFiles.document_id, documents.id))
    .where(and(eq(documents.id, id), eq(documents.user_id, user.id)))
  if (!found) throw notFound(`document ${id} not found`)
  const { row } = found
  const file = found.file?.document_id ? found.file : null
  return {
    ...toDocumentDto(row),
    ...(file ? { file: toFileDto(file) } : {}),
    // Where each page, slide or sheet starts in the body: the dashboard opens a citation there.
    ...(row.sections?.length ? { sections: row.sections } : {}),
  }
}

export interface PatchInput {
  title?: string
  excerpt?: string
  body?: string
  tags?: string[]
  pinned?: boolean
}

/**
 * Content changes mark the document for re-indexing; a longer body is checked against the storage limit.
 * An agent does not edit a memory a person approved: its content change becomes a draft that supersedes it
 * (`drafted: true`), and the memory stays as it is until the draft is approved.
 */
export async function patchDocument(
  deps: Deps,
  user: SessionUser,
  id: string,
  input: PatchInput,
  writer: Writer,
  record?: { action: Action; summary: Record<string, unknown> },
) {
  if (input.body !== undefined) assertBodySize(input.body)
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    const current = await findDocument(tx, user.id, id)
    const body = input.body ?? current.body
    const title = input.title?.trim() || current.title
    // An excerpt that was derived follows the body; one that was written by hand stays.
    const derived = current.excerpt === deriveExcerpt(current.body)
    const excerpt = input.excerpt?.trim() || (input.body !== undefined && derived ? deriveExcerpt(body) : current.excerpt)
    const tags = input.tags !== undefined ? normalizeTags(input.tags) : current.tags
    const contentChanged = title !== current.title || body !== current.body || input.tags !== undefined || excerpt !== current.excerpt
    const rewrites =
      title !== current.title || body !== current.body || excerpt !== current.excerpt || tags.join('\n') !== current.tags.join('\n')
    if (rewrites && needsApproval(writer, current.kind, current.status)) {
      const draft = draftRow(deps, user, current.workspace_id, {
        kind: current.kind,
        // Edits come only over REST: MCP and the agent have no edit tool.
        source: 'api',
        source_ref: current.source_ref,
        url: current.url,
        title,
        excerpt,
        body,
        tags,
        pinned: input.pinned ?? current.pinned,
        metadata: { ...current.metadata, supersedes: current.id },
      })
      const { reason } = await limitVerdict(deps, tx, user, draft.size_bytes, undefined)
      if (reason) throw paymentRequired(reason)
      return { document: toDocumentDto((await insertDrafts(tx, deps, user, [draft]))[0]!), drafted: true }
    }
    const size = sizeOf({ title, excerpt, body, metadata: current.metadata })
    if (size > current.size_bytes) {
      const totals = await storedTotals(tx, user.id, id)
      assertWithinLimit(deps, user.plan, 'storage_bytes', totals.storage_bytes, size)
    }
    const [row] = await tx
      .update(documents)
      .set({
        title,
        excerpt,
        body,
        tags,
        content_hash: contentHash(body),
        size_bytes: size,
        ...(input.pinned !== undefined ? { pinned: input.pinned } : {}),
        ...(contentChanged ? { index_status: 'pending' } : {}),
        // A file's sections place its extracted text; a body edited by hand has none.
        ...(body !== current.body ? { sections: null } : {}),
        updated_at: deps.clock.now(),
        updated_by: actorOf(user),
      })
      .where(eq(documents.id, id))
      .returning()
    if (contentChanged) await indexDocument(tx, deps, row!)
    const summary = { ...changeSummary(current, row!), ...record?.summary }
    await recordActivity(tx, deps, user, { action: record?.action ?? 'document.update', ...aboutDocument(row!), summary })
    return { document: toDocumentDto(row!), drafted: false }
  })
}

/** The messages after a deleted one read its words (message-context.ts): they are indexed again without them. */
const removed = {
  id: documents.id,
  thread_id: documents.thread_id,
  position: documents.position,
  kind: documents.kind,
  title: documents.title,
  workspace_id: documents.workspace_id,
}

export async function deleteDocument(deps: Deps, user: SessionUser, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const deleted = await tx
      .delete(documents)
      .where(and(eq(documents.id, id), eq(documents.user_id, user.id)))
      .returning(removed)
    if (deleted.length === 0) throw notFound(`document ${id} not found`)
    await reindexFollowers(tx, deps, deleted)
    await recordActivity(tx, deps, user, deletedEntries(deleted))
  })
}

/** Deleted documents, for the activity record (with their titles: a deletion is not a forget). */
const deletedEntries = (rows: { id: string; kind: string; title: string; workspace_id: string }[]) =>
  rows.map((row) => ({ action: 'document.delete' as const, ...aboutDocument(row) }))

export async function bulkDeleteDocuments(deps: Deps, user: SessionUser, ids: string[]) {
  const unique = [...new Set(ids)]
  const deleted = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .delete(documents)
      .where(and(eq(documents.user_id, user.id), inArray(documents.id, unique)))
      .returning(removed)
    await reindexFollowers(tx, deps, rows)
    await recordActivity(tx, deps, user, deletedEntries(rows))
    return rows
  })
  const gone = new Set(deleted.map((d) => d.id))
  return { deleted: unique.filter((id) => gone.has(id)), not_found: unique.filter((id) => !gone.has(id)) }
}
