// Documents: ingest (limits checked before anything is stored; duplicates update), the dry-run check,
// list, fetch, update (re-indexed), delete and bulk delete.
import { and, arrayContains, desc, eq, inArray, lt, ne, or, type SQL } from 'drizzle-orm'
import { documents, events } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { notFound, paymentRequired } from '../../http/errors'
import { decodeCursor, toPage } from '../../lib/cursor'
import { lockUser } from '../../lib/locks'
import { assertWithinLimit, exceeds, limitMessage, limitsOf } from '../../plans'
import type { SessionUser } from '../auth/sessions.service'
import { indexDocument } from '../../retrieval/indexing'
import { storedTotals } from '../usage/usage.service'
import { findWorkspace, resolveWorkspaceId } from '../workspaces/workspaces.service'
import {
  assertBodySize, assertMetadataSize, contentHash, deriveExcerpt, deriveTitle, normalizeTags, sizeOf,
  toDocumentDto, toSummaryDto, type DocumentRow, type Kind, type Status,
} from './documents.model'

export interface IngestInput {
  workspace_id?: string
  title?: string
  body: string
  excerpt?: string
  url?: string
  tags?: string[]
  kind?: Kind
  source: 'api' | 'extension' | 'mcp' | 'connector' | 'agent'
  source_ref?: string
  external_id?: string
  pinned?: boolean
  metadata?: Record<string, unknown>
}

/** The document the user already has for this URL or content in this workspace, if any (drafts aside). */
async function findDuplicate(db: Tx, userId: string, workspaceId: string, url: string | null, hash: string | null): Promise<DocumentRow | undefined> {
  const same: SQL[] = []
  if (url) same.push(eq(documents.url, url))
  if (hash) same.push(eq(documents.content_hash, hash))
  if (same.length === 0) return undefined
  const [row] = await db
    .select()
    .from(documents)
    // A pending draft is an agent's proposal, not the user's document: it never absorbs an ingest.
    .where(and(eq(documents.user_id, userId), eq(documents.workspace_id, workspaceId), ne(documents.status, 'pending_approval'), or(...same)))
    .orderBy(desc(documents.id))
    .limit(1)
  return row
}

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
    usage: { documents: { used: used.documents, limit: limits.documents }, storage_bytes: { used: used.storage_bytes, limit: limits.storage_bytes } },
  }
}

export async function checkIngest(deps: Deps, user: SessionUser, input: { workspace_id?: string; size_bytes?: number; url?: string }) {
  const workspaceId = await resolveWorkspaceId(deps.db, user.id, input.workspace_id)
  const existing = await findDuplicate(deps.db, user.id, workspaceId, input.url ?? null, null)
  const { reason, usage } = await limitVerdict(deps, deps.db, user, input.size_bytes ?? 0, existing)
  return { allowed: reason === null, ...(reason ? { reason } : {}), deduplicated: existing !== undefined, usage }
}

export async function ingestDocument(deps: Deps, user: SessionUser, input: IngestInput): Promise<{ document: DocumentRow; deduplicated: boolean }> {
  assertBodySize(input.body)
  assertMetadataSize(input.metadata)
  const url = input.url ?? null
  const title = input.title?.trim() || deriveTitle(input.body, url)
  const excerpt = input.excerpt?.trim() || deriveExcerpt(input.body)
  const fields = {
    title,
    excerpt,
    body: input.body,
    tags: normalizeTags(input.tags),
    url,
    content_hash: contentHash(input.body),
    size_bytes: sizeOf({ title, excerpt, body: input.body, metadata: input.metadata }),
    index_status: 'pending',
  }
  const now = deps.clock.now()
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    const workspaceId = await resolveWorkspaceId(tx, user.id, input.workspace_id)
    const existing = await findDuplicate(tx, user.id, workspaceId, url, fields.content_hash)
    const { reason } = await limitVerdict(deps, tx, user, fields.size_bytes, existing)
    if (reason) throw paymentRequired(reason)
    if (existing) {
      const [updated] = await tx
        .update(documents)
        .set({
          ...fields,
          ...(input.kind ? { kind: input.kind } : {}),
          ...(input.pinned !== undefined ? { pinned: input.pinned } : {}),
          ...(input.metadata ? { metadata: { ...existing.metadata, ...input.metadata } } : {}),
          ...(input.tags ? {} : { tags: existing.tags }),
          url: url ?? existing.url,
          // Saving an archived page again means the user wants it back.
          status: existing.status === 'archived' ? 'active' : existing.status,
          updated_at: now,
        })
        .where(eq(documents.id, existing.id))
        .returning()
      await indexDocument(tx, deps, updated!)
      return { document: updated!, deduplicated: true }
    }
    const [created] = await tx
      .insert(documents)
      .values({
        id: deps.ids.next(),
        user_id: user.id,
        workspace_id: workspaceId,
        ...fields,
        kind: input.kind ?? (url ? 'webpage' : 'document'),
        status: 'active',
        source: input.source,
        source_ref: input.source_ref ?? url,
        external_id: input.external_id ?? null,
        pinned: input.pinned ?? false,
        metadata: input.metadata ?? {},
        created_at: now,
        updated_at: now,
      })
      .returning()
    await indexDocument(tx, deps, created!)
    await tx.insert(events).values({ id: deps.ids.next(), user_id: user.id, type: 'ingest', created_at: now })
    return { document: created!, deduplicated: false }
  })
}

export interface ListFilters {
  workspace_id?: string
  tag?: string
  source?: string
  kind?: string
  kinds?: readonly string[]
  status?: Status
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
  if (after) where.push(lt(documents.id, after))
  const rows = await deps.db.select().from(documents).where(and(...where)).orderBy(desc(documents.id)).limit(limit + 1)
  const page = toPage(rows, limit)
  return { data: page.items.map(toSummaryDto), next_cursor: page.next_cursor }
}

/** The user's document, or 404 — another user's document is indistinguishable from a missing one. */
export async function findDocument(db: Tx, userId: string, id: string): Promise<DocumentRow> {
  const [row] = await db.select().from(documents).where(and(eq(documents.id, id), eq(documents.user_id, userId)))
  if (!row) throw notFound(`document ${id} not found`)
  return row
}

export async function getDocument(deps: Deps, user: SessionUser, id: string) {
  return toDocumentDto(await findDocument(deps.db, user.id, id))
}

export interface PatchInput {
  title?: string
  excerpt?: string
  body?: string
  tags?: string[]
  pinned?: boolean
}

/** Content changes mark the document for re-indexing; a longer body is checked against the storage limit. */
export async function patchDocument(deps: Deps, user: SessionUser, id: string, input: PatchInput) {
  if (input.body !== undefined) assertBodySize(input.body)
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    const current = await findDocument(tx, user.id, id)
    const body = input.body ?? current.body
    const title = input.title?.trim() || current.title
    // An excerpt that was derived follows the body; one that was written by hand stays.
    const derived = current.excerpt === deriveExcerpt(current.body)
    const excerpt = input.excerpt?.trim() || (input.body !== undefined && derived ? deriveExcerpt(body) : current.excerpt)
    const size = sizeOf({ title, excerpt, body, metadata: current.metadata })
    if (size > current.size_bytes) {
      const totals = await storedTotals(tx, user.id, id)
      assertWithinLimit(deps, user.plan, 'storage_bytes', totals.storage_bytes, size)
    }
    const contentChanged = title !== current.title || body !== current.body || input.tags !== undefined || excerpt !== current.excerpt
    const [row] = await tx
      .update(documents)
      .set({
        title,
        excerpt,
        body,
        content_hash: contentHash(body),
        size_bytes: size,
        ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
        ...(input.pinned !== undefined ? { pinned: input.pinned } : {}),
        ...(contentChanged ? { index_status: 'pending' } : {}),
        updated_at: deps.clock.now(),
      })
      .where(eq(documents.id, id))
      .returning()
    if (contentChanged) await indexDocument(tx, deps, row!)
    return toDocumentDto(row!)
  })
}

export async function deleteDocument(deps: Deps, user: SessionUser, id: string): Promise<void> {
  const deleted = await deps.db.delete(documents).where(and(eq(documents.id, id), eq(documents.user_id, user.id))).returning({ id: documents.id })
  if (deleted.length === 0) throw notFound(`document ${id} not found`)
}

export async function bulkDeleteDocuments(deps: Deps, user: SessionUser, ids: string[]) {
  const unique = [...new Set(ids)]
  const deleted = await deps.db
    .delete(documents)
    .where(and(eq(documents.user_id, user.id), inArray(documents.id, unique)))
    .returning({ id: documents.id })
  const gone = new Set(deleted.map((d) => d.id))
  return { deleted: unique.filter((id) => gone.has(id)), not_found: unique.filter((id) => !gone.has(id)) }
}
