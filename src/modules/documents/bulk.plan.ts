// What a bulk ingest writes, decided inside its transaction and then written: each item placed in its workspace,
// matched against what is stored (and against the items before it), checked against the plan's caps.
// Each item keeps the rules of a single ingest (ingest.rules.ts), in order, so an item may update one written
// earlier in the same batch; one bad item answers its own error and never fails the rest.
import { and, eq, sql } from 'drizzle-orm'
import { documents, workspaces } from '../../../db/schema'
import { queryRows, type Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import type { ErrorCode } from '../../http/error-codes'
import { AppError, conflict, notFound, paymentRequired } from '../../http/errors'
import { exceeds, limitMessage, limitsOf } from '../../plans'
import { firstStep, indexDocument } from '../../retrieval/indexing'
import type { SessionUser } from '../auth/sessions.service'
import { storedTotals } from '../usage/usage.service'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'
import { recordActivity } from '../activity/activity.service'
import type { ActivityEntry } from '../activity/activity.model'
import { actorOf, type Actor } from '../auth/session-user'
import { needsApproval } from './approval'
import { aboutDocument, changeSummary } from './document-changes'
import { deriveExcerpt, deriveTitle, isMemoryKind, normalizeTags, sizeOf, type DocumentRow } from './documents.model'
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

/** A connector item: the same (connector, external id) is the same document, and what the user changed survives. */
export interface ExternalRef {
  connector_id: string
  external_id: string
}

/**
 * A message of a thread: the same thread and client id, or else the same position, is the same message (sent
 * again, it updates); without a position it goes after the thread's last. Its text never deduplicates: five
 * speakers saying "Take care!" are five messages.
 */
export interface MessageRef {
  thread_id: string
  position?: number
  client_id?: string
  speaker: string
}

export type BulkItem = IngestInput & { external?: ExternalRef; message?: MessageRef }

export type ItemResult =
  | { status: 200 | 201; document: DocumentRow; deduplicated: boolean }
  | { status: number; error: string; code: ErrorCode }

/** An item that passed the checks made before any transaction, with its place in the batch. */
export interface OpenItem {
  index: number
  input: BulkItem
  identity: Identity
}

interface Placed extends OpenItem {
  workspaceId: string
}

/** What a run of items writes, and each item's result (a draft's once it is written). */
export interface Plan {
  results: Map<number, ItemResult>
  created: Map<string, NewDocument>
  updated: Map<string, DocumentRow>
  originals: Map<string, DocumentRow>
  drafts: { item: Placed; existing: DocumentRow | undefined }[]
}

export const failed = (error: AppError): ItemResult => ({ status: error.status, error: error.message, code: error.code })

export const openItem = (index: number, input: BulkItem): OpenItem => ({ index, input, identity: identityOf(input) })

/** Plans `items`, in order, against what is stored now; writes nothing. */
export async function planItems(tx: Tx, deps: Deps, user: SessionUser, items: OpenItem[]): Promise<Plan> {
  const results = new Map<number, ItemResult>()
  const placed = await placeItems(tx, user, items, results)
  const current = new Map((await candidatesOf(tx, user, placed)).map((row) => [row.id, row]))
  const positions = await nextPositions(tx, placed)
  const plan: Plan = { results, created: new Map(), updated: new Map(), originals: new Map(current), drafts: [] }
  const now = deps.clock.now()
  for (const item of placed) {
    const { input, workspaceId, identity } = item
    const existing = input.message
      ? sameMessage(current.values(), input.message)
      : input.external
        ? sameExternal(current.values(), input.external)
        : pickDuplicate(current.values(), workspaceId, identity)
    if (input.message && !placeMessage(input.message, existing, current.values(), positions)) {
      results.set(item.index, failed(conflict(`position ${input.message.position} of the thread holds another message`)))
      continue
    }
    if (needsApproval(input.writer, input.kind ?? '') || (existing && needsApproval(input.writer, existing.kind))) {
      plan.drafts.push({ item, existing })
      continue
    }
    const row: DocumentRow = existing
      ? updatedRow(existing, input, now, actorOf(user))
      : { ...newRow(deps, user, item, now), keyword_len: 0, doc_no: null }
    current.set(row.id, row)
    if (existing && !plan.created.has(row.id)) plan.updated.set(row.id, row)
    else plan.created.set(row.id, row)
    results.set(item.index, { status: existing ? 200 : 201, document: row, deduplicated: existing !== undefined })
  }
  return plan
}

/** Writes what `plan` holds: updates, then the new documents in one statement, then memory drafts one by one. */
export async function writePlan(tx: Tx, deps: Deps, user: SessionUser, plan: Plan): Promise<void> {
  for (const row of plan.updated.values()) {
    const [written] = await tx
      .update(documents)
      .set(changedFields(row, plan.originals.get(row.id)!))
      .where(eq(documents.id, row.id))
      .returning()
    await indexDocument(tx, deps, written!)
  }
  await insertIndexedDocuments(tx, deps, [...plan.created.values()])
  // Memory drafts after the rest, one by one: rare, and each follows approval.ts (which checks the plan again).
  // (each records its own activity: approval.ts)
  for (const { item, existing } of plan.drafts) {
    const { document, deduplicated } = await proposeMemory(tx, deps, user, item.workspaceId, item.input, item.identity, existing)
    plan.results.set(item.index, { status: deduplicated ? 200 : 201, document, deduplicated })
  }
  await recordActivity(tx, deps, user, activityOf(plan))
}

/**
 * What the plan did, for the activity record: each document created or changed (with the fields that changed) —
 * and a thread's messages as one entry for the thread, however many were sent.
 */
function activityOf(plan: Plan): ActivityEntry[] {
  const entries: ActivityEntry[] = []
  const threads = new Map<string, { messages_added: number; messages_updated: number }>()
  const thread = (id: string) => threads.get(id) ?? threads.set(id, { messages_added: 0, messages_updated: 0 }).get(id)!
  for (const row of plan.created.values()) {
    if (row.thread_id) thread(row.thread_id).messages_added++
    else
      entries.push({
        action: isMemoryKind(row.kind) ? 'memory.create' : 'document.create',
        ...aboutDocument(row),
        summary: { kind: row.kind, source: row.source },
      })
  }
  for (const row of plan.updated.values()) {
    if (row.thread_id) thread(row.thread_id).messages_updated++
    else entries.push({ action: 'document.update', ...aboutDocument(row), summary: changeSummary(plan.originals.get(row.id)!, row) })
  }
  for (const [id, counts] of threads) entries.push({ action: 'thread.update', object_type: 'thread', object_id: id, summary: counts })
  return entries
}

/** Each item's workspace (the default one when none is given); an item naming a workspace not the user's gets 404. */
async function placeItems(tx: Tx, user: SessionUser, items: OpenItem[], results: Map<number, ItemResult>): Promise<Placed[]> {
  const named = [...new Set(items.flatMap(({ input }) => (input.workspace_id ? [input.workspace_id] : [])))]
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
  if (items.some(({ input }) => !input.workspace_id)) {
    fallback = await resolveWorkspaceId(tx, user.id, undefined).catch((error) =>
      error instanceof AppError ? error : Promise.reject(error),
    )
  }
  const placed: Placed[] = []
  for (const item of items) {
    const workspaceId = item.input.workspace_id ?? fallback
    if (workspaceId instanceof AppError) results.set(item.index, failed(workspaceId))
    else if (item.input.workspace_id && !owned.has(item.input.workspace_id))
      results.set(item.index, failed(notFound(`workspace ${item.input.workspace_id} not found`)))
    else placed.push({ ...item, workspaceId: workspaceId! })
  }
  return placed
}

/** Rows the batch may update: duplicates by URL or text, connector items by external id, messages by place or client id. */
async function candidatesOf(tx: Tx, user: SessionUser, placed: Placed[]): Promise<DocumentRow[]> {
  const plain = placed.filter((p) => !p.input.external && !p.input.message)
  const byText = await duplicateCandidates(
    tx,
    user.id,
    [...new Set(plain.map((p) => p.workspaceId))],
    plain.map((p) => p.identity),
  )
  const byMessage = await sameMessages(
    tx,
    user,
    placed.flatMap((p) => (p.input.message ? [p.input.message] : [])),
  )
  const external = placed.flatMap((p) => (p.input.external ? [p.input.external] : []))
  if (external.length === 0) return [...byText, ...byMessage]
  const byRef = await tx
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.user_id, user.id),
        sql`(${documents.source_ref}, ${documents.external_id}) in (select e->>'connector_id', e->>'external_id' from jsonb_array_elements(${JSON.stringify(external)}::jsonb) e)`,
      ),
    )
  return [...byText, ...byMessage, ...byRef]
}

/** The stored messages the batch's messages may be: those at their threads' positions or with their client ids. */
async function sameMessages(tx: Tx, user: SessionUser, refs: MessageRef[]): Promise<DocumentRow[]> {
  // A message with neither a position nor a client id is new: nothing to look up for it.
  const keys = refs.flatMap((r) =>
    r.position === undefined && r.client_id === undefined ? [] : [{ t: r.thread_id, p: r.position ?? null, c: r.client_id ?? null }],
  )
  if (keys.length === 0) return []
  return tx
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.user_id, user.id),
        sql`${documents.thread_id} is not null`,
        sql`exists (select 1 from jsonb_to_recordset(${JSON.stringify(keys)}::jsonb) as k(t uuid, p integer, c text)
                    where k.t = ${documents.thread_id} and (k.p = ${documents.position} or k.c = ${documents.external_id}))`,
      ),
    )
}

/** The position after each thread's last message, for messages sent without one. */
async function nextPositions(tx: Tx, placed: Placed[]): Promise<Map<string, number>> {
  // Only threads that have a message without a position need to know where they end.
  const threads = [
    ...new Set(placed.flatMap((p) => (p.input.message && p.input.message.position === undefined ? [p.input.message.thread_id] : []))),
  ]
  if (threads.length === 0) return new Map()
  const rows = await queryRows<{ thread_id: string; next: number }>(
    tx,
    sql`select t.id as thread_id, coalesce((select max(d.position) + 1 from documents d where d.thread_id = t.id), 0)::int as next
        from unnest(array(select jsonb_array_elements_text(${JSON.stringify(threads)}::jsonb)::uuid)) as t(id)`,
  )
  return new Map(rows.map((r) => [r.thread_id, Number(r.next)]))
}

/** A message sent again is the stored one with its client id, or else the one at its position. */
function sameMessage(rows: Iterable<DocumentRow>, ref: MessageRef): DocumentRow | undefined {
  let atPosition: DocumentRow | undefined
  for (const row of rows) {
    if (row.thread_id !== ref.thread_id) continue
    if (ref.client_id !== undefined && row.external_id === ref.client_id) return row
    if (ref.position !== undefined && row.position === ref.position) atPosition = row
  }
  // A client id never seen names a new message, even at a taken position: that is a conflict, not an update.
  return ref.client_id !== undefined && atPosition?.external_id != null ? undefined : atPosition
}

/**
 * Gives `ref` its position: the one it names, the one its stored message has, or the thread's next; false when
 * the position it names holds another message (its client id names a different one, or none).
 */
function placeMessage(ref: MessageRef, existing: DocumentRow | undefined, rows: Iterable<DocumentRow>, next: Map<string, number>) {
  if (ref.position === undefined) {
    ref.position = existing?.position ?? next.get(ref.thread_id)!
  } else {
    for (const row of rows) if (row.thread_id === ref.thread_id && row.position === ref.position && row.id !== existing?.id) return false
  }
  next.set(ref.thread_id, Math.max(next.get(ref.thread_id) ?? 0, ref.position + 1))
  return true
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

function updatedRow(existing: DocumentRow, input: BulkItem, now: Date, actor: Actor): DocumentRow {
  const base = { ...existing, index_status: 'pending', updated_at: now, updated_by: actor }
  if (input.message) {
    // A message sent again: what was said, by whom and when; its status, tags, pin and rating stay the user's.
    const { title, body, metadata } = input
    const fields = { title: title!, excerpt: input.excerpt?.trim() || deriveExcerpt(body), body, metadata: metadata ?? existing.metadata }
    return {
      ...base,
      ...fields,
      content_hash: identityOf(input).hash!,
      size_bytes: sizeOf(fields),
      speaker: input.message.speaker,
      position: input.message.position!,
      occurred_at: input.occurred_at ? new Date(input.occurred_at) : existing.occurred_at,
    }
  }
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

function newRow(deps: Deps, user: SessionUser, { input, workspaceId, identity }: Placed, now: Date): NewDocument {
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
    index_status: firstStep(deps).index_status,
    kind: input.message ? 'message' : (input.kind ?? (url ? 'webpage' : 'document')),
    status: 'active',
    archived_from: null,
    source: input.source,
    source_ref: input.external?.connector_id ?? input.source_ref ?? url,
    external_id: input.external?.external_id ?? input.message?.client_id ?? null,
    pinned: input.pinned ?? false,
    rating: 0,
    metadata,
    created_at: now,
    updated_at: now,
    occurred_at: input.occurred_at ? new Date(input.occurred_at) : now,
    thread_id: input.message?.thread_id ?? null,
    position: input.message?.position ?? null,
    speaker: input.message?.speaker ?? null,
    sections: null,
    version: 1,
    updated_by: actorOf(user),
  }
}

/** Whether the account's plan caps what it stores: an unlimited plan (the default without billing) has nothing to count against. */
export function hasCaps(deps: Deps, user: SessionUser): boolean {
  const limits = limitsOf(deps, user.plan)
  return limits.documents !== null || limits.storage_bytes !== null
}

/**
 * The plan's document and storage caps against what `plan` writes (what a single ingest checks, summed); `batch`
 * names the whole batch in the refusal, which then writes nothing.
 */
export async function assertWithinPlan(deps: Deps, tx: Tx, user: SessionUser, plan: Plan, batch: boolean): Promise<void> {
  const { created, updated, originals } = plan
  const limits = limitsOf(deps, user.plan)
  if ((created.size === 0 && updated.size === 0) || !hasCaps(deps, user)) return
  const totals = await storedTotals(tx, user.id)
  let bytes = 0
  for (const row of created.values()) bytes += row.size_bytes
  for (const row of updated.values()) bytes += row.size_bytes - originals.get(row.id)!.size_bytes
  const detail = (what: string) => (batch ? ` (this batch adds ${what}; nothing was written)` : '')
  if (created.size > 0 && exceeds(totals.documents + created.size, limits.documents)) {
    throw paymentRequired(
      limitMessage(deps, user.plan, 'documents') + detail(`${created.size} documents to the ${totals.documents} stored`),
    )
  }
  if (exceeds(totals.storage_bytes + bytes, limits.storage_bytes)) {
    throw paymentRequired(limitMessage(deps, user.plan, 'storage_bytes') + detail(`${bytes} bytes to the ${totals.storage_bytes} stored`))
  }
}
