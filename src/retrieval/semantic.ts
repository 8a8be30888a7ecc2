// Semantic ranking: cosine similarity between the query's embedding and every embedded chunk of the caller
// (of the same model only), best chunk per document. An exact scan of the caller's own chunks, so tenant
// filters can never starve the top-k the way a shared approximate index filtered afterwards can. When the user's
// vector index is cached (vector-cache.ts, brought up to date first), the same exact ranking runs over it instead.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { filterSql, type DocumentFilter } from './document-fields'
import type { IndexCache } from './index-cache'
import { BOOST, type SemanticHit } from './ranking'
import { searchVectorIndex, type VectorIndex } from './vector-cache'

export type { SemanticHit } from './ranking'

/**
 * Ranks the user's documents that pass `filter` by their best chunk's similarity to `vector`: in the user's cached
 * vector index when `cache` has it current, else in SQL (index-cache.ts decides, and says when that is for want of memory).
 */
export async function semanticSearch(
  db: Tx,
  userId: string,
  model: string,
  vector: number[],
  filter: DocumentFilter,
  limit: number,
  cache?: IndexCache<VectorIndex>,
): Promise<{ hits: SemanticHit[]; notice?: string }> {
  const inSql = () => semanticSearchSql(db, userId, model, vector, filterSql(userId, filter), limit)
  if (!cache) return { hits: await inSql() }
  const { result, notice } = await cache.rank(db, userId, (index) => searchVectorIndex(index, vector, filter, limit), inSql, { key: model })
  return { hits: result, ...(notice ? { notice } : {}) }
}

/** The same ranking in SQL, of the user's documents passing `filter` (an SQL condition on `d`, the documents table). */
export async function semanticSearchSql(
  db: Tx,
  userId: string,
  model: string,
  vector: number[],
  filter: SQL,
  limit: number,
): Promise<SemanticHit[]> {
  // A zero vector (stored before zero vectors were refused) has a NaN cosine distance, and PostgreSQL ranks
  // NaN above every number: such chunks are left out, never ranked. Of equally near chunks the lowest id stands for
  // its document, so the chunk (hence the passage shown) is the same whichever path ranked it.
  const rows = await queryRows<SemanticHit>(
    db,
    sql`with q as (select ${`[${vector.join(',')}]`}::vector as v),
      best as (
        select distinct on (c.document_id) c.document_id, c.id as chunk_id, 1 - s.distance as similarity
        from chunks c cross join q cross join lateral (select (c.embedding <=> q.v)::float8 as distance) s
        where c.user_id = ${userId} and c.embedding_model = ${model} and c.embedding is not null and s.distance <> 'NaN'::float8
        order by c.document_id, s.distance, c.id)
      select b.document_id, b.chunk_id, b.similarity, ${BOOST}::float8 as boost
      from best b join documents d on d.id = b.document_id
      where ${filter}
      order by b.similarity * ${BOOST} desc, b.document_id
      limit ${limit}`,
  )
  return rows
    .map((r) => ({ ...r, similarity: Number(r.similarity), boost: Number(r.boost) }))
    .filter((r) => Number.isFinite(r.similarity * r.boost))
}
