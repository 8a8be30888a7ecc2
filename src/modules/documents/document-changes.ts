// What a change to a document was, in words the activity record keeps: which fields changed, and the status it
// moved between — never the values of title, body or tags, which are content.
import { isMemoryKind, type DocumentRow } from './documents.model'

const FIELDS = ['title', 'excerpt', 'body', 'tags', 'kind', 'url', 'pinned', 'metadata', 'workspace_id', 'occurred_at'] as const

export function changeSummary(before: DocumentRow, after: DocumentRow): Record<string, unknown> {
  const fields = FIELDS.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]))
  return {
    fields,
    ...(before.status !== after.status ? { status: { from: before.status, to: after.status } } : {}),
    ...(before.version !== after.version ? { version: after.version } : {}),
  }
}

/** The object of an entry about a document: a memory when it is of a memory kind. */
export const aboutDocument = (row: Pick<DocumentRow, 'id' | 'kind' | 'title' | 'workspace_id'>) => ({
  object_type: isMemoryKind(row.kind) ? ('memory' as const) : ('document' as const),
  object_id: row.id,
  title: row.title,
  workspace_id: row.workspace_id,
})
