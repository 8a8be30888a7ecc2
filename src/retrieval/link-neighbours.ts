// A document's semantic neighbours for link suggestions: the documents of its workspace whose best chunk-to-chunk
// cosine with any of its chunks reaches the embedder's link threshold, best first, at most `limit`. Asked of the
// user's in-memory vector copy when it is current (the index semantic search uses: its int8 scan, exact rescoring);
// otherwise in SQL — over the whole workspace when the user is below the copy's size (no copy will be loaded, the
// scan is small), else over a bounded set of candidates (keyword more-like-this), so a job never scans a large
// corpus in SQL while its copy reloads.
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import type { documents } from '../../db/schema'
import type { Deps } from '../deps'
import { chunkVectors } from './chunk-vectors'
import { rankDocuments } from './vector-memory-rank'

type Doc = typeof documents.$inferSelect
export interface Neighbour {
  document_id: string
  score: number
}

export const sameWorkspace = (doc: Doc) =>
  sql`d.user_id = ${doc.user_id} and d.workspace_id = ${doc.workspace_id} and d.status = 'active' and d.id <> ${doc.id}`

/** Null neighbours when the copy cannot answer (not current or not loaded); `large`: the user has a copy's size. */
export async function neighboursInMemory(
  deps: Deps,
  doc: Doc,
  model: string,
  threshold: number,
  limit: number,
): Promise<{ neighbours: Neighbour[] | null; large: boolean }> {
  const { copy, large } = await deps.vectorMemory.status(deps.db, doc.user_id, model)
  if (!copy) return { neighbours: null, large }
  const own = await chunkVectors(deps.db, doc.user_id, doc.id, model)
  if (own.some((v) => v.length !== copy.dim)) return { neighbours: null, large } // another dimension: SQL raises, as search's would
  const ranked = rankDocuments(copy, own, { workspaceId: doc.workspace_id, excludeDocument: doc.id }, limit, {
    boost: false,
    atLeast: threshold,
  })
  return { neighbours: ranked.map((r) => ({ document_id: copy.ids[r.d]!, score: r.similarity })), large }
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
    // Chunks with no vector are left out, and so is a NaN cosine (a zero vector stored before they were
    // refused): PostgreSQL's max() and >= rank NaN above every number, so one would win every pair.
    sql`select d.id as document_id, max(s.similarity) as score
        from chunks c
        join chunks o on ${among} and o.embedding_model = c.embedding_model and o.embedding is not null
        cross join lateral (select (1 - (o.embedding <=> c.embedding))::float8 as similarity) s
        join documents d on d.id = o.document_id
        where c.document_id = ${doc.id} and c.embedding_model = ${model} and c.embedding is not null and s.similarity <> 'NaN'::float8
          and ${sameWorkspace(doc)}
        group by d.id
        having max(s.similarity) >= ${threshold}
        order by score desc, d.id
        limit ${limit}`,
  )
  return rows.map((r) => ({ document_id: r.document_id, score: Number(r.score) }))
}
