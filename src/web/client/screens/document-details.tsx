// A document's metadata: where it came from, its state, sizes and dates, and its free-form metadata as text.
import type { ComponentChildren } from 'preact'
import { formatBytes, formatDate } from '../lib/format'
import { safeHref } from '../lib/safe-url'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import type { Doc } from './document-doc'

export function DocumentDetails({ doc }: { doc: Doc }) {
  const { list } = useWorkspaces()
  const href = safeHref(doc.url)
  const rows: [string, ComponentChildren][] = [
    ['Workspace', workspaceName(list, doc.workspace_id)],
    ['Kind', doc.kind],
    ['Status', doc.status.replace('_', ' ')],
    ['Source', doc.source_ref ? `${doc.source} (${doc.source_ref})` : doc.source],
    ['Indexed', doc.index_status],
    ['Size', formatBytes(doc.size_bytes)],
    ['Created', formatDate(doc.created_at)],
    ['Updated', formatDate(doc.updated_at)],
  ]
  if (doc.url)
    rows.splice(1, 0, [
      'URL',
      href ? (
        <a href={href} target="_blank" rel="noopener noreferrer nofollow">
          {doc.url}
        </a>
      ) : (
        <span class="unsafe-link">{doc.url}</span>
      ),
    ])
  const metadata = Object.keys(doc.metadata).length ? JSON.stringify(doc.metadata, null, 2) : null
  return (
    <section class="card details" aria-labelledby="details-heading">
      <h2 id="details-heading">Details</h2>
      <dl>
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {metadata && (
        <>
          <h3>Metadata</h3>
          <pre tabIndex={0}>{metadata}</pre>
        </>
      )}
    </section>
  )
}
