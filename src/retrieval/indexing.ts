// Indexing a written document: the keyword index at once (same transaction), embeddings by a queued job.
import type { Tx } from '../../db/client'
import type { Deps } from '../deps'
import { enqueueJob } from '../jobs/job-kinds'
import { indexKeywords } from './keyword-index'

export async function indexDocument(tx: Tx, deps: Deps, doc: Parameters<typeof indexKeywords>[1]): Promise<void> {
  await indexKeywords(tx, doc, deps.ids.next)
  await enqueueJob(tx, deps, 'embed-document', { document_id: doc.id }, doc.user_id)
}
