// Ingest: plan limits checked before anything is stored; the same URL, or the same text under the same title,
// updates the existing document; a memory an agent writes becomes a draft (approval.ts). And GET /check, the
// dry run that gives ingest's verdict without storing anything.
import { and, desc, eq, ne, or, sql, type SQL } from 'drizzle-orm'
import { documents, events } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { paymentRequired } from '../../http/errors'
import { lockUser } from '../../lib/locks'
import { indexDocument } from '../../retrieval/indexing'
import type { SessionUser } from '../auth/sessions.service'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'
import { draftRow, insertDrafts, needsApproval, type Writer } from './approval'
import {
  assertBodySize, assertMetadataSize, bodySizeProblem, contentHash, deriveExcerpt, deriveTitle, isMemoryKind, metadataSizeProblem,
  normalizeTags, sizeOf, type DocumentRow, type Kind,
} from './documents.model'
import { limitVerdict } from './documents.service'

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
  pinned?: boolean
  metadata?: Record<string, unknown>
  /** Decides whether a memory may be written active (approval.ts). */
  writer: Writer
}

export interface Ingested {
  document: DocumentRow
  deduplicated: boolean
}

interface Identity {
  url: string | null
  hash: string | null
  /** The title the caller gave, if any. */
  title: string | null
}

/**
 * The duplicate rule: in one workspace, the same URL is the same document (a page saved again), and so is the
 * same text — unless a title is given that differs: five speakers saying "Take care!" are five documents.
 * `drafts` looks among pending drafts (an agent re-proposing), otherwise among everything else.
 */
async function findDuplicate(db: Tx, userId: string, workspaceId: string, id: Identity, drafts = false): Promise<DocumentRow | undefined> {
  const same: SQL[] = []
  if (id.url) same.push(eq(documents.url, id.url))
  if (id.hash) same.push(id.title ? and(eq(documents.content_hash, id.hash), eq(documents.title, id.title))! : eq(documents.content_hash, id.hash))
  if (same.length === 0) return undefined
  // A pending draft is an agent's proposal, not the user's document: it never absorbs an ingest.
  const status = drafts ? eq(documents.status, 'pending_approval') : ne(documents.status, 'pending_approval')
  const [row] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.user_id, userId), eq(documents.workspace_id, workspaceId), status, or(...same)))
    // The page at this URL before another one that merely holds the same text.
    .orderBy(desc(sql`coalesce(${documents.url} = ${id.url}, false)`), desc(documents.id))
    .limit(1)
  return row
}

export async function checkIngest(deps: Deps, user: SessionUser, input: { workspace_id?: string; size_bytes?: number; metadata_bytes?: number; url?: string }) {
  const workspaceId = await resolveWorkspaceId(deps.db, user.id, input.workspace_id)
  const existing = await findDuplicate(deps.db, user.id, workspaceId, { url: input.url ?? null, hash: null, title: null })
  const size = input.size_bytes ?? 0
  const verdict = await limitVerdict(deps, deps.db, user, size, existing)
  // In the order ingest checks: the body's size (413), the metadata's (400), then the plan (402).
  const reason = bodySizeProblem(size) ?? metadataSizeProblem(input.metadata_bytes ?? 0) ?? verdict.reason
  return { allowed: reason === null, ...(reason ? { reason } : {}), deduplicated: existing !== undefined, usage: verdict.usage }
}

/** What the document becomes when this ingest updates `existing`: a derived title or excerpt follows the new
 * body, one given by hand stays; tags, pinned and kind change only when given; metadata merges. */
function updatedFields(existing: DocumentRow, input: IngestInput) {
  const given = (value: string | undefined) => value?.trim() || null
  const title = given(input.title) ?? (existing.title === deriveTitle(existing.body, existing.url) ? deriveTitle(input.body, input.url ?? existing.url) : existing.title)
  const excerpt = given(input.excerpt) ?? (existing.excerpt === deriveExcerpt(existing.body) ? deriveExcerpt(input.body) : existing.excerpt)
  const metadata = input.metadata ? { ...existing.metadata, ...input.metadata } : existing.metadata
  return {
    title,
    excerpt,
    body: input.body,
    tags: input.tags ? normalizeTags(input.tags) : existing.tags,
    url: input.url ?? existing.url,
    kind: input.kind ?? existing.kind,
    pinned: input.pinned ?? existing.pinned,
    metadata,
    content_hash: contentHash(input.body),
    size_bytes: sizeOf({ title, excerpt, body: input.body, metadata }),
  }
}

export async function ingestDocument(deps: Deps, user: SessionUser, input: IngestInput): Promise<Ingested> {
  assertBodySize(input.body)
  assertMetadataSize(input.metadata)
  const url = input.url ?? null
  const identity = { url, hash: contentHash(input.body), title: input.title?.trim() || null }
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    const workspaceId = await resolveWorkspaceId(tx, user.id, input.workspace_id)
    const existing = await findDuplicate(tx, user.id, workspaceId, identity)
    if (needsApproval(input.writer, input.kind ?? '') || (existing && needsApproval(input.writer, existing.kind))) {
      return proposeMemory(tx, deps, user, workspaceId, input, identity, existing)
    }
    if (existing) {
      const fields = updatedFields(existing, input)
      const { reason } = await limitVerdict(deps, tx, user, fields.size_bytes, existing)
      if (reason) throw paymentRequired(reason)
      const [updated] = await tx
        .update(documents)
        // Saving an archived page again means the user wants it back.
        .set({ ...fields, index_status: 'pending', status: existing.status === 'archived' ? 'active' : existing.status, archived_from: null, updated_at: deps.clock.now() })
        .where(eq(documents.id, existing.id))
        .returning()
      await indexDocument(tx, deps, updated!)
      return { document: updated!, deduplicated: true }
    }
    const title = identity.title ?? deriveTitle(input.body, url)
    const excerpt = input.excerpt?.trim() || deriveExcerpt(input.body)
    const size = sizeOf({ title, excerpt, body: input.body, metadata: input.metadata })
    const { reason } = await limitVerdict(deps, tx, user, size, undefined)
    if (reason) throw paymentRequired(reason)
    const now = deps.clock.now()
    const [created] = await tx
      .insert(documents)
      .values({
        id: deps.ids.next(),
        user_id: user.id,
        workspace_id: workspaceId,
        title,
        excerpt,
        body: input.body,
        tags: normalizeTags(input.tags),
        url,
        content_hash: identity.hash,
        size_bytes: size,
        index_status: 'pending',
        kind: input.kind ?? (url ? 'webpage' : 'document'),
        status: 'active',
        source: input.source,
        source_ref: input.source_ref ?? url,
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

/**
 * An agent's memory write. It never makes an active memory and never changes an approved one in place: it
 * becomes a pending_approval draft, and when it would update an existing document the draft's
 * `metadata.supersedes` names it, so approving the draft replaces it. Saying again exactly what an approved
 * memory says changes nothing; proposing again what a pending draft proposes updates that draft.
 */
async function proposeMemory(tx: Tx, deps: Deps, user: SessionUser, workspaceId: string, input: IngestInput, identity: Identity, existing: DocumentRow | undefined): Promise<Ingested> {
  // A plain kind cannot replace a memory: the proposal keeps the memory's kind.
  const kind = input.kind && isMemoryKind(input.kind) ? input.kind : existing!.kind
  const proposal = existing
    ? { ...updatedFields(existing, { ...input, kind: kind as Kind }), metadata: { ...existing.metadata, ...input.metadata, supersedes: existing.id } }
    : null
  if (existing && isMemoryKind(existing.kind) && unchanged(existing, proposal!)) return { document: existing, deduplicated: true }
  const fields = {
    kind,
    title: proposal?.title ?? identity.title ?? deriveTitle(input.body, identity.url),
    body: input.body,
    excerpt: proposal?.excerpt ?? input.excerpt,
    tags: proposal?.tags ?? input.tags,
    url: proposal?.url ?? identity.url,
    pinned: proposal?.pinned ?? input.pinned,
    metadata: proposal?.metadata ?? input.metadata,
    source: input.source,
    source_ref: input.source_ref,
  }
  const row = draftRow(deps, user, workspaceId, fields)
  const pending = await findDuplicate(tx, user.id, workspaceId, identity, true)
  const { reason } = await limitVerdict(deps, tx, user, row.size_bytes, pending)
  if (reason) throw paymentRequired(reason)
  if (!pending) return { document: (await insertDrafts(tx, deps, [row]))[0]!, deduplicated: false }
  const { id: _id, created_at: _created, source: _source, source_ref: _ref, ...changes } = row
  const [updated] = await tx
    .update(documents)
    .set({ ...changes, metadata: { ...pending.metadata, ...row.metadata }, index_status: 'pending' })
    .where(eq(documents.id, pending.id))
    .returning()
  await indexDocument(tx, deps, updated!)
  return { document: updated!, deduplicated: true }
}

function unchanged(existing: DocumentRow, next: ReturnType<typeof updatedFields>): boolean {
  const { supersedes: _, ...metadata } = next.metadata
  const { supersedes: __, ...before } = existing.metadata
  return (
    next.title === existing.title && next.excerpt === existing.excerpt && next.body === existing.body && next.url === existing.url &&
    next.kind === existing.kind && next.pinned === existing.pinned && JSON.stringify(next.tags) === JSON.stringify(existing.tags) &&
    JSON.stringify(metadata) === JSON.stringify(before)
  )
}
