// The graph of a workspace: its active documents as nodes and their links (pending suggestions and
// completed links, with scores) as edges. Dismissed links, non-active documents and threads' messages (a thread is
// their structure, not links) never appear; with a time window, only the documents that happened in it, and the
// links between them. Memories are joined to what they came from (graph.evidence.ts); the pending suggestions above
// a score can be accepted at once.
import { and, desc, eq, gte, inArray, ne, sql } from 'drizzle-orm'
import { documents, links } from '../../../db/schema'
import type { Deps } from '../../deps'
import { timeConditions, type TimeRange } from '../../retrieval/document-fields'
import { shownLinkScore } from '../documents/link-suggestions.service'
import { recordActivity } from '../activity/activity.service'
import type { SessionUser } from '../auth/sessions.service'
import { findWorkspace } from '../workspaces/workspaces.service'
import { MESSAGE_KIND } from '../documents/documents.model'
import { evidenceOf } from './graph.evidence'

/** The documents a workspace's graph draws: active ones, threads' messages aside. */
const drawn = (userId: string, workspaceId: string, time: TimeRange = {}) =>
  and(
    eq(documents.user_id, userId),
    eq(documents.workspace_id, workspaceId),
    eq(documents.status, 'active'),
    ne(documents.kind, MESSAGE_KIND),
    ...timeConditions(sql`${documents.occurred_at}`, time),
  )

export async function getGraph(deps: Deps, user: SessionUser, workspaceId: string, limit = 500, time: TimeRange = {}) {
  await findWorkspace(deps.db, user.id, workspaceId)
  const active = drawn(user.id, workspaceId, time)
  const nodes = await deps.db
    .select({ id: documents.id, title: documents.title, kind: documents.kind, tags: documents.tags, pinned: documents.pinned })
    .from(documents)
    .where(active)
    .orderBy(desc(documents.updated_at))
    .limit(limit)
  const ids = nodes.map((n) => n.id)
  if (ids.length === 0) return { nodes, edges: [], evidence: [], sources: [], truncated: false }
  const edges = await deps.db
    .select({
      id: links.id,
      source: links.source_id,
      target: links.target_id,
      score: shownLinkScore(links.score),
      status: links.status,
      origin: links.origin,
    })
    .from(links)
    .where(
      and(
        eq(links.user_id, user.id),
        inArray(links.status, ['pending', 'completed']),
        inArray(links.source_id, ids),
        inArray(links.target_id, ids),
      ),
    )
    .orderBy(desc(shownLinkScore(links.score)), links.id)
  const evidence = await evidenceOf(deps, user.id, ids)
  return { nodes, edges, evidence: evidence.edges, sources: evidence.sources, truncated: nodes.length === limit }
}

/**
 * Completes every pending suggestion between two of the workspace's drawn documents whose score (as shown) is at
 * least `minScore`, in one statement; a second run finds none left and answers 0.
 */
export async function acceptSuggestions(deps: Deps, user: SessionUser, workspaceId: string, minScore: number) {
  await findWorkspace(deps.db, user.id, workspaceId)
  const inWorkspace = deps.db.select({ id: documents.id }).from(documents).where(drawn(user.id, workspaceId))
  const accepted = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .update(links)
      .set({ status: 'completed' })
      .where(
        and(
          eq(links.user_id, user.id),
          eq(links.status, 'pending'),
          // The threshold as the scores' type holds it (real): one below its range (1e-174) is 0, not an underflow error.
          gte(shownLinkScore(links.score), Math.fround(minScore)),
          inArray(links.source_id, inWorkspace),
          inArray(links.target_id, inWorkspace),
        ),
      )
      .returning({ id: links.id, source_id: links.source_id, target_id: links.target_id })
    // Each link made is recorded as one made by hand would be, with the threshold that made it.
    await recordActivity(
      tx,
      deps,
      user,
      rows.map((link) => ({
        action: 'link.create' as const,
        object_type: 'link' as const,
        object_id: link.id,
        workspace_id: workspaceId,
        summary: { source_id: link.source_id, target_id: link.target_id, accepted_suggestion: true, min_score: minScore },
      })),
    )
    return rows
  })
  return { accepted: accepted.length, min_score: minScore }
}
