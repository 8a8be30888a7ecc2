// Keeps a document's chunks and postings in step with its content, inside the writer's transaction, so a
// document is keyword-searchable the moment its ingest or update commits. Embeddings come later (a job).
import { eq, sql } from 'drizzle-orm'
import type { Tx } from '../../db/client'
import { chunks, documents, postings } from '../../db/schema'
import { chunkText } from './chunking'

/** Title and tags count this many times a body occurrence (a light BM25F). */
export const TITLE_WEIGHT = 2
export const TEXT_CONFIG = 'english'

interface IndexableDocument {
  id: string
  user_id: string
  workspace_id: string
  title: string
  tags: string[]
  body: string
}

export async function indexKeywords(tx: Tx, doc: IndexableDocument, newId: () => string): Promise<void> {
  await tx.delete(chunks).where(eq(chunks.document_id, doc.id))
  await tx.delete(postings).where(eq(postings.document_id, doc.id))
  const parts = chunkText(doc.body)
  await tx.insert(chunks).values(
    parts.map((c) => ({
      id: newId(),
      user_id: doc.user_id,
      document_id: doc.id,
      workspace_id: doc.workspace_id,
      ordinal: c.ordinal,
      start_offset: c.start,
      content: c.content,
      // Only the span the chunk owns: overlaps are not counted twice.
      tsv: sql`to_tsvector(${TEXT_CONFIG}::regconfig, ${doc.body.slice(c.start, c.end)})`,
    })),
  )
  const heading = [doc.title, ...doc.tags].join(' \n ')
  await tx.execute(sql`
    insert into ${postings} (user_id, term, document_id, tf, dl)
    select ${doc.user_id}::uuid, lexeme, ${doc.id}::uuid, sum(tf)::real, (sum(sum(tf)) over ())::real from (
      select t.lexeme, coalesce(array_length(t.positions, 1), 1) as tf
        from ${chunks} c, unnest(c.tsv) t where c.document_id = ${doc.id}
      union all
      select t.lexeme, ${TITLE_WEIGHT} * coalesce(array_length(t.positions, 1), 1)
        from unnest(to_tsvector(${TEXT_CONFIG}::regconfig, ${heading})) t
    ) terms group by lexeme`)
  await tx
    .update(documents)
    .set({ keyword_len: sql`(select coalesce(sum(tf), 0) from ${postings} where document_id = ${doc.id})` })
    .where(eq(documents.id, doc.id))
}
