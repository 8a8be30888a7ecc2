// Link suggestions, the start of a link's lifecycle (links.service.ts: accepting, linking, unlinking): a document's
// nearest neighbours in its workspace become `pending` links. With embeddings, by best chunk-to-chunk cosine over
// the workspace (retrieval/link-neighbours.ts: the cached vector index search uses, kept usable while a backlog
// embeds); without, by "more like this" — the document's most distinctive terms as a BM25 query, scores scaled by
// the document's own score. Links a person completed or removed (dismissed) are never touched.
import { and, eq, inArray, or, sql, type AnyColumn } from 'drizzle-orm'
import { documents, links } from '../../../db/schema'
import type { Deps } from '../../deps'
import { moreLikeThis } from '../../retrieval/more-like-this'
import { neighboursInCache, neighboursInSql, type Neighbour } from '../../retrieval/link-neighbours'
import { MESSAGE_KIND } from './documents.model'

export const MAX_SUGGESTIONS = 5
/** Keyword similarity (share of the document's own score) needed to suggest a link. */
export const KEYWORD_THRESHOLD = 0.35
/** Keyword candidates re-scored by cosine for a large user whose vector index cannot be cached. */
const CANDIDATES = 50

export async function suggestLinks(deps: Deps, documentId: string): Promise<number> {
  const [doc] = await deps.db.select().from(documents).where(eq(documents.id, documentId))
  // A message's neighbours are its thread: messages are neither given suggestions nor suggested (a thread of 600
  // chat turns would otherwise bury a workspace's graph in links between small talk).
  if (doc?.status !== 'active' || doc.kind === MESSAGE_KIND) return 0
  const found = deps.embedder
    ? await semanticNeighbours(deps, doc, deps.embedder.id, deps.embedder.linkThreshold)
    : (await keywordNeighbours(deps, doc, MAX_SUGGESTIONS)).filter((n) => n.score >= KEYWORD_THRESHOLD)
  const neighbours = await withoutMessages(deps, found)
  return deps.db.transaction(async (tx) => {
    // Replace this document's open suggestions; completed and dismissed links stay as people left them.
    await tx
      .delete(links)
      .where(and(eq(links.status, 'pending'), eq(links.origin, 'suggested'), or(eq(links.source_id, doc.id), eq(links.target_id, doc.id))))
    // The new ones in one statement (a job a document: statements are what requests wait behind on the embedded database).
    const rows = neighbours
      .filter((n) => Number.isFinite(n.score))
      .map((n) => ({
        id: deps.ids.next(),
        user_id: doc.user_id,
        source_id: doc.id,
        target_id: n.document_id,
        score: Math.min(1, n.score),
        status: 'pending',
        origin: 'suggested',
        created_at: deps.clock.now(),
      }))
    if (rows.length === 0) return 0
    const inserted = await tx.insert(links).values(rows).onConflictDoNothing().returning({ id: links.id })
    return inserted.length
  })
}

type Doc = typeof documents.$inferSelect

async function withoutMessages(deps: Deps, neighbours: Neighbour[]): Promise<Neighbour[]> {
  if (neighbours.length === 0) return neighbours
  const ids = neighbours.map((n) => n.document_id)
  const messages = await deps.db
    .select({ id: documents.id })
    .from(documents)
    .where(and(inArray(documents.id, ids), eq(documents.kind, MESSAGE_KIND)))
  const dropped = new Set(messages.map((m) => m.id))
  return neighbours.filter((n) => !dropped.has(n.document_id))
}

/**
 * With embeddings: every document of the workspace compared, chunk to chunk, in the user's cached vector index
 * with what was embedded since it loaded laid over it (link-neighbours.ts). When no index is cached for the user,
 * in SQL — over the whole workspace for a user below the cache's minimum size, else over keyword candidates re-scored by
 * cosine: a bounded set, so the job never scans a large corpus in SQL.
 */
async function semanticNeighbours(deps: Deps, doc: Doc, model: string, threshold: number): Promise<Neighbour[]> {
  const neighbours = await neighboursInCache(deps, doc, model, threshold, MAX_SUGGESTIONS)
  if (neighbours) return neighbours
  const { large } = await deps.vectorCache.status(deps.db, doc.user_id, model)
  const candidates = large ? (await keywordNeighbours(deps, doc, CANDIDATES)).map((n) => n.document_id) : null
  return neighboursInSql(deps, doc, model, threshold, MAX_SUGGESTIONS, candidates)
}

/** The documents most like this one by keyword, scored as a share of its own score (best first). */
const keywordNeighbours = (deps: Deps, doc: Doc, limit: number): Promise<Neighbour[]> =>
  moreLikeThis(deps.db, doc, limit, deps.keywordCache)

/**
 * A link's score as it may be shown and ranked: a NaN (or infinite) score stored before scores were guarded
 * reads as 0, so it neither serialises as null nor sorts above every real score.
 */
export const shownLinkScore = (score: AnyColumn) =>
  sql<number>`(case when ${score} in ('NaN'::real, 'Infinity'::real, '-Infinity'::real) then 0 else ${score} end)`
