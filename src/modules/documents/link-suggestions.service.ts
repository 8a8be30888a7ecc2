// Link suggestions, the start of a link's lifecycle (links.service.ts: accepting, linking, unlinking): a document's
// nearest neighbours in its workspace become `pending` links. With embeddings, by best chunk-to-chunk cosine over
// the workspace (retrieval/link-neighbours.ts: the cached vector index search uses, kept usable while a backlog
// embeds); without, by "more like this" — the document's most distinctive terms as a BM25 query, scores scaled by
// the document's own score. Links a person completed or removed (dismissed) are never touched.
import { and, eq, inArray, or, sql, type AnyColumn } from 'drizzle-orm'
import { queryRows } from '../../../db/client'
import { documents, links } from '../../../db/schema'
import type { Deps } from '../../deps'
import { keywordSearch, type QueryTerm } from '../../retrieval/keyword'
import { neighboursInCache, neighboursInSql, type Neighbour } from '../../retrieval/link-neighbours'
import { MESSAGE_KIND } from './documents.model'

export const MAX_SUGGESTIONS = 5
/** Keyword similarity (share of the document's own score) needed to suggest a link. */
export const KEYWORD_THRESHOLD = 0.35
const MLT_TERMS = 12
/** Keyword candidates re-scored by cosine for a large user whose vector index cannot be cached. */
const CANDIDATES = 50
const DF_CAP = 100

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
    let made = 0
    for (const n of neighbours) {
      if (!Number.isFinite(n.score)) continue
      const inserted = await tx
        .insert(links)
        .values({
          id: deps.ids.next(),
          user_id: doc.user_id,
          source_id: doc.id,
          target_id: n.document_id,
          score: Math.min(1, n.score),
          status: 'pending',
          origin: 'suggested',
          created_at: deps.clock.now(),
        })
        .onConflictDoNothing()
        .returning({ id: links.id })
      made += inserted.length
    }
    return made
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
async function keywordNeighbours(deps: Deps, doc: Doc, limit: number): Promise<Neighbour[]> {
  // The document's most distinctive terms: tf × idf within the user's corpus. Document frequencies are
  // counted up to DF_CAP only — a term that common is no distinctive term — so a job's cost stays bounded
  // however large the corpus grows.
  const top = await queryRows<{ term: string }>(
    deps.db,
    // Its postings by their keys, through its listed terms (postings have no index by document, migration 0032).
    sql`select p.term from (
          select t.user_id, u.term collate "C" as term from document_terms t cross join unnest(t.terms) as u(term)
           where t.document_id = ${doc.id} offset 0) k
        join postings p on p.user_id = k.user_id and p.term = k.term and p.document_id = ${doc.id}
        cross join lateral (select count(*) as df from (
          select 1 from postings x where x.user_id = p.user_id and x.term = p.term limit ${DF_CAP}) capped) f
        order by p.tf * ln(1 + 1.0 / f.df) desc, p.term
        limit ${MLT_TERMS}`,
  )
  if (top.length === 0) return []
  const terms: QueryTerm[] = top.map((t, idx) => ({ idx, term: t.term, prefix: false }))
  // Both rankings can run on the cached index (a job: it waits for a load): link and embedding jobs change nothing it holds.
  const [cache, job] = [deps.keywordCache, { wait: true }]
  const self = await keywordSearch(deps.db, doc.user_id, terms, { onlyDocument: doc.id }, 1, cache, job)
  const selfScore = self.hits[0]?.score ?? 0
  if (selfScore <= 0) return []
  const filter = { workspaceId: doc.workspace_id, excludeDocument: doc.id }
  const { hits } = await keywordSearch(deps.db, doc.user_id, terms, filter, limit, cache, job)
  return hits.map((h) => ({ document_id: h.document_id, score: h.score / selfScore }))
}

/**
 * A link's score as it may be shown and ranked: a NaN (or infinite) score stored before scores were guarded
 * reads as 0, so it neither serialises as null nor sorts above every real score.
 */
export const shownLinkScore = (score: AnyColumn) =>
  sql<number>`(case when ${score} in ('NaN'::real, 'Infinity'::real, '-Infinity'::real) then 0 else ${score} end)`
