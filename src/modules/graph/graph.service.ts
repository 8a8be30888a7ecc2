// The graph of a workspace: its active documents as nodes and their links (pending suggestions and
// completed links, with scores) as edges. Dismissed links, non-active documents and threads' messages (a thread is
// their structure, not links) never appear.
import { and, desc, eq, inArray, ne } from 'drizzle-orm'
import { documents, links } from '../../../db/schema'
import type { Deps } from '../../deps'
import { shownLinkScore } from '../../retrieval/suggestions'
import type { SessionUser } from '../auth/sessions.service'
import { findWorkspace } from '../workspaces/workspaces.service'
import { MESSAGE_KIND } from '../documents/documents.model'

export async function getGraph(deps: Deps, user: SessionUser, workspaceId: string, limit = 500) {
  await findWorkspace(deps.db, user.id, workspaceId)
  const active = and(
    eq(documents.user_id, user.id),
    eq(documents.workspace_id, workspaceId),
    eq(documents.status, 'active'),
    ne(documents.kind, MESSAGE_KIND),
  )
  const nodes = await deps.db
    .select({ id: documents.id, title: documents.title, kind: documents.kind, tags: documents.tags, pinned: documents.pinned })
    .from(documents)
    .where(active)
    .orderBy(desc(documents.updated_at))
    .limit(limit)
  const ids = nodes.map((n) => n.id)
  if (ids.length === 0) return { nodes, edges: [], truncated: false }
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
  return { nodes, edges, truncated: nodes.length === limit }
}
