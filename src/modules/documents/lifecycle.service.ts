// The document state machine (docs/decisions.md#document-states): archive, restore, approve, reject, rate,
// and forget — the permanent purge that leaves only a content-free tombstone.
import { and, eq, inArray, sql, type SQL } from 'drizzle-orm'
import { documents, jobs, messages, tombstones, type MessageSource } from '../../../db/schema'
import type { Tx } from '../../../db/client'
import type { Deps } from '../../deps'
import { conflict } from '../../http/errors'
import { reindexFollowers } from '../../retrieval/indexing'
import type { Action, ActivityEntry } from '../activity/activity.model'
import { eraseForgotten, recordActivity } from '../activity/activity.service'
import { actorOf, type SessionUser } from '../auth/session-user'
import { assertMayApprove, restoreTarget, type Writer } from './approval'
import { aboutDocument } from './document-changes'
import { isMemoryKind, sizeOf, toDocumentDto, type DocumentRow, type Status } from './documents.model'
import { findDocument } from './documents.service'

/** `also`: more fields to write with the status (a rejected draft's metadata.duplicate_of) and to record. */
async function setStatus(
  deps: Deps,
  user: SessionUser,
  row: DocumentRow,
  status: Status,
  action: Action,
  also?: { fields: Partial<DocumentRow>; summary: Record<string, unknown> },
) {
  if (row.status === status) return toDocumentDto(row)
  // An archived document remembers what it was, so restore can return it there.
  const archived_from = status === 'archived' ? row.status : null
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(documents)
      .set({ status, archived_from, updated_at: deps.clock.now(), updated_by: actorOf(user), ...also?.fields })
      .where(eq(documents.id, row.id))
      .returning()
    await recordActivity(tx, deps, user, {
      action,
      ...aboutDocument(row),
      summary: { status: { from: row.status, to: status }, ...also?.summary },
    })
    return toDocumentDto(updated!)
  })
}

/** Hidden from retrieval and lists, recoverable. Archiving an archived document changes nothing. */
export async function archiveDocument(deps: Deps, user: SessionUser, id: string) {
  return setStatus(deps, user, await findDocument(deps.db, user.id, id), 'archived', 'document.archive')
}

/**
 * Back to retrieval and lists — or, for a memory, back to what approval.ts allows: a rejected draft returns
 * to pending_approval, and so does any memory an agent restores. A pending draft is not restored but approved.
 */
export async function restoreDocument(deps: Deps, user: SessionUser, id: string, writer: Writer) {
  const row = await findDocument(deps.db, user.id, id)
  if (row.status === 'pending_approval') throw conflict(`document ${id} is a pending draft: approve it instead`)
  if (row.status !== 'archived') return toDocumentDto(row)
  return setStatus(deps, user, row, restoreTarget(row, writer), 'document.restore')
}

/**
 * The memory a draft is reviewed against — merged into (approve) or named as what it duplicates (reject): the
 * user's own (404 otherwise, as for any document), an active memory of the draft's workspace (409 otherwise).
 */
async function reviewTarget(deps: Deps, user: SessionUser, draft: DocumentRow, targetId: string, verb: string): Promise<DocumentRow> {
  const target = await findDocument(deps.db, user.id, targetId)
  if (target.id === draft.id) throw conflict(`draft ${draft.id} cannot be ${verb} itself`)
  if (!isMemoryKind(target.kind) || target.status !== 'active')
    throw conflict(`document ${targetId} is not an active memory (kind ${target.kind}, status ${target.status})`)
  if (target.workspace_id !== draft.workspace_id) throw conflict(`memory ${targetId} is in another workspace than draft ${draft.id}`)
  return target
}

/** The draft's metadata with `key` set to `value`, and the size that metadata gives it (size_bytes counts metadata). */
function withMetadata(row: DocumentRow, key: string, value: string) {
  const metadata = { ...row.metadata, [key]: value }
  return { metadata, size_bytes: sizeOf({ title: row.title, excerpt: row.excerpt, body: row.body, metadata }) }
}

/** A pending memory draft becomes an active memory; the memory it supersedes (if any) is archived. Only a
 * person approves: a key that could approve its own drafts would make approval meaningless. `supersedes` merges
 * the draft into that memory: the draft is approved as its update (metadata.supersedes names it, so the record
 * says what it replaced) and the memory is archived, whatever the agent's metadata said. */
export async function approveDraft(deps: Deps, user: SessionUser, id: string, writer: Writer, options: { supersedes?: string } = {}) {
  const row = await findDocument(deps.db, user.id, id)
  if (row.status !== 'pending_approval' || !isMemoryKind(row.kind))
    throw conflict(`document ${id} is not a pending memory draft (status ${row.status})`)
  assertMayApprove(writer, id)
  const merged = options.supersedes ? await reviewTarget(deps, user, row, options.supersedes, 'merged into') : null
  const supersedes = merged ? merged.id : typeof row.metadata.supersedes === 'string' ? row.metadata.supersedes : null
  const superseded = supersedes && /^[0-9a-f-]{36}$/.test(supersedes) ? supersedes : null
  return deps.db.transaction(async (tx) => {
    // Both rows first, in id order: archiving the superseded one takes the user's keyword_stats row (its
    // trigger), which a single UPDATE of the draft (a rating) takes after the draft's. Opposite orders deadlock.
    const ids = [id, ...(superseded ? [superseded] : [])].sort()
    await tx
      .select({ id: documents.id })
      .from(documents)
      .where(and(inArray(documents.id, ids), eq(documents.user_id, user.id)))
      .orderBy(documents.id)
      .for('no key update')
    const now = deps.clock.now()
    const updated_by = actorOf(user)
    const replaced = superseded
      ? await tx
          .update(documents)
          .set({ status: 'archived', archived_from: 'active', updated_at: now, updated_by })
          .where(and(eq(documents.id, superseded), eq(documents.user_id, user.id), eq(documents.status, 'active')))
          .returning()
      : []
    const [updated] = await tx
      .update(documents)
      .set({
        status: 'active',
        archived_from: null,
        updated_at: now,
        updated_by,
        ...(merged ? withMetadata(row, 'supersedes', merged.id) : {}),
      })
      .where(eq(documents.id, id))
      .returning()
    await recordActivity(tx, deps, user, [
      {
        action: 'memory.approve',
        ...aboutDocument(row),
        summary: { ...(replaced[0] ? { supersedes: replaced[0].id } : {}), ...(merged ? { merged: true } : {}) },
      },
      ...replaced.map((old) => ({ action: 'memory.supersede' as const, ...aboutDocument(old), summary: { by: id } })),
    ])
    return toDocumentDto(updated!)
  })
}

/** A pending draft is archived. `duplicate_of` records why: the active memory it repeats (metadata.duplicate_of),
 * so the archived draft says which memory already held it. */
export async function rejectDraft(deps: Deps, user: SessionUser, id: string, options: { duplicate_of?: string } = {}) {
  const row = await findDocument(deps.db, user.id, id)
  if (row.status !== 'pending_approval') throw conflict(`document ${id} is not a pending draft (status ${row.status})`)
  const original = options.duplicate_of ? await reviewTarget(deps, user, row, options.duplicate_of, 'a duplicate of') : null
  return setStatus(
    deps,
    user,
    row,
    'archived',
    'memory.reject',
    original ? { fields: withMetadata(row, 'duplicate_of', original.id), summary: { duplicate_of: original.id } } : undefined,
  )
}

export async function rateDocument(deps: Deps, user: SessionUser, id: string, rating: -1 | 0 | 1) {
  const row = await findDocument(deps.db, user.id, id)
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx.update(documents).set({ rating, updated_at: deps.clock.now() }).where(eq(documents.id, id)).returning()
    await recordActivity(tx, deps, user, { action: 'document.update', ...aboutDocument(row), summary: { fields: ['rating'], rating } })
    return toDocumentDto(updated!)
  })
}

/**
 * Purges the document and everything derived from it — chunks and links (by cascade), queued jobs, and
 * the excerpts and titles quoted in conversation sources, and answers that cite it — leaving a tombstone with no content, so a
 * connector re-sync recognises the provider's id and does not bring the document back.
 */
export const FORGOTTEN_ANSWER = 'This answer cited a document that has since been forgotten, so it was removed.'

/** The tombstone of a forgotten document in the activity record: what and when, never its title or text. */
export const forgottenEntry = (row: Pick<DocumentRow, 'id' | 'kind' | 'workspace_id'>): ActivityEntry => ({
  action: 'document.forget',
  object_type: isMemoryKind(row.kind) ? 'memory' : 'document',
  object_id: row.id,
  title: null,
  workspace_id: row.workspace_id,
  summary: { kind: row.kind },
})

export async function forgetDocument(deps: Deps, user: SessionUser, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const row = await findDocument(tx, user.id, id)
    await forgetDocuments(tx, deps, user.id, [id])
    await recordActivity(tx, deps, user, forgottenEntry(row))
  })
}

/** Forgets the user's documents `ids` (a thread's messages, or one document) inside the caller's transaction. */
export async function forgetDocuments(tx: Tx, deps: Deps, userId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  const among = sql`any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid))`
  const amongText = sql`any(array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)))`
  const rows = await tx
    .select()
    .from(documents)
    .where(and(eq(documents.user_id, userId), sql`${documents.id} = ${among}`))
  if (rows.length === 0) return
  await tx.insert(tombstones).values(
    rows.map((row) => ({
      id: row.id,
      user_id: userId,
      workspace_id: row.workspace_id,
      source: row.source,
      // A URL or conversation id is content; only a connector's id is kept, to recognise the document.
      source_ref: row.source === 'connector' ? row.source_ref : null,
      external_id: row.source === 'connector' ? row.external_id : null,
      content_hash: row.content_hash,
      forgotten_at: deps.clock.now(),
    })),
  )
  // Answers citing one of them, found once; each quoting document is then removed from them one by one (rare).
  const cited = await tx
    .select({ id: messages.id, sources: messages.sources })
    .from(messages)
    .where(
      and(
        eq(messages.user_id, userId),
        sql`exists (select 1 from jsonb_array_elements(${messages.sources}) s where s->>'document_id' = ${amongText})`,
      ),
    )
  const forgotten = new Set(rows.map((r) => r.id))
  for (const id of new Set(cited.flatMap((m) => m.sources.map((s) => s.document_id)).filter((d) => forgotten.has(d)))) {
    await tx
      .update(messages)
      .set({
        // An answer that cites the document may quote it word for word: it goes too, leaving a notice.
        content: sql`case when exists (select 1 from jsonb_array_elements(${messages.sources}) s
          where s->>'document_id' = ${id} and ${messages.content} like '%[' || (s->>'index') || ']%')
          then ${FORGOTTEN_ANSWER} else ${messages.content} end`,
        sources: sql`(select coalesce(jsonb_agg(case when s->>'document_id' = ${id}
          then jsonb_build_object('index', s->'index', 'document_id', s->'document_id', 'title', null, 'url', null, 'excerpt', null, 'forgotten', true)
          else s end order by ord), '[]'::jsonb) from jsonb_array_elements(${messages.sources}) with ordinality as e(s, ord))`,
      })
      .where(and(eq(messages.user_id, userId), sql`${messages.sources} @> ${JSON.stringify([{ document_id: id }])}::jsonb`))
  }
  await forgetQuotedBeside(tx, userId, forgotten, amongText)
  await tx.delete(jobs).where(and(eq(jobs.user_id, userId), sql`${jobs.payload}->>'document_id' = ${amongText}`))
  await eraseForgotten(tx, userId, [...forgotten])
  const removed = await tx
    .delete(documents)
    .where(and(eq(documents.user_id, userId), sql`${documents.id} = ${among}`))
    .returning({ thread_id: documents.thread_id, position: documents.position })
  // The messages after a forgotten one read its words (message-context.ts): they are indexed again without them.
  await reindexFollowers(tx, deps, removed)
}

/**
 * A forgotten message quoted beside another one (in the context of a source that is a thread's message) goes from
 * that source — its whole context, the rest being what was said around it — and an answer citing that source goes
 * too, leaving the notice: it may quote the forgotten message word for word.
 */
async function forgetQuotedBeside(tx: Tx, userId: string, forgotten: Set<string>, amongText: SQL): Promise<void> {
  const quoting = await tx
    .select({ id: messages.id, content: messages.content, sources: messages.sources })
    .from(messages)
    .where(
      and(
        eq(messages.user_id, userId),
        sql`exists (select 1 from jsonb_array_elements(${messages.sources}) s
          cross join jsonb_array_elements(coalesce(s->'context'->'before', '[]'::jsonb) || coalesce(s->'context'->'after', '[]'::jsonb)) n
          where n->>'id' = ${amongText})`,
      ),
    )
  for (const message of quoting) {
    const quotes = (s: MessageSource) => !!s.context && [...s.context.before, ...s.context.after].some((n) => forgotten.has(n.id))
    const sources = message.sources.map((source) => {
      if (!quotes(source)) return source
      const { context: _, ...rest } = source
      return rest
    })
    const cites = message.sources.some((s) => quotes(s) && message.content.includes(`[${s.index}]`))
    await tx
      .update(messages)
      .set({ sources, content: cites ? FORGOTTEN_ANSWER : message.content })
      .where(eq(messages.id, message.id))
  }
}
