// The approval rule: only a person signed in with a session makes a memory active or changes an approved one;
// every other writer (an API key — REST, MCP over stdio and HTTP — and the agent's tools) writes a draft.
import { documents } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { forbidden } from '../../http/errors'
import { assertWithinLimit } from '../../plans'
import { indexDocument } from '../../retrieval/indexing'
import type { ActivityEntry } from '../activity/activity.model'
import { recordActivity } from '../activity/activity.service'
import { actorOf, type SessionUser } from '../auth/session-user'
import { storedTotals } from '../usage/usage.service'
import { contentHash, deriveExcerpt, isMemoryKind, normalizeTags, sizeOf, type DocumentRow, type Status } from './documents.model'

/** Who writes: a `person` (session cookie: the dashboard, the extension) or an `agent` (anything with a key). */
export type Writer = 'person' | 'agent'

export const writerOf = (principal: { via: 'key' | 'session' }): Writer => (principal.via === 'session' ? 'person' : 'agent')

export const DRAFT_NOTICE =
  'saved as a draft pending approval: a memory written with an API key or by an agent becomes active only when a person ' +
  'signed in approves it (POST /api/documents/{id}/approve)'

/** An agent's write that makes a memory, or changes one a person approved (active or archived), needs approval. */
export const needsApproval = (writer: Writer, kind: string, status?: string) =>
  writer === 'agent' && isMemoryKind(kind) && status !== 'pending_approval'

export function assertMayApprove(writer: Writer, id: string): void {
  if (writer !== 'person')
    throw forbidden(`approving draft ${id} takes a person signed in (the dashboard or the extension): an API key may only propose memories`)
}

/**
 * Where restore takes an archived document: a rejected draft back to pending_approval, never to active; an
 * archived memory also to pending_approval when an agent restores it. Rows archived before `archived_from`
 * existed do not say what they were, so a memory among them comes back as a draft: the safe side.
 */
export function restoreTarget(row: DocumentRow, writer: Writer): Status {
  if (!isMemoryKind(row.kind)) return 'active'
  if (writer === 'agent' || row.archived_from !== 'active') return 'pending_approval'
  return 'active'
}

export interface DraftInput {
  kind: string
  title: string
  body: string
  excerpt?: string
  tags?: string[]
  url?: string | null
  pinned?: boolean
  metadata?: Record<string, unknown>
  source: string
  source_ref?: string | null
}

/** The row of a pending_approval draft: batch-draft, an agent's memory ingest and an agent's memory edit all write this. */
export function draftRow(deps: Deps, user: SessionUser, workspaceId: string, d: DraftInput) {
  const title = d.title.trim()
  const excerpt = d.excerpt?.trim() || deriveExcerpt(d.body)
  const metadata = d.metadata ?? {}
  const conversation = typeof metadata.conversation_id === 'string' ? metadata.conversation_id : null
  const now = deps.clock.now()
  return {
    id: deps.ids.next(),
    user_id: user.id,
    workspace_id: workspaceId,
    title,
    excerpt,
    body: d.body,
    tags: normalizeTags(d.tags),
    kind: d.kind,
    status: 'pending_approval',
    source: d.source,
    source_ref: d.source_ref ?? conversation ?? d.url ?? null,
    url: d.url ?? null,
    pinned: d.pinned ?? false,
    content_hash: contentHash(d.body),
    size_bytes: sizeOf({ title, excerpt, body: d.body, metadata }),
    metadata,
    created_at: now,
    updated_at: now,
    updated_by: actorOf(user),
  }
}

/** Stores drafts and indexes them at once (keyword now, embedding queued): filtered out by status until
 * approved, so approval makes a memory searchable at once. */
export async function insertDrafts(tx: Tx, deps: Deps, user: SessionUser, rows: ReturnType<typeof draftRow>[]): Promise<DocumentRow[]> {
  const stored = await tx.insert(documents).values(rows).returning()
  for (const row of stored) await indexDocument(tx, deps, row)
  await recordActivity(
    tx,
    deps,
    user,
    stored.map((row) => draftEntry(row)),
  )
  return stored
}

/** A draft proposed (or a pending one proposed again: `summary` says what changed). */
export function draftEntry(row: DocumentRow, summary: Record<string, unknown> = {}): ActivityEntry {
  const supersedes = typeof row.metadata.supersedes === 'string' ? row.metadata.supersedes : undefined
  return {
    action: 'memory.draft',
    object_type: 'memory',
    object_id: row.id,
    title: row.title,
    workspace_id: row.workspace_id,
    summary: { kind: row.kind, ...(supersedes ? { supersedes } : {}), ...summary },
  }
}

/** insertDrafts after the plan's document and storage caps are checked against them all (402 before anything is written). */
export async function insertDraftsWithinPlan(
  tx: Tx,
  deps: Deps,
  user: SessionUser,
  rows: ReturnType<typeof draftRow>[],
): Promise<DocumentRow[]> {
  const totals = await storedTotals(tx, user.id)
  assertWithinLimit(deps, user.plan, 'documents', totals.documents, rows.length)
  assertWithinLimit(
    deps,
    user.plan,
    'storage_bytes',
    totals.storage_bytes,
    rows.reduce((sum, r) => sum + r.size_bytes, 0),
  )
  return insertDrafts(tx, deps, user, rows)
}
