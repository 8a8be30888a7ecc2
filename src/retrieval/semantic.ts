// Semantic ranking: cosine similarity between the query's embedding and every embedded chunk of the caller
// (of the same model only), best chunk per document. An exact scan of the caller's own chunks, so tenant
// filters can never starve the top-k the way a shared approximate index filtered afterwards can. When the user has
// an in-memory copy of their vectors (vector-memory.ts, brought up to date first), the same exact ranking runs over it instead.
import { sql, type SQL } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { MemoryFilter } from './keyword-memory-words'
import { BOOST, type SemanticHit } from './ranking'
import type { VectorMemory } from './vector-memory'
import { searchVectorCopy } from './vector-memory-copy'

export type { SemanticHit } from './ranking'

export async function semanticSearch(
  db: Tx,
  userId: string,
  model: string,
  vector: number[],
  filter: SQL,
  limit: number,
  /** The in-memory copies and the same filter in their terms: used when the user's copy is current. */
  memory?: { copies: VectorMemory; filter: MemoryFilter },
): Promise<SemanticHit[]> {
  const copy = memory && (await memory.copies.current(db, userId, model))
  const fromMemory = memory && copy ? searchVectorCopy(copy, vector, memory.filter, limit) : null
  if (fromMemory) return fromMemory
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
