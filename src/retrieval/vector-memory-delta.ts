// Reads what changed in a user's vector copy since its versions, from the logs the triggers keep (keyword_changes
// for documents' fields, embedding_changes for chunk vectors): the versions now, which documents changed, and the
// fields and chunk vectors of those that still exist — in one query (vector_changes_since, migration 0030), so
// all of it is of one snapshot.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import type { DocumentFields } from './document-fields'

export type VectorChanges =
  | {
      version: number
      embeddingVersion: number
      /** Every document that changed since, existing or gone. */
      changed: string[]
      /** Those that exist, as they are now. */
      documents: DocumentFields[]
      /** Their chunks with a vector of the model: ids and owners in chunk id order, vectors in pgvector's binary form. */
      chunkIds: string[]
      chunkDocuments: string[]
      vectors: Uint8Array
    }
  /** A log no longer holds every version since the copy's (pruned), or more documents changed than `maxDocuments`. */
  | { version: number; embeddingVersion: number; incomplete: true }

/** Changes since `version` and `embeddingVersion` for `model`'s vectors, or null when the user has no statistics row. */
export async function vectorChangesSince(
  db: Tx,
  userId: string,
  since: { version: number; embeddingVersion: number },
  model: string,
  maxDocuments: number,
): Promise<VectorChanges | null> {
  const [row] = await queryRows<{
    version: number
    embedding_version: number
    complete: boolean
    changed: string | null
    documents: string | null
    chunk_ids: string | null
    chunk_documents: string | null
    vectors: Uint8Array | null
  }>(
    db,
    sql`select r_version as version, r_embedding_version as embedding_version, r_complete as complete, r_changed as changed,
          r_documents as documents, r_chunk_ids as chunk_ids, r_chunk_documents as chunk_documents, r_vectors as vectors
        from vector_changes_since(${userId}::uuid, ${since.version}::bigint, ${since.embeddingVersion}::bigint, ${model}::text, ${maxDocuments}::int)`,
  )
  if (!row) return null
  const [version, embeddingVersion] = [Number(row.version), Number(row.embedding_version)]
  if (!row.complete || row.changed === null || row.documents === null) return { version, embeddingVersion, incomplete: true }
  return {
    version,
    embeddingVersion,
    changed: JSON.parse(row.changed),
    documents: JSON.parse(row.documents),
    chunkIds: row.chunk_ids ? row.chunk_ids.split(' ') : [],
    chunkDocuments: row.chunk_documents ? row.chunk_documents.split(' ') : [],
    vectors: row.vectors ?? new Uint8Array(0),
  }
}
