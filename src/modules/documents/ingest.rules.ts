// The rules an ingest follows, shared by one-document and bulk ingest: what counts as a duplicate (the same URL,
// or the same text under the same title, in one workspace), what an update of a duplicate changes, and how an
// agent's memory write becomes a draft (approval.ts).
import { and, desc, eq, ne, or, sql, type SQL } from 'drizzle-orm'
import { documents } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { paymentRequired } from '../../http/errors'
import { indexDocument } from '../../retrieval/indexing'
import type { SessionUser } from '../auth/sessions.service'
import { recordActivity } from '../activity/activity.service'
import { draftEntry, draftRow, insertDrafts, type Writer } from './approval'
import { changeSummary } from './document-changes'
import {
  contentHash,
  deriveExcerpt,
  deriveTitle,
  isMemoryKind,
  normalizeTags,
  sizeOf,
  type DocumentRow,
  type Kind,
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
  /** When what the document records happened (ISO 8601); the time of ingest when not given. */
  occurred_at?: string
  /** Decides whether a memory may be written active (approval.ts). */
  writer: Writer
}

export interface Ingested {
  document: DocumentRow
  deduplicated: boolean
}

export const identityOf = (input: { url?: string; body: string; title?: string }): Identity => ({
  url: input.url ?? null,
  hash: contentHash(input.body),
  title: input.title?.trim() || null,
})

/** findDuplicate's rule over rows already read: the same URL first, then the newest. */
export function pickDuplicate(rows: Iterable<DocumentRow>, workspaceId: string, id: Identity): DocumentRow | undefined {
  let best: DocumentRow | undefined
  let bestByUrl = false
  for (const row of rows) {
    if (row.workspace_id !== workspaceId || row.status === 'pending_approval') continue
    const byUrl = id.url !== null && row.url === id.url
    const byText = id.hash !== null && row.content_hash === id.hash && (id.title === null || row.title === id.title)
    if (!byUrl && !byText) continue
    if (!best || (byUrl && !bestByUrl) || (byUrl === bestByUrl && row.id > best.id)) [best, bestByUrl] = [row, byUrl]
  }
  return best
}

/** Every row that may be the duplicate of one of `ids` (non-draft rows of these workspaces with one of their URLs or hashes). */
export async function duplicateCandidates(db: Tx, userId: string, workspaceIds: string[], ids: Identity[]): Promise<DocumentRow[]> {
  const urls = [...new Set(ids.flatMap((i) => (i.url ? [i.url] : [])))]
  const hashes = [...new Set(ids.flatMap((i) => (i.hash ? [i.hash] : [])))]
  if (workspaceIds.length === 0 || urls.length + hashes.length === 0) return []
  // One value as itself (the common single ingest: the simplest plan); many as one JSON parameter (no
  // bind-parameter limit), as `= any(array)` so the (workspace, hash) and (workspace, url) indexes answer.
  const among = (values: string[], type = 'text') =>
    values.length === 1
      ? sql`${values[0]}::${sql.raw(type)}`
      : sql`any(array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb)::${sql.raw(type)}))`
  return db
    .select()
    .from(documents)
    .where(
      and(
        eq(documents.user_id, userId),
        sql`${documents.workspace_id} = ${among(workspaceIds, 'uuid')}`,
        ne(documents.status, 'pending_approval'),
        or(
          urls.length ? sql`${documents.url} = ${among(urls)}` : undefined,
          hashes.length ? sql`${documents.content_hash} = ${among(hashes)}` : undefined,
        ),
      ),
    )
}

export interface Identity {
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
export async function findDuplicate(
  db: Tx,
  userId: string,
  workspaceId: string,
  id: Identity,
  drafts = false,
): Promise<DocumentRow | undefined> {
  const same: SQL[] = []
  if (id.url) same.push(eq(documents.url, id.url))
  if (id.hash)
    same.push(id.title ? and(eq(documents.content_hash, id.hash), eq(documents.title, id.title))! : eq(documents.content_hash, id.hash))
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

/** What the document becomes when this ingest updates `existing`: a derived title or excerpt follows the new
 * body, one given by hand stays; tags, pinned and kind change only when given; metadata merges. */
export function updatedFields(existing: DocumentRow, input: IngestInput) {
  const given = (value: string | undefined) => value?.trim() || null
  const title =
    given(input.title) ??
    (existing.title === deriveTitle(existing.body, existing.url) ? deriveTitle(input.body, input.url ?? existing.url) : existing.title)
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
    // A file's sections place its extracted text; another text has none.
    sections: input.body === existing.body ? existing.sections : null,
  }
}

/**
 * An agent's memory write. It never makes an active memory and never changes an approved one in place: it
 * becomes a pending_approval draft, and when it would update an existing document the draft's
 * `metadata.supersedes` names it, so approving the draft replaces it. Saying again exactly what an approved
 * memory says changes nothing; proposing again what a pending draft proposes updates that draft.
 */
export async function proposeMemory(
  tx: Tx,
  deps: Deps,
  user: SessionUser,
  workspaceId: string,
  input: IngestInput,
  identity: Identity,
  existing: DocumentRow | undefined,
): Promise<Ingested> {
  // A plain kind cannot replace a memory: the proposal keeps the memory's kind.
  const kind = input.kind && isMemoryKind(input.kind) ? input.kind : existing!.kind
  const proposal = existing
    ? {
        ...updatedFields(existing, { ...input, kind: kind as Kind }),
        metadata: { ...existing.metadata, ...input.metadata, supersedes: existing.id },
      }
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
  if (!pending) return { document: (await insertDrafts(tx, deps, user, [row]))[0]!, deduplicated: false }
  const { id: _id, created_at: _created, source: _source, source_ref: _ref, ...changes } = row
  const [updated] = await tx
    .update(documents)
    .set({ ...changes, metadata: { ...pending.metadata, ...row.metadata }, index_status: 'pending' })
    .where(eq(documents.id, pending.id))
    .returning()
  await indexDocument(tx, deps, updated!)
  await recordActivity(tx, deps, user, draftEntry(updated!, { fields: changeSummary(pending, updated!).fields }))
  return { document: updated!, deduplicated: true }
}

function unchanged(existing: DocumentRow, next: ReturnType<typeof updatedFields>): boolean {
  const { supersedes: _, ...metadata } = next.metadata
  const { supersedes: __, ...before } = existing.metadata
  return (
    next.title === existing.title &&
    next.excerpt === existing.excerpt &&
    next.body === existing.body &&
    next.url === existing.url &&
    next.kind === existing.kind &&
    next.pinned === existing.pinned &&
    JSON.stringify(next.tags) === JSON.stringify(existing.tags) &&
    JSON.stringify(metadata) === JSON.stringify(before)
  )
}
