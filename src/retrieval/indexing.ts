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

/**
 * What a new document's row says and which job follows its keyword index: embedding — or, when no embedding model
 * is configured (EMBEDDING_PROVIDER=none, which every process of a deployment reads alike), nothing to wait for: the
 * document is indexed as it is written and its link suggestions are queued, with no embed-document job and no
 * second write of the row to mark it indexed.
 * A model configured later embeds every document lacking its vectors (embedding-upkeep.ts).
 */
export function firstStep(deps: Pick<Deps, 'config'>): { index_status: 'pending' | 'indexed'; job: 'embed-document' | 'suggest-links' } {
  return deps.config.embeddings.provider === 'none'
    ? { index_status: 'indexed', job: 'suggest-links' }
    : { index_status: 'pending', job: 'embed-document' }
}
