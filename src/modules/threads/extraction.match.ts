// What a proposed learning meets among the memories already there: an equal memory or draft (then it is not proposed
// again), and the active memories search finds about the same thing (which the model judges it restates or updates).
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm'
import { documents } from '../../../db/schema'
import type { Deps } from '../../deps'
import type { SessionUser } from '../auth/sessions.service'
import { contentHash, MEMORY_KINDS } from '../documents/documents.model'
import { searchDocuments } from '../search/search.service'

/** Memories search brings beside each learning for the model to compare. */
export const CANDIDATES_PER_LEARNING = 3
/** Pending and rejected drafts compared with each extraction's learnings: the review queue, newest first. */
const DRAFTS_COMPARED = 1_000
/** Longer than any learning's body: a stored body cut here can only be equal to a learning if it is this short. */
const COMPARED_CHARS = 4_000

/** Equal means the same words: case, spacing and punctuation aside. */
export const sameWords = (body: string) =>
  body
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

export interface Existing {
  id: string
  status: string
}

/** Finds what a learning's body would repeat. */
export type EqualFinder = (body: string) => Existing | undefined

/**
 * The memories and drafts of the workspace a learning would repeat: any memory with the same text (by hash), and the
 * pending and rejected drafts with the same words (a person who rejected a learning is not asked again).
 */
export async function equalsInWorkspace(deps: Deps, user: SessionUser, workspaceId: string, bodies: string[]): Promise<EqualFinder> {
  const mine = and(eq(documents.user_id, user.id), eq(documents.workspace_id, workspaceId), inArray(documents.kind, [...MEMORY_KINDS]))
  const [sameHash, drafts] = await Promise.all([
    bodies.length
      ? deps.db
          .select({ id: documents.id, status: documents.status, hash: documents.content_hash })
          .from(documents)
          .where(and(mine, inArray(documents.content_hash, bodies.map(contentHash))))
      : [],
    deps.db
      .select({ id: documents.id, status: documents.status, body: sql<string>`left(${documents.body}, ${COMPARED_CHARS + 1})` })
      .from(documents)
      .where(
        and(
          mine,
          or(
            eq(documents.status, 'pending_approval'),
            and(eq(documents.status, 'archived'), eq(documents.archived_from, 'pending_approval')),
          ),
        ),
      )
      .orderBy(desc(documents.created_at))
      .limit(DRAFTS_COMPARED),
  ])
  const byHash = new Map(sameHash.map((r) => [r.hash, { id: r.id, status: r.status }]))
  const byWords = new Map<string, Existing>()
  for (const row of drafts)
    if (row.body.length <= COMPARED_CHARS && !byWords.has(sameWords(row.body)))
      byWords.set(sameWords(row.body), { id: row.id, status: row.status })
  return (body) => byHash.get(contentHash(body)) ?? byWords.get(sameWords(body))
}

export interface Candidate {
  id: string
  kind: string
  title: string
  body: string
}

/** The active memories of the learning's kind that search (hybrid, as GET /api/search) finds for its words. */
export async function memoriesAbout(
  deps: Deps,
  user: SessionUser,
  workspaceId: string,
  learning: { kind: string; title: string; body: string },
): Promise<Candidate[]> {
  const found = await searchDocuments(deps, user, {
    q: `${learning.title}\n${learning.body}`,
    kind: learning.kind,
    workspace_id: workspaceId,
    limit: CANDIDATES_PER_LEARNING,
  })
  const ids = found.results.map((r) => r.document.id)
  if (ids.length === 0) return []
  const rows = await deps.db
    .select({
      id: documents.id,
      kind: documents.kind,
      title: documents.title,
      body: sql<string>`left(${documents.body}, ${COMPARED_CHARS + 1})`,
    })
    .from(documents)
    .where(and(eq(documents.user_id, user.id), inArray(documents.id, ids)))
  const byId = new Map(rows.map((r) => [r.id, r]))
  return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []))
}
