// A document's semantic neighbours for link suggestions: the documents of its workspace whose best chunk-to-chunk
// cosine with any of its chunks reaches the embedder's link threshold, best first, at most `limit`. Asked of the
// user's cached vector index (the one semantic search uses: its int8 scan, exact rescoring), brought up to date
// first by one statement — also while an embedding backlog drains, when every job finds the index a few documents
// behind. So a large user's job is an in-memory scan and an indexed read — never a scan of the corpus in SQL,
// which holds the one PGlite connection (the API's thread) for seconds. The SQL ranking remains for a user whose
// index is not cached (small, over the memory budget, cache off), over keyword candidates when the user is large.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import type { documents } from '../../db/schema'
import type { Deps } from '../deps'
import { chunkVectors } from './chunk-vectors'
import { rankVectorIndex } from './vector-cache'

type Doc = typeof documents.$inferSelect
export interface Neighbour {
  document_id: string
  score: number
}

export const sameWorkspace = (doc: Doc) =>
  sql`d.user_id = ${doc.user_id} and d.workspace_id = ${doc.workspace_id} and d.status = 'active' and d.id <> ${doc.id}`

/** Null when no cached index can answer for this user (small, cache off, over budget, or vectors of another dimension). */
export async function neighboursInCache(
  deps: Deps,
  doc: Doc,
  model: string,
  threshold: number,
  limit: number,
): Promise<Neighbour[] | null> {
  const index = await deps.vectorCache.ready(deps.db, doc.user_id, model)
  if (!index) return null
  const own = await chunkVectors(deps.db, doc.user_id, doc.id, model)
  if (own.some((v) => v.length !== index.dim)) return null // another dimension: SQL raises, as search's would
  const ranked = rankVectorIndex(index, own, { workspaceId: doc.workspace_id, excludeDocument: doc.id }, limit, {
    boost: false,
    atLeast: threshold,
  })
  return ranked.map(({ id, similarity }) => ({ document_id: id, score: similarity }))
}

/** The same ranking in SQL, over `candidates` only or (null) every document of the workspace. */
export async function neighboursInSql(
  deps: Deps,
  doc: Doc,
  model: string,
  threshold: number,
  limit: number,
  candidates: string[] | null,
): Promise<Neighbour[]> {
  if (candidates?.length === 0) return []
  const among = candidates
    ? sql`o.document_id in (select (jsonb_array_elements_text(${JSON.stringify(candidates)}::jsonb))::uuid)`
    : sql`o.user_id = ${doc.user_id}`
  const rows = await queryRows<Neighbour>(
    deps.db,
    // Materialized: the document's few chunks and the others' are each read once, by index, and compared pair by
    // pair. Joined freely, with no statistics yet (a fresh corpus), the planner took every document × every chunk ×
    // the document's chunks in nested loops: seconds per job at 400 documents, all of it holding the connection.
    // Chunks with no vector are left out, and so is a NaN cosine (a zero vector stored before they were
    // refused): PostgreSQL's max() and >= rank NaN above every number, so one would win every pair.
    sql`with mine as materialized (
          select embedding from chunks where document_id = ${doc.id} and embedding_model = ${model} and embedding is not null),
        theirs as materialized (
          select o.document_id, o.embedding from chunks o join documents d on d.id = o.document_id
          where ${among} and o.embedding_model = ${model} and o.embedding is not null and ${sameWorkspace(doc)})
        select t.document_id, max(s.similarity) as score
        from theirs t cross join mine m cross join lateral (select (1 - (t.embedding <=> m.embedding))::float8 as similarity) s
        where s.similarity <> 'NaN'::float8
        group by t.document_id
        having max(s.similarity) >= ${threshold}
        order by score desc, t.document_id
        limit ${limit}`,
  )
  return rows.map((r) => ({ document_id: r.document_id, score: Number(r.score) }))
}
