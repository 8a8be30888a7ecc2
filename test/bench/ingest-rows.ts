// Document rows as the bulk insert takes them (insert_indexed_documents' p_docs), for the profiling aids that call
// it directly (ingest-ab.ts, ingest-explain.ts): SciFact abstracts as new, active documents of one workspace.
import type { CorpusDoc } from './scifact'

export function documentRows(docs: CorpusDoc[], userId: string, workspaceId: string, now = new Date()) {
  return docs.map((d) => ({
    id: Bun.randomUUIDv7(),
    user_id: userId,
    workspace_id: workspaceId,
    title: d.title,
    excerpt: d.text.slice(0, 200),
    body: d.text,
    tags: [] as string[],
    kind: 'document',
    status: 'active',
    archived_from: null,
    source: 'api',
    source_ref: null,
    external_id: null,
    url: null,
    content_hash: crypto.randomUUID(),
    size_bytes: d.text.length,
    pinned: false,
    rating: 0,
    metadata: {},
    index_status: 'pending',
    created_at: now,
    updated_at: now,
  }))
}
