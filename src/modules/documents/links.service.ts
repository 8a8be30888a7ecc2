// Links between two of a user's documents: manual links, accepted suggestions, and unlinking
// (a removed link is kept as `dismissed` so it is never suggested again).
import { aliasedTable, and, desc, eq, inArray, ne, or, sql } from 'drizzle-orm'
import { documents, links } from '../../../db/schema'
import type { Deps } from '../../deps'
import { shownLinkScore } from './link-suggestions.service'
import { badRequest, notFound } from '../../http/errors'
import { recordActivity } from '../activity/activity.service'
import type { SessionUser } from '../auth/sessions.service'
import type { DocumentRow } from './documents.model'
import { findDocument } from './documents.service'

type LinkRow = typeof links.$inferSelect

const toLinkDto = (row: LinkRow, other: { id: string; title: string; kind: string }) => ({
  id: row.id,
  source_id: row.source_id,
  target_id: row.target_id,
  score: Number.isFinite(row.score) ? row.score : 0,
  status: row.status,
  origin: row.origin,
  created_at: row.created_at.toISOString(),
  document: other,
})

const pair = (a: string, b: string) =>
  or(and(eq(links.source_id, a), eq(links.target_id, b)), and(eq(links.source_id, b), eq(links.target_id, a)))

/** Links of a document whose other end is active: pending suggestions and completed links, best score first. */
export async function listLinks(deps: Deps, user: SessionUser, id: string) {
  await findDocument(deps.db, user.id, id)
  const other = aliasedTable(documents, 'other')
  const rows = await deps.db
    .select({ link: links, other: { id: other.id, title: other.title, kind: other.kind } })
    .from(links)
    .innerJoin(other, eq(other.id, sql`case when ${links.source_id} = ${id} then ${links.target_id} else ${links.source_id} end`))
    .where(
      and(
        eq(links.user_id, user.id),
        or(eq(links.source_id, id), eq(links.target_id, id)),
        inArray(links.status, ['pending', 'completed']),
        eq(other.status, 'active'),
      ),
    )
    .orderBy(desc(shownLinkScore(links.score)), desc(links.id))
  return { data: rows.map((r) => toLinkDto(r.link, r.other)) }
}

/** Creates a completed manual link, or completes an existing suggestion. `created` tells which. */
export async function linkDocuments(deps: Deps, user: SessionUser, id: string, targetId: string) {
  if (id === targetId) throw badRequest('target_id must be another document')
  const [source, target] = [await findDocument(deps.db, user.id, id), await findDocument(deps.db, user.id, targetId)]
  const linked = await makeLink(deps, user, source, target)
  await recordActivity(deps.db, deps, user, {
    action: 'link.create',
    object_type: 'link',
    object_id: linked.link.id,
    title: source.title,
    workspace_id: source.workspace_id,
    summary: { source_id: source.id, target_id: target.id, ...(linked.created ? {} : { accepted_suggestion: true }) },
  })
  return linked
}

async function makeLink(deps: Deps, user: SessionUser, source: DocumentRow, target: DocumentRow) {
  const [id, targetId] = [source.id, target.id]
  const complete = async () => {
    const [existing] = await deps.db
      .select()
      .from(links)
      .where(and(eq(links.user_id, user.id), pair(id, targetId)))
    if (!existing) return null
    const [row] = await deps.db.update(links).set({ status: 'completed' }).where(eq(links.id, existing.id)).returning()
    return { link: toLinkDto(row!, { id: target.id, title: target.title, kind: target.kind }), created: false }
  }
  const completed = await complete()
  if (completed) return completed
  // A suggestion or another request may have linked the pair since: then the insert does nothing, and that
  // link is completed instead.
  const [row] = await deps.db
    .insert(links)
    .values({
      id: deps.ids.next(),
      user_id: user.id,
      source_id: source.id,
      target_id: target.id,
      score: 1,
      status: 'completed',
      origin: 'manual',
      created_at: deps.clock.now(),
    })
    .onConflictDoNothing()
    .returning()
  if (row) return { link: toLinkDto(row, { id: target.id, title: target.title, kind: target.kind }), created: true }
  const raced = await complete()
  if (!raced) throw new Error('link pair conflicted but is not there')
  return raced
}

export async function unlinkDocuments(deps: Deps, user: SessionUser, id: string, targetId: string): Promise<void> {
  await findDocument(deps.db, user.id, id)
  const updated = await deps.db
    .update(links)
    .set({ status: 'dismissed' })
    .where(and(eq(links.user_id, user.id), pair(id, targetId), ne(links.status, 'dismissed')))
    .returning({ id: links.id })
  if (updated.length === 0) throw notFound(`no link between ${id} and ${targetId}`)
  await recordActivity(deps.db, deps, user, {
    action: 'link.delete',
    object_type: 'link',
    object_id: updated[0]!.id,
    summary: { source_id: id, target_id: targetId },
  })
}
