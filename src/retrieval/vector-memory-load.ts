// Reading a user's chunk vectors (of one model) into an in-memory copy: documents and chunks in small pages, each
// one short statement with the event loop handed back between them, so a load never holds the database (on PGlite,
// the API's own thread) for more than a few milliseconds at a time, however large the user.
import { sql } from 'drizzle-orm'
import { queryRows, type Tx } from '../../db/client'
import { loadDocumentFields, yieldToRequests } from './document-fields'
import type { VectorSegment } from './vector-memory-rank'
import { SegmentBuilder } from './vector-memory-segment'

/** Chunks per query of a load (~190 KB of vectors at 384 dimensions): a few ms of PGlite each. */
const CHUNKS_PAGE = 500

export interface Versions {
  version: number
  embeddingVersion: number
  documents: number
}

export async function versionsOf(db: Tx, userId: string): Promise<Versions | null> {
  const [row] = await queryRows<{ version: number; embedding_version: number; documents: number }>(
    db,
    sql`select version::float8 as version, embedding_version::float8 as embedding_version, documents from keyword_stats where user_id = ${userId}`,
  )
  return row ? { version: Number(row.version), embeddingVersion: Number(row.embedding_version), documents: Number(row.documents) } : null
}

/**
 * Reads the user's vectors of `model` in pages: a segment labelled with the versions read first. The pages are not
 * one snapshot — writes may land while they are read — but every document written meanwhile is in the logs of
 * changes after those versions, so the catch-up that follows the load (vector-memory.ts) replaces each of them.
 * Null when the user has no statistics row (no documents) or holds vectors of two dimensions.
 */
export async function loadUserVectors(
  db: Tx,
  userId: string,
  model: string,
): Promise<{ segment: VectorSegment; versions: Versions } | null> {
  const versions = await versionsOf(db, userId)
  if (!versions) return null
  const builder = new SegmentBuilder(await loadDocumentFields(db, userId))
  for (let after: string | null = null; ; ) {
    await yieldToRequests()
    // A page as two strings and one bytea: a row per page instead of per chunk, and no text parsing of 384 numbers a chunk.
    const [page]: { ids: string | null; docs: string | null; vecs: Uint8Array | null; n: number }[] = await queryRows(
      db,
      sql`select string_agg(c.id::text, ' ' order by c.id) as ids, string_agg(c.document_id::text, ' ' order by c.id) as docs,
            string_agg(vector_send(c.embedding), ''::bytea order by c.id) as vecs, count(*)::int as n
          from (select id, document_id, embedding from chunks
                where user_id = ${userId} and embedding_model = ${model} and embedding is not null ${after !== null ? sql`and id > ${after}` : sql``}
                order by id limit ${CHUNKS_PAGE}) c`,
    )
    const n: number = Number(page?.n ?? 0)
    if (n === 0 || !page!.ids || !page!.docs || !page!.vecs) break
    const ids: string[] = page!.ids.split(' ')
    if (!builder.addChunks(ids, page!.docs.split(' '), page!.vecs)) return null
    if (n < CHUNKS_PAGE) break
    after = ids[n - 1]!
  }
  return { segment: builder.build(model), versions }
}
