// A document's own chunk vectors of one model, read from pgvector (float32): what link suggestions compare with
// its neighbours and what hybrid search's feedback step moves the query toward.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'

export async function chunkVectors(db: Tx, userId: string, documentId: string, model: string): Promise<Float32Array[]> {
  const rows = await queryRows<{ v: string }>(
    db,
    sql`select embedding::text as v from chunks
        where user_id = ${userId} and document_id = ${documentId} and embedding_model = ${model} and embedding is not null order by id`,
  )
  return rows.map((r) => Float32Array.from(JSON.parse(r.v) as number[]))
}
