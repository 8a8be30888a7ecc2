// embed-document: embeds the chunks of a document with service-embed and marks it indexed. Chunks and the
// keyword index were written with the document; this adds what semantic search needs. A document edited
// meanwhile has new chunks and a job of its own, so stale work is simply not written. A chunk with nothing
// to embed (no letters or digits, for the hash embedder) is recorded as processed by the model with no
// vector: it is neither retried nor `failed`, and never enters a cosine (a zero vector's is NaN).
import { and, eq, isNull, ne, not, or, sql } from 'drizzle-orm'
import { chunks, documents } from '../../db/schema'
import { embedDocuments } from '../ai/embeddings'
import type { Deps } from '../deps'
import { enqueueJob, type JobDefinition } from './catalog'

const BATCH = 64

export const embedDocumentJob: JobDefinition<{ document_id: string }> = {
  maxAttempts: 5,
  async run(deps, { document_id }) {
    await embedDocument(deps, document_id)
  },
  async onFailed(deps, { document_id }) {
    await markFailed(deps, document_id)
  },
}

export async function markFailed(deps: Deps, documentId: string): Promise<void> {
  await deps.db.update(documents).set({ index_status: 'failed' }).where(eq(documents.id, documentId))
}

/** Embeds what the loaded model has not processed of the document, then marks it indexed (see above). */
export async function embedDocument(deps: Deps, documentId: string): Promise<void> {
  const [doc] = await deps.db.select({ id: documents.id }).from(documents).where(eq(documents.id, documentId))
  if (!doc) return // deleted or forgotten since: nothing to do
  const embedder = deps.embedder
  if (embedder) {
    const pending = await deps.db
      .select({ id: chunks.id, content: chunks.content })
      .from(chunks)
      .where(and(eq(chunks.document_id, documentId), or(isNull(chunks.embedding_model), ne(chunks.embedding_model, embedder.id))))
      .orderBy(chunks.ordinal)
    for (let i = 0; i < pending.length; i += BATCH) {
      const batch = pending.slice(i, i + BATCH)
      const vectors = await embedDocuments(embedder, batch.map((c) => c.content))
      await deps.db.transaction(async (tx) => {
        for (const [j, c] of batch.entries()) {
          await tx.update(chunks).set({ embedding: vectors[j] ?? null, embedding_model: embedder.id }).where(eq(chunks.id, c.id))
        }
      })
    }
  }
  // Indexed once every current chunk carries this model's vector: an edit meanwhile replaced the chunks
  // (and queued its own job), so a stale run leaves the status to that job. Then look for neighbours.
  await deps.db.transaction(async (tx) => {
    const stale = embedder
      ? sql`exists (select 1 from ${chunks} where ${chunks.document_id} = ${documentId} and ${chunks.embedding_model} is distinct from ${embedder.id})`
      : sql`false`
    const done = await tx
      .update(documents)
      .set({ index_status: 'indexed' })
      .where(and(eq(documents.id, documentId), not(stale)))
      .returning({ user_id: documents.user_id })
    if (done[0]) await enqueueJob(tx, deps, 'suggest-links', { document_id: documentId }, done[0].user_id)
  })
}
