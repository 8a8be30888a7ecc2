// Ingest of many documents in one transaction — POST /api/documents/bulk, POST /api/documents (a batch of one)
// and the connector sync all write here: a constant number of statements per batch, whatever its size.
// Each item keeps the rules of a single ingest (ingest.rules.ts), in order, so an item may update one written
// earlier in the same batch; one bad item answers its own error and never fails the rest.
import { and, eq, sql } from 'drizzle-orm'
import { documents, workspaces } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import type { ErrorCode } from '../../http/error-codes'
import { AppError, notFound, paymentRequired } from '../../http/errors'
import { lockUser } from '../../lib/locks'
import { exceeds, limitMessage, limitsOf } from '../../plans'
import { indexDocument } from '../../retrieval/indexing'
import type { SessionUser } from '../auth/sessions.service'
import { storedTotals } from '../usage/usage.service'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'
import { needsApproval } from './approval'
import { assertBodySize, assertMetadataSize, deriveExcerpt, deriveTitle, normalizeTags, sizeOf, type DocumentRow } from './documents.model'
import { insertIndexedDocuments, type NewDocument } from './documents.insert'
import {
  duplicateCandidates,
  identityOf,
  pickDuplicate,
  proposeMemory,
  updatedFields,
  type Identity,
  type IngestInput,
} from './ingest.rules'

export const MAX_BULK_DOCUMENTS = 1000

/** A connector item: the same (connector, external id) is the same document, and what the user changed survives. */
export interface ExternalRef {
  connector_id: string
  external_id: string
}

export type BulkItem = IngestInput & { external?: ExternalRef }

export type ItemResult =
  | { status: 200 | 201; document: DocumentRow; deduplicated: boolean }
  | { status: number; error: string; code: ErrorCode }

interface Planned {
  index: number
  input: BulkItem
  workspaceId: string
  identity: Identity
}

/**
 * Writes `items` (an AppError stands for an item refused before, e.g. by validation) and answers one result per
 * item, in order. A batch that would pass a plan cap is refused whole with 402 before anything is written.
 */
export async function ingestMany(deps: Deps, user: SessionUser, items: (BulkItem | AppError)[]): Promise<ItemResult[]> {
  const results: (ItemResult | undefined)[] = items.map((item) => (item instanceof AppError ? failed(item) : checkSizes(item)))
  if (results.every((r) => r !== undefined)) return results as ItemResult[]
  return deps.db.transaction(async (tx) => {
    await lockUser(tx, user.id, 'documents')
    const planned = await placeItems(tx, user, items, results)
    const current = new Map((await candidatesOf(tx, user, planned)).map((row) => [row.id, row]))
    const originals = new Map(current)
    const created = new Map<string, NewDocument>()
    const updated = new Map<string, DocumentRow>()
    const drafts: { plan: Planned; existing: DocumentRow | undefined }[] = []
    const now = deps.clock.now()
    for (const plan of planned) {
      const { input, workspaceId, identity } = plan
      const existing = input.external
        ? sameExternal(current.values(), input.external)
        : pickDuplicate(current.values(), workspaceId, identity)
      if (needsApproval(input.writer, input.kind ?? '') || (existing && needsApproval(input.writer, existing.kind))) {
        drafts.push({ plan, existing })
        continue
      }
      const row: DocumentRow = existing ? updatedRow(existing, input, now) : { ...newRow(deps, user, plan, now), keyword_len: 0 }
      current.set(row.id, row)
      if (existing && !created.has(row.id)) updated.set(row.id, row)
      else created.set(row.id, row)
      results[plan.index] = { status: existing ? 200 : 201, document: row, deduplicated: existing !== undefined }
    }
    await assertWithinPlan(deps, tx, user, created, updated, originals, items.length > 1)
    for (const row of updated.values()) {
      const [written] = await tx
        .update(documents)
        .set(changedFields(row, originals.get(row.id)!))
        .where(eq(documents.id, row.id))
        .returning()
      await indexDocument(tx, deps, written!)
    }
    await insertIndexedDocuments(tx, deps, [...created.values()])
    // Memory drafts after the rest, one by one: rare, and each follows approval.ts (which checks the plan again).
    for (const { plan, existing } of drafts) {
      const { document, deduplicated } = await proposeMemory(tx, deps, user, plan.workspaceId, plan.input, plan.identity, existing)
      results[plan.index] = { status: deduplicated ? 200 : 201, document, deduplicated }
    }
    return results as ItemResult[]
  })
}

const failed = (error: AppError): ItemResult => ({ status: error.status, error: error.message, code: error.code })

function checkSizes(item: BulkItem): ItemResult | undefined {
  try {
    assertBodySize(item.body)
    assertMetadataSize(item.metadata)
    return undefined
  } catch (error) {
    if (error instanceof AppError) return failed(error)
    throw error
  }
}

/** Each item's workspace (the default one when none is given); an item naming a workspace not the user's gets 404. */
async function placeItems(
  tx: Tx,
  user: SessionUser,
  items: (BulkItem | AppError)[],
  results: (ItemResult | undefined)[],
): Promise<Planned[]> {
  const open = items.flatMap((item, index) => (results[index] === undefined ? [{ index, input: item as BulkItem }] : []))
  const named = [...new Set(open.flatMap(({ input }) => (input.workspace_id ? [input.workspace_id] : [])))]
  const owned = new Set(
    named.length === 0
      ? []
      : (
          await tx
            .select({ id: workspaces.id })
            .from(workspaces)
            .where(
              and(
                eq(workspaces.user_id, user.id),
                sql`${workspaces.id} = any(array(select jsonb_array_elements_text(${JSON.stringify(named)}::jsonb)::uuid))`,
              ),
            )
        ).map((w) => w.id),
  )
  let fallback: string | AppError | undefined
  if (open.some(({ input }) => !input.workspace_id)) {
    fallback = await resolveWorkspaceId(tx, user.id, undefined).catch((error) =>
      error instanceof AppError ? error : Promise.reject(error),
    )
  }
  const planned: Planned[] = []
  for (const { index, input } of open) {
    const workspaceId = input.workspace_id ?? fallback
    if (workspaceId instanceof AppError) results[index] = failed(workspaceId)
    else if (input.workspace_id && !owned.has(input.workspace_id))
      results[index] = failed(notFound(`workspace ${input.workspace_id} not found`))
    else planned.push({ index, input, workspaceId: workspaceId!, identity: identityOf(input) })
  }
  return planned
}

/** Rows the batch may update: duplicates by URL or text, and connector items by external id. */
async function candidatesOf(tx: Tx, user: SessionUser, planned: Planned[]): Promise<DocumentRow[]> {
  const plain = planned.filter((p) => !p.input.external)
  const byText = await duplicateCandidates(
    tx,
    user.id,
    [...new Set(plain.map((p) => p.workspaceId))],
    plain.map((p) => p.identity),
  )
  const external = planned.flatMap((p) => (p.input.external ? [p.input.external] : []))
  if (external.length === 0) return byText
  const byRef = await tx
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.user_id, user.id),
        sql`(${documents.source_ref}, ${documents.external_id}) in (select e->>'connector_id', e->>'external_id' from jsonb_array_elements(${JSON.stringify(external)}::jsonb) e)`,
      ),
    )
  return [...byText, ...byRef]
}

/** Only what this ingest changed: a rating or pin set meanwhile by another request is not written back. */
function changedFields(row: DocumentRow, original: DocumentRow): Partial<DocumentRow> {
  const fields: Record<string, unknown> = { index_status: 'pending', updated_at: row.updated_at }
  for (const key of Object.keys(row) as (keyof DocumentRow)[]) {
    if (JSON.stringify(row[key]) !== JSON.stringify(original[key])) fields[key] = row[key]
  }
  return fields
}

function sameExternal(rows: Iterable<DocumentRow>, ref: ExternalRef): DocumentRow | undefined {
  for (const row of rows) if (row.source_ref === ref.connector_id && row.external_id === ref.external_id) return row
  return undefined
}

function updatedRow(existing: DocumentRow, input: BulkItem, now: Date): DocumentRow {
  const base = { ...existing, index_status: 'pending', updated_at: now }
  if (input.external) {
    // A connector's update: content and provenance from upstream; status, tags, pin and rating stay the user's.
    const { title, excerpt, body, url, metadata } = input
    const fields = { title: title!, excerpt: excerpt!, body, url: url ?? null, metadata: { ...existing.metadata, ...metadata } }
    return { ...base, ...fields, content_hash: identityOf(input).hash!, size_bytes: sizeOf({ ...fields, metadata }) }
  }
  // Saving an archived page again means the user wants it back.
  return {
    ...base,
    ...updatedFields(existing, input),
    status: existing.status === 'archived' ? 'active' : existing.status,
    archived_from: null,
  }
}

function newRow(deps: Deps, user: SessionUser, { input, workspaceId, identity }: Planned, now: Date): NewDocument {
  const url = identity.url
  const title = identity.title ?? deriveTitle(input.body, url)
  const excerpt = input.excerpt?.trim() || deriveExcerpt(input.body)
  const metadata = input.metadata ?? {}
  return {
    id: deps.ids.next(),
    user_id: user.id,
    workspace_id: workspaceId,
    title,
    excerpt,
    body: input.body,
    tags: normalizeTags(input.tags),
    url,
    content_hash: identity.hash!,
    size_bytes: sizeOf({ title, excerpt, body: input.body, metadata: input.metadata }),
    index_status: 'pending',
    kind: input.kind ?? (url ? 'webpage' : 'document'),
    status: 'active',
    archived_from: null,
    source: input.source,
    source_ref: input.external?.connector_id ?? input.source_ref ?? url,
    external_id: input.external?.external_id ?? null,
    pinned: input.pinned ?? false,
    rating: 0,
    metadata,
    created_at: now,
    updated_at: now,
  }
}

/** The plan's document and storage caps against the whole batch (what a single ingest checks, summed). */
async function assertWithinPlan(
  deps: Deps,
  tx: Tx,
  user: SessionUser,
  created: Map<string, NewDocument>,
  updated: Map<string, DocumentRow>,
  originals: Map<string, DocumentRow>,
  many: boolean,
): Promise<void> {
  const limits = limitsOf(deps, user.plan)
  // An unlimited plan (the default without billing) has nothing to count against.
  if ((created.size === 0 && updated.size === 0) || (limits.documents === null && limits.storage_bytes === null)) return
  const totals = await storedTotals(tx, user.id)
  let bytes = 0
  for (const row of created.values()) bytes += row.size_bytes
  for (const row of updated.values()) bytes += row.size_bytes - originals.get(row.id)!.size_bytes
  const detail = (what: string) => (many ? ` (this batch adds ${what}; nothing was written)` : '')
  if (created.size > 0 && exceeds(totals.documents + created.size, limits.documents)) {
    throw paymentRequired(
      limitMessage(deps, user.plan, 'documents') + detail(`${created.size} documents to the ${totals.documents} stored`),
    )
  }
  if (exceeds(totals.storage_bytes + bytes, limits.storage_bytes)) {
    throw paymentRequired(limitMessage(deps, user.plan, 'storage_bytes') + detail(`${bytes} bytes to the ${totals.storage_bytes} stored`))
  }
}
