// Link suggestions, the start of a link's lifecycle (links.service.ts: accepting, linking, unlinking): a document's
// nearest neighbours in its workspace become `pending` links. With embeddings, by best chunk-to-chunk cosine over
// the workspace (retrieval/link-neighbours.ts: the cached vector index search uses, kept usable while a backlog
// embeds); without, by "more like this" — the document's most distinctive terms as a BM25 query, scores scaled by
// the document's own score. Links a person completed or removed (dismissed) are never touched.
import { and, eq, inArray, or, sql, type AnyColumn } from 'drizzle-orm'
import { requestsFirst } from '../../../db/client'
import { documents, links } from '../../../db/schema'
import type { Deps } from '../../deps'
import { moreLikeThese, moreLikeThis } from '../../retrieval/more-like-this'
import { neighboursInCache, neighboursInSql, type Neighbour } from '../../retrieval/link-neighbours'
import { MESSAGE_KIND } from './documents.model'
import { nextTurn } from '../../lib/next-turn'

export const MAX_SUGGESTIONS = 5
/** Keyword similarity (share of the document's own score) needed to suggest a link. */
export const KEYWORD_THRESHOLD = 0.35
/** Keyword candidates re-scored by cosine for a large user whose vector index cannot be cached. */
const CANDIDATES = 50

/** One document's suggestions; answers how many links were suggested. */
export async function suggestLinks(deps: Deps, documentId: string): Promise<number> {
  const [outcome] = await suggestLinksFor(deps, [documentId])
  if (outcome instanceof Error) throw outcome
  return outcome ?? 0
}

/**
 * Suggestions for many documents at once (a batch of jobs): the documents read in one statement, their neighbours
 * found (by keyword, each user's index caught up once for all of them), the neighbours that are messages dropped in
 * one statement and every suggestion written in one transaction — statements are what requests wait behind on the
 * embedded database. Answers, for each id in order, how many links it was given, or the error its neighbours met.
 */
export async function suggestLinksFor(deps: Deps, ids: string[]): Promise<(number | Error)[]> {
  const rows = ids.length ? await deps.db.select().from(documents).where(inArray(documents.id, ids)) : []
  // A message's neighbours are its thread: messages are neither given suggestions nor suggested (a thread of 600
  // chat turns would otherwise bury a workspace's graph in links between small talk).
  const byId = new Map(rows.map((doc) => [doc.id, doc]))
  const docs = [...new Set(ids)].flatMap((id) => {
    const doc = byId.get(id)
    return doc?.status === 'active' && doc.kind !== MESSAGE_KIND ? [doc] : []
  })
  const found = await neighboursOf(deps, docs)
  const messages = await messagesAmong(
    deps,
    [...found.values()].flatMap((n) => (n instanceof Error ? [] : n.map((x) => x.document_id))),
  )
  const suggested = docs.filter((doc) => !(found.get(doc.id) instanceof Error))
  // Each pair once, as the later document's suggestion (in the order of `ids`): what the jobs run one after another left.
  const pairs = new Map<string, typeof links.$inferInsert>()
  for (const doc of suggested) {
    for (const n of found.get(doc.id) as Neighbour[]) {
      if (!Number.isFinite(n.score) || messages.has(n.document_id)) continue
      const pair = [doc.id, n.document_id].sort().join()
      pairs.delete(pair)
      pairs.set(pair, {
        id: deps.ids.next(),
        user_id: doc.user_id,
        source_id: doc.id,
        target_id: n.document_id,
        score: Math.min(1, n.score),
        status: 'pending',
        origin: 'suggested',
        created_at: deps.clock.now(),
      })
    }
  }
  const given = new Map<string, number>()
  if (suggested.length) {
    const inserted = await deps.db.transaction(async (tx) => {
      // Replace these documents' open suggestions; completed and dismissed links stay as people left them.
      const replaced = suggested.map((d) => d.id)
      await tx
        .delete(links)
        .where(
          and(
            eq(links.status, 'pending'),
            eq(links.origin, 'suggested'),
            or(inArray(links.source_id, replaced), inArray(links.target_id, replaced)),
          ),
        )
      return pairs.size
        ? tx
            .insert(links)
            .values([...pairs.values()])
            .onConflictDoNothing()
            .returning({ source_id: links.source_id })
        : []
    })
    for (const { source_id } of inserted) given.set(source_id, (given.get(source_id) ?? 0) + 1)
  }
  return ids.map((id) => {
    const neighbours = found.get(id)
    return neighbours instanceof Error ? neighbours : (given.get(id) ?? 0)
  })
}

type Doc = typeof documents.$inferSelect

/** Each document's neighbours above the threshold, or the error finding them met. */
async function neighboursOf(deps: Deps, docs: Doc[]): Promise<Map<string, Neighbour[] | Error>> {
  const found = new Map<string, Neighbour[] | Error>()
  if (!deps.embedder) {
    const liked = await moreLikeThese(deps.db, docs, MAX_SUGGESTIONS, deps.keywordCache)
    for (const doc of docs)
      found.set(
        doc.id,
        (liked.get(doc.id) ?? []).filter((n) => n.score >= KEYWORD_THRESHOLD),
      )
    return found
  }
  for (const doc of docs) {
    // Each ranking is work in memory: after requests, as a job's statements run (db/client.ts).
    await requestsFirst(deps.db)
    try {
      found.set(doc.id, await semanticNeighbours(deps, doc, deps.embedder.id, deps.embedder.linkThreshold))
    } catch (e) {
      found.set(doc.id, e instanceof Error ? e : new Error(String(e)))
    }
    await nextTurn()
  }
  return found
}

/** Which of these documents are messages. */
async function messagesAmong(deps: Deps, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const messages = await deps.db
    .select({ id: documents.id })
    .from(documents)
    .where(and(inArray(documents.id, [...new Set(ids)]), eq(documents.kind, MESSAGE_KIND)))
  return new Set(messages.map((m) => m.id))
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
