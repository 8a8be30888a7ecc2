// What an import writes into an account, decided inside its transaction before anything is written: each record
// given a new id or matched to what the account holds (a workspace of the same name, a thread of the same external
// id, a duplicate document by ingest's rule), references remapped through those ids, the plan's caps checked.
import { and, count, eq, sql } from 'drizzle-orm'
import { documents, threads, workspaces } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { assertWithinLimit } from '../../plans'
import { actorOf, type SessionUser } from '../auth/session-user'
import type { Writer } from '../documents/approval'
import type { NewDocument } from '../documents/documents.insert'
import { contentHash, isMemoryKind, normalizeTags, sizeOf, type DocumentRow } from '../documents/documents.model'
import { identityOf, pickDuplicate } from '../documents/ingest.rules'
import { resolveWorkspaceId } from '../workspaces/workspaces.service'
import { METADATA_REFS } from './archive-format'
import type { ImportContent } from './archive-read'

type ArchiveDoc = ImportContent['documents'][number]

export interface ImportPlan {
  /** Archive id → the account's id, for every workspace, thread and document (new or matched). */
  ids: Map<string, string>
  newWorkspaces: (typeof workspaces.$inferInsert)[]
  newThreads: (typeof threads.$inferInsert)[]
  /** In an order that writes each thread's messages by position. */
  newDocuments: NewDocument[]
  skipped: { workspaces: number; threads: number; documents: number; memories: number; messages: number }
  /** Active memories an API key's import wrote as drafts (the approval rule). */
  drafted: number
}

const pgArray = (ids: string[], type = 'uuid') =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::${sql.raw(type)})`

export async function planImport(tx: Tx, deps: Deps, user: SessionUser, writer: Writer, content: ImportContent): Promise<ImportPlan> {
  const ids = new Map<string, string>()
  const plan: ImportPlan = {
    ids,
    newWorkspaces: [],
    newThreads: [],
    newDocuments: [],
    skipped: { workspaces: 0, threads: 0, documents: 0, memories: 0, messages: 0 },
    drafted: 0,
  }
  await placeWorkspaces(tx, deps, user, content, plan)
  const fallback = content.documents.some((d) => d.workspace === null) ? await resolveWorkspaceId(tx, user.id, undefined) : ''
  const workspaceOf = (ref: string | null) => (ref === null ? fallback : ids.get(ref)!)
  const takenPositions = await placeThreads(tx, deps, user, content, plan)
  const duplicates = await candidates(tx, user, content, workspaceOf)
  const kept: [ArchiveDoc, string][] = []
  for (const d of content.documents) {
    const workspaceId = workspaceOf(d.workspace)
    const existing = d.thread
      ? takenPositions.get(`${ids.get(d.thread)}:${d.position}`)
      : d.status === 'pending_approval'
        ? sameDraft(duplicates, workspaceId, d)
        : pickDuplicate(duplicates, workspaceId, identityOf({ url: d.url ?? undefined, body: d.body, title: d.title }))?.id
    if (existing) {
      ids.set(d.id, existing)
      plan.skipped[d.thread ? 'messages' : isMemoryKind(d.kind) ? 'memories' : 'documents']++
      continue
    }
    ids.set(d.id, deps.ids.next())
    kept.push([d, workspaceId])
  }
  const now = deps.clock.now()
  for (const [d, workspaceId] of kept) plan.newDocuments.push(newDocument(d, workspaceId, plan, writer, user, now))
  // Messages by thread and position, so each is indexed with the messages said before it (message-context.ts).
  plan.newDocuments.sort((a, b) =>
    a.thread_id === b.thread_id ? (a.position ?? 0) - (b.position ?? 0) : (a.thread_id ?? '').localeCompare(b.thread_id ?? ''),
  )
  return plan
}

/** An archive workspace is the account's workspace of the same name when it has one (importing twice adds nothing). */
async function placeWorkspaces(tx: Tx, deps: Deps, user: SessionUser, content: ImportContent, plan: ImportPlan) {
  const stored = await tx.select().from(workspaces).where(eq(workspaces.user_id, user.id)).orderBy(workspaces.id)
  const byName = new Map<string, string>()
  for (const w of stored) if (!byName.has(w.name)) byName.set(w.name, w.id)
  for (const w of content.workspaces) {
    const same = byName.get(w.name)
    if (same) {
      plan.ids.set(w.id, same)
      plan.skipped.workspaces++
      continue
    }
    const id = deps.ids.next()
    byName.set(w.name, id)
    plan.ids.set(w.id, id)
    plan.newWorkspaces.push({
      id,
      user_id: user.id,
      name: w.name,
      description: w.description,
      created_at: new Date(w.created_at),
      updated_at: new Date(w.updated_at),
    })
  }
  if (plan.newWorkspaces.length > 0) {
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(workspaces).where(eq(workspaces.user_id, user.id))
    assertWithinLimit(deps, user.plan, 'workspaces', n, plan.newWorkspaces.length)
  }
}

/**
 * A thread with the external id of one of the account's is that thread: its messages at positions already held are
 * skipped. Answers the held positions ("thread:position" → message id).
 */
async function placeThreads(tx: Tx, deps: Deps, user: SessionUser, content: ImportContent, plan: ImportPlan) {
  const external = content.threads.flatMap((t) => (t.external_id ? [t.external_id] : []))
  const stored = external.length
    ? await tx
        .select({ id: threads.id, external_id: threads.external_id })
        .from(threads)
        .where(and(eq(threads.user_id, user.id), sql`${threads.external_id} = any(${pgArray(external, 'text')})`))
    : []
  const byExternal = new Map(stored.map((t) => [t.external_id, t.id]))
  for (const t of content.threads) {
    const same = t.external_id ? byExternal.get(t.external_id) : undefined
    if (same) {
      plan.ids.set(t.id, same)
      plan.skipped.threads++
      continue
    }
    const id = deps.ids.next()
    plan.ids.set(t.id, id)
    plan.newThreads.push({
      id,
      user_id: user.id,
      workspace_id: plan.ids.get(t.workspace)!,
      title: t.title,
      external_id: t.external_id,
      // The ask conversation a remembered thread names is not in the archive (nor unique outside its account).
      conversation_id: null,
      metadata: remapped(t.metadata, plan.ids),
      extracted_through: t.extracted_through,
      extraction: t.extraction,
      created_at: new Date(t.created_at),
      updated_at: new Date(t.updated_at),
    })
  }
  const held = await tx
    .select({ id: documents.id, thread_id: documents.thread_id, position: documents.position })
    .from(documents)
    .where(and(eq(documents.user_id, user.id), sql`${documents.thread_id} = any(${pgArray(stored.map((t) => t.id))})`))
  return new Map(held.map((m) => [`${m.thread_id}:${m.position}`, m.id]))
}

/** The account's documents an archive document may duplicate: same URL or text in the workspaces it goes to. */
async function candidates(tx: Tx, user: SessionUser, content: ImportContent, workspaceOf: (ref: string | null) => string) {
  const plain = content.documents.filter((d) => !d.thread)
  if (plain.length === 0) return []
  const targets = [...new Set(plain.map((d) => workspaceOf(d.workspace)))]
  const hashes = [...new Set(plain.map((d) => contentHash(d.body)))]
  const urls = [...new Set(plain.flatMap((d) => (d.url ? [d.url] : [])))]
  return tx
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.user_id, user.id),
        sql`${documents.workspace_id} = any(${pgArray(targets)})`,
        sql`(${documents.content_hash} = any(${pgArray(hashes, 'text')}) or ${documents.url} = any(${pgArray(urls, 'text')}))`,
      ),
    )
}

/** A draft proposing what a stored draft proposes (same kind, title and text) is that draft, as ingest's re-proposal. */
function sameDraft(rows: DocumentRow[], workspaceId: string, d: ArchiveDoc): string | undefined {
  const hash = contentHash(d.body)
  return rows.find(
    (r) =>
      r.status === 'pending_approval' &&
      r.workspace_id === workspaceId &&
      r.kind === d.kind &&
      r.title === d.title &&
      r.content_hash === hash,
  )?.id
}

function newDocument(d: ArchiveDoc, workspaceId: string, plan: ImportPlan, writer: Writer, user: SessionUser, now: Date): NewDocument {
  const metadata = remapped(d.metadata, plan.ids)
  // Approval is the only road to an active memory for an API key (approval.ts): its import proposes them.
  const drafted = writer === 'agent' && isMemoryKind(d.kind) && d.status === 'active'
  if (drafted) plan.drafted++
  return {
    id: plan.ids.get(d.id)!,
    user_id: user.id,
    workspace_id: workspaceId,
    title: d.title,
    excerpt: d.excerpt,
    body: d.body,
    tags: normalizeTags(d.tags),
    kind: d.kind,
    status: drafted ? 'pending_approval' : d.status,
    archived_from: d.status === 'archived' ? d.archived_from : null,
    source: d.source,
    source_ref: d.source_ref,
    // A message's client id names it within its (new) thread; a connector item's provider id stays with the
    // connector that fetched it, which is not in the archive.
    external_id: d.thread ? d.external_id : null,
    url: d.url,
    content_hash: contentHash(d.body),
    size_bytes: sizeOf({ title: d.title, excerpt: d.excerpt, body: d.body, metadata }),
    pinned: d.pinned,
    rating: d.rating,
    metadata,
    index_status: 'pending',
    occurred_at: new Date(d.occurred_at),
    thread_id: d.thread ? plan.ids.get(d.thread)! : null,
    position: d.position,
    speaker: d.speaker,
    sections: d.sections ?? null,
    created_at: d.created_at ? new Date(d.created_at) : now,
    updated_at: d.updated_at ? new Date(d.updated_at) : now,
    version: 1,
    updated_by: actorOf(user),
  }
}

/** Metadata with the ids it names (supersedes, evidence, thread_id, cited) read through `ids`; one not in the archive is dropped. */
export function remapped(metadata: Record<string, unknown>, ids: Map<string, string>): Record<string, unknown> {
  const out = { ...metadata }
  for (const [field, arity] of Object.entries(METADATA_REFS)) {
    const value = out[field]
    if (value === undefined) continue
    if (arity === 'one') {
      const mapped = typeof value === 'string' ? ids.get(value) : undefined
      if (mapped) out[field] = mapped
      else delete out[field]
    } else if (Array.isArray(value)) {
      out[field] = value.flatMap((v) => (typeof v === 'string' && ids.has(v) ? [ids.get(v)!] : []))
    }
  }
  return out
}
