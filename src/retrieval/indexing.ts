// Indexing a written document: the keyword index at once (same transaction), embeddings by a queued job. A
// message is indexed with the messages before it (message-context.ts), so writing or removing one re-indexes
// the messages after it that read it.
import { eq, inArray } from 'drizzle-orm'
import type { Tx } from '../../db/client'
import { documents } from '../../db/schema'
import type { Deps } from '../deps'
import { enqueueJob } from '../queue/job-kinds'
import { indexKeywords } from './keyword-index'
import { messagesAfter, type Placed } from './message-context'

type Indexable = Parameters<typeof indexKeywords>[1]

export async function indexDocument(tx: Tx, deps: Deps, doc: Indexable): Promise<void> {
  await indexOne(tx, deps, doc)
  await reindexFollowers(tx, deps, [{ thread_id: doc.thread_id ?? null, position: doc.position ?? null }])
}

/**
 * Re-indexes the stored messages whose context holds a message of `at` — one just written (its text, or its
 * place, changed) or just removed — leaving out those of `batch`, indexed with it. Each is indexed as written
 * (keyword index now, vectors by its job), without going further: its own text did not change.
 */
export async function reindexFollowers(tx: Tx, deps: Deps, at: Placed[], batch: (Placed & { id: string })[] = []): Promise<void> {
  const ids = await messagesAfter(tx, at, batch)
  if (ids.length === 0) return
  const rows = await tx.select().from(documents).where(inArray(documents.id, ids))
  for (const row of rows) {
    // The document's row before its chunks, as every writer takes them (embed-batch.ts): opposite orders deadlock.
    await tx.update(documents).set({ index_status: 'pending' }).where(eq(documents.id, row.id))
    await indexOne(tx, deps, row)
  }
}

async function indexOne(tx: Tx, deps: Deps, doc: Indexable): Promise<void> {
  await indexKeywords(tx, doc, deps.ids.next)
  await enqueueJob(tx, deps, 'embed-document', { document_id: doc.id }, doc.user_id)
}
