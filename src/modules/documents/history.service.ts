// A document's history: its versions (the current one is the row itself, the earlier ones document_versions,
// kept by a trigger), the supersede chain of a memory with who approved each link of it, restoring an earlier
// version (a new version, recorded), and taking an approval back.
import { and, asc, desc, eq, gte, inArray, sql } from 'drizzle-orm'
import { activity, documents, documentVersions } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { conflict, notFound } from '../../http/errors'
import { recordActivity } from '../activity/activity.service'
import { actorOf, type SessionUser } from '../auth/session-user'
import { assertMayApprove, type Writer } from './approval'
import { aboutDocument } from './document-changes'
import { isMemoryKind, toDocumentDto, type DocumentRow, type Kind, type MESSAGE_KIND, type Status } from './documents.model'
import { findDocument, patchDocument } from './documents.service'

type AnyKind = Kind | typeof MESSAGE_KIND

/** How far a supersede chain is followed each way: a memory rewritten more often shows its 20 nearest. */
const CHAIN_DEPTH = 20

const FIELDS = ['title', 'tags', 'kind', 'status'] as const

type VersionHead = Pick<DocumentRow, 'title' | 'tags' | 'kind' | 'status'> & {
  version: number
  actor: DocumentRow['updated_by']
  at: Date
  /** Whether its body differs from the version before it. */
  body_changed: boolean
}

const isUuid = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f-]{36}$/i.test(value)

/** The versions newest first (without bodies: GET …/versions/{n} has one), what each changed, and the chain. */
export async function getHistory(deps: Deps, user: SessionUser, id: string) {
  const row = await findDocument(deps.db, user.id, id)
  const earlier = await deps.db
    .select({
      version: documentVersions.version,
      title: documentVersions.title,
      tags: documentVersions.tags,
      kind: documentVersions.kind,
      status: documentVersions.status,
      actor: documentVersions.actor,
      at: documentVersions.at,
      // A stored body means the next version's differs from it.
      body_differs: sql<boolean>`${documentVersions.body} is not null`,
    })
    .from(documentVersions)
    .where(eq(documentVersions.document_id, id))
    .orderBy(desc(documentVersions.version))
  const heads: VersionHead[] = [
    { ...row, actor: row.updated_by, at: row.updated_at, body_changed: earlier[0]?.body_differs ?? false },
    ...earlier.map((v, i) => ({ ...v, body_changed: earlier[i + 1]?.body_differs ?? false })),
  ]
  const versions = heads.map((v, i) => {
    const before = heads[i + 1]
    const changed = before
      ? [...FIELDS.filter((f) => JSON.stringify(v[f]) !== JSON.stringify(before[f])), ...(v.body_changed ? ['body'] : [])]
      : []
    return {
      version: v.version,
      current: i === 0,
      title: v.title,
      tags: v.tags,
      kind: v.kind as AnyKind,
      status: v.status as Status,
      actor: v.actor,
      at: v.at.toISOString(),
      changed,
    }
  })
  return {
    document_id: row.id,
    versions,
    chain: isMemoryKind(row.kind) ? await supersedeChain(deps.db, user.id, row) : [],
    may_unapprove: await mayUnapprove(deps.db, row),
  }
}

/** One version, whole: its body is the first stored one at or after it, else the document's own. */
export async function getVersion(deps: Deps, user: SessionUser, id: string, version: number) {
  const row = await findDocument(deps.db, user.id, id)
  if (version === row.version) return versionDto(row, { ...row, actor: row.updated_by, at: row.updated_at, version }, row.body)
  const rows = await deps.db
    .select()
    .from(documentVersions)
    .where(and(eq(documentVersions.document_id, id), gte(documentVersions.version, version)))
    .orderBy(asc(documentVersions.version))
  const found = rows[0]
  if (!found || found.version !== version) throw notFound(`document ${id} has no version ${version} (its versions are 1 to ${row.version})`)
  const body = rows.find((r) => r.body !== null)?.body ?? row.body
  return versionDto(row, found, body)
}

function versionDto(
  row: DocumentRow,
  v: Pick<DocumentRow, 'title' | 'tags' | 'kind' | 'status'> & { version: number; actor: DocumentRow['updated_by']; at: Date },
  body: string,
) {
  return {
    document_id: row.id,
    version: v.version,
    current: v.version === row.version,
    title: v.title,
    body,
    tags: v.tags,
    kind: v.kind as AnyKind,
    status: v.status as Status,
    actor: v.actor,
    at: v.at.toISOString(),
  }
}

/** Puts an earlier version's title, body and tags back: a new version, made by the caller, under the edit rules
 * (an agent's restore of an approved memory is a draft that supersedes it). Status is not a version's to restore:
 * archive, restore and unapprove move it. */
export async function restoreVersion(deps: Deps, user: SessionUser, id: string, version: number, writer: Writer) {
  const old = await getVersion(deps, user, id, version)
  if (old.current) throw conflict(`version ${version} is the current version of document ${id}`)
  return patchDocument(deps, user, id, { title: old.title, body: old.body, tags: old.tags }, writer, {
    action: 'document.version_restore',
    summary: { from_version: version },
  })
}

/** An approved memory can go back to a draft while nothing else has moved it since: it was a draft once. */
async function mayUnapprove(db: Tx, row: DocumentRow): Promise<boolean> {
  if (!isMemoryKind(row.kind) || row.status !== 'active') return false
  const [draft] = await db
    .select({ version: documentVersions.version })
    .from(documentVersions)
    .where(and(eq(documentVersions.document_id, row.id), eq(documentVersions.status, 'pending_approval')))
    .limit(1)
  return draft !== undefined
}

/**
 * Takes an approval back: the memory returns to a pending draft (out of retrieval), and the memory its approval
 * archived as superseded comes back active. A person only, as approving is.
 */
export async function unapproveMemory(deps: Deps, user: SessionUser, id: string, writer: Writer) {
  assertMayApprove(writer, id)
  const row = await findDocument(deps.db, user.id, id)
  if (!(await mayUnapprove(deps.db, row)))
    throw conflict(`document ${id} is not an approved memory (status ${row.status}, kind ${row.kind}): only an approval can be taken back`)
  const superseded = isUuid(row.metadata.supersedes) ? row.metadata.supersedes : null
  return deps.db.transaction(async (tx) => {
    // In id order, as approve takes them (lifecycle.service.ts): opposite orders deadlock.
    const ids = [id, ...(superseded ? [superseded] : [])].sort()
    await tx
      .select({ id: documents.id })
      .from(documents)
      .where(and(inArray(documents.id, ids), eq(documents.user_id, user.id)))
      .orderBy(documents.id)
      .for('no key update')
    const now = deps.clock.now()
    const updated_by = actorOf(user)
    const [updated] = await tx
      .update(documents)
      .set({ status: 'pending_approval', archived_from: null, updated_at: now, updated_by })
      .where(and(eq(documents.id, id), eq(documents.status, 'active')))
      .returning()
    if (!updated) throw conflict(`document ${id} changed meanwhile: it is no longer active`)
    const back = superseded
      ? await tx
          .update(documents)
          .set({ status: 'active', archived_from: null, updated_at: now, updated_by })
          .where(
            and(
              eq(documents.id, superseded),
              eq(documents.user_id, user.id),
              eq(documents.status, 'archived'),
              eq(documents.archived_from, 'active'),
            ),
          )
          .returning()
      : []
    await recordActivity(tx, deps, user, [
      { action: 'memory.unapprove', ...aboutDocument(row), summary: back[0] ? { restored: back[0].id } : {} },
      ...back.map((old) => ({
        action: 'document.restore' as const,
        ...aboutDocument(old),
        summary: { status: { from: 'archived', to: 'active' }, because: 'memory.unapprove', of: id },
      })),
    ])
    return toDocumentDto(updated)
  })
}

/**
 * The memories this one replaced (older, by metadata.supersedes) and those that replaced it (newer), oldest
 * first, each with its status and its approval (when and by whom, from the activity record).
 */
async function supersedeChain(db: Tx, userId: string, row: DocumentRow) {
  const links: Pick<DocumentRow, 'id' | 'title' | 'status' | 'metadata'>[] = [row]
  const fields = { id: documents.id, title: documents.title, status: documents.status, metadata: documents.metadata }
  for (let older = row.metadata.supersedes, i = 0; isUuid(older) && i < CHAIN_DEPTH; i++) {
    const [found] = await db
      .select(fields)
      .from(documents)
      .where(and(eq(documents.id, older), eq(documents.user_id, userId)))
    if (!found || links.some((l) => l.id === found.id)) break
    links.unshift(found)
    older = found.metadata.supersedes
  }
  for (let newer = row.id, i = 0; i < CHAIN_DEPTH; i++) {
    const [found] = await db
      .select(fields)
      .from(documents)
      .where(and(eq(documents.user_id, userId), sql`${documents.metadata}->>'supersedes' = ${newer}`))
      .orderBy(asc(documents.id))
      .limit(1)
    if (!found || links.some((l) => l.id === found.id)) break
    links.push(found)
    newer = found.id
  }
  if (links.length === 1) return []
  const approvals = await db
    .select({ object_id: activity.object_id, action: activity.action, at: activity.at, actor: activity.actor })
    .from(activity)
    .where(
      and(
        eq(activity.user_id, userId),
        inArray(activity.action, ['memory.approve', 'memory.unapprove']),
        inArray(
          activity.object_id,
          links.map((l) => l.id),
        ),
      ),
    )
    .orderBy(desc(activity.id))
  return links.map((l) => {
    // The latest word on it: an approval taken back since is no approval.
    const latest = approvals.find((a) => a.object_id === l.id)
    const approval = latest?.action === 'memory.approve' ? latest : undefined
    return {
      id: l.id,
      title: l.title,
      status: l.status as Status,
      current: l.id === row.id,
      supersedes: isUuid(l.metadata.supersedes) ? l.metadata.supersedes : null,
      approved: approval ? { at: approval.at.toISOString(), actor: approval.actor } : null,
    }
  })
}
