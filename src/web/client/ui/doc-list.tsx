// A compact list of documents (title linking to its page, kind, workspace, tags, when): Home and elsewhere. A message
// reads "<speaker> · <time>" and opens in its conversation.
import type { paths } from '../api/schema'
import { formatDate } from '../lib/format'
import { documentHref, documentLabel } from '../lib/messages'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import { Link } from './link'

export type DocumentSummary = paths['/api/documents']['get']['responses']['200']['content']['application/json']['data'][number]

export function Tags({ tags }: { tags: string[] }) {
  if (!tags.length) return null
  return (
    <ul class="tags" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag} class="tag">
          {tag}
        </li>
      ))}
    </ul>
  )
}

export function DocMeta({ doc }: { doc: DocumentSummary }) {
  const { list } = useWorkspaces()
  return (
    <p class="meta">
      <span class="kind">{doc.kind}</span>
      {doc.status !== 'active' && <span class={`status ${doc.status}`}>{doc.status.replace('_', ' ')}</span>}
      {doc.pinned && <span class="pinned">pinned</span>}
      <span>{workspaceName(list, doc.workspace_id)}</span>
      <span>{doc.source}</span>
      <time dateTime={doc.updated_at}>{formatDate(doc.updated_at)}</time>
    </p>
  )
}

export function DocList({ docs }: { docs: DocumentSummary[] }) {
  return (
    <ul class="doc-list">
      {docs.map((doc) => (
        <li key={doc.id}>
          <Link href={documentHref(doc)} class="doc-title">
            {documentLabel(doc)}
          </Link>
          <DocMeta doc={doc} />
          <Tags tags={doc.tags} />
        </li>
      ))}
    </ul>
  )
}
