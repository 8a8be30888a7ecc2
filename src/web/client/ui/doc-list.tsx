// A compact list of documents (title linking to its page, kind, workspace, tags, when): Home and elsewhere. A message
// reads "<speaker> · <time>" and opens in its conversation. DocTable is the dense table of Documents and Memories:
// title with a plain-text excerpt, kind, source, updated (how long ago; the exact time on hover), links; sortable
// by title or updated, filtered as one types; on a phone each row reads as a short block.
import type { ComponentChildren } from 'preact'
import type { paths } from '../api/schema'
import { plainExcerpt } from '../lib/excerpt'
import { formatAgo, formatDate } from '../lib/format'
import { documentHref, documentLabel } from '../lib/messages'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import { Link } from './link'

export type DocumentSummary = paths['/api/documents']['get']['responses']['200']['content']['application/json']['data'][number]

export const SORTS = ['-updated', 'updated', 'title', '-title'] as const
export type Sort = (typeof SORTS)[number]
/** The URL's sort when it is one of SORTS, else newest first. */
export const oneOfSorts = (value: string | null): Sort =>
  (SORTS as readonly string[]).includes(value ?? '') ? (value as Sort) : '-updated'

/** The page's documents whose title or excerpt holds every word of `filter`, in the order `sort` names. */
export function arrange(docs: DocumentSummary[], sort: Sort, filter: string): DocumentSummary[] {
  const words = filter.toLocaleLowerCase().split(/\s+/).filter(Boolean)
  const kept = words.length
    ? docs.filter((d) => {
        const text = `${documentLabel(d)} ${plainExcerpt(d.excerpt)}`.toLocaleLowerCase()
        return words.every((w) => text.includes(w))
      })
    : docs
  const by = sort.replace('-', '') as 'title' | 'updated'
  const sign = sort.startsWith('-') ? -1 : 1
  const key = (d: DocumentSummary) => (by === 'title' ? documentLabel(d) : d.updated_at)
  return [...kept].sort((a, b) => sign * (by === 'title' ? key(a).localeCompare(key(b)) : key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
}

function SortHeader({ label, by, sort, onSort }: { label: string; by: 'title' | 'updated'; sort: Sort; onSort(sort: Sort): void }) {
  const on = sort.replace('-', '') === by
  const descending = sort.startsWith('-')
  // Titles first A→Z, updated first newest: the order one usually wants from a first click.
  const next: Sort = on ? ((descending ? by : `-${by}`) as Sort) : by === 'title' ? 'title' : '-updated'
  return (
    <th scope="col" aria-sort={on ? (descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" class="sort" onClick={() => onSort(next)}>
        {label}
        <span aria-hidden="true">{on ? (descending ? ' ↓' : ' ↑') : ' ↕'}</span>
      </button>
    </th>
  )
}

export interface DocTableProps {
  docs: DocumentSummary[]
  sort: Sort
  onSort(sort: Sort): void
  caption: string
  /** A leading cell per row (the Documents screen's checkboxes), and its header. */
  select?: { header: ComponentChildren; cell(doc: DocumentSummary): ComponentChildren; selected(doc: DocumentSummary): boolean }
}

export function DocTable({ docs, sort, onSort, caption, select }: DocTableProps) {
  return (
    <table class="doc-table">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {select && (
            <th scope="col" class="check">
              {select.header}
            </th>
          )}
          <SortHeader label="Title" by="title" sort={sort} onSort={onSort} />
          <th scope="col">Kind</th>
          <th scope="col">Source</th>
          <SortHeader label="Updated" by="updated" sort={sort} onSort={onSort} />
          <th scope="col" class="number">
            Links
          </th>
        </tr>
      </thead>
      <tbody>
        {docs.map((doc) => (
          <tr key={doc.id} class={select?.selected(doc) ? 'selected' : ''}>
            {select && <td class="check">{select.cell(doc)}</td>}
            <td class="title-cell">
              <Link href={documentHref(doc)} class="doc-title">
                {documentLabel(doc)}
              </Link>
              {doc.status !== 'active' && <span class={`status ${doc.status}`}>{doc.status.replace('_', ' ')}</span>}
              {doc.pinned && <span class="pinned">pinned</span>}
              <p class="excerpt">{plainExcerpt(doc.excerpt)}</p>
              <Tags tags={doc.tags} />
            </td>
            <td class="kind" data-label="Kind">
              {doc.kind}
            </td>
            <td data-label="Source">{doc.source}</td>
            <td data-label="Updated">
              <time dateTime={doc.updated_at} title={formatDate(doc.updated_at)}>
                {formatAgo(doc.updated_at)}
              </time>
            </td>
            <td class="number" data-label="Links">
              {doc.links}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** The inline filter of a list: narrows what is loaded as one types. */
export function ListFilter({
  value,
  onInput,
  shown,
  total,
}: {
  value: string
  onInput(value: string): void
  shown: number
  total: number
}) {
  return (
    <div class="list-filter row">
      <label>
        Filter this page
        <input type="search" value={value} placeholder="Words in the title or excerpt" onInput={(e) => onInput(e.currentTarget.value)} />
      </label>
      <span class="meta" aria-live="polite">
        {value ? `${shown.toLocaleString()} of ${total.toLocaleString()} shown` : `${total.toLocaleString()} on this page`}
      </span>
    </div>
  )
}

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

export function DocMeta({ doc }: { doc: Omit<DocumentSummary, 'links'> }) {
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

export function DocList({ docs }: { docs: Omit<DocumentSummary, 'links'>[] }) {
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
