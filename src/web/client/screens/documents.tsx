// Documents: a dense table (ui/doc-list.tsx) with filters and the sort in the URL (so a view can be bookmarked),
// an inline filter narrowing the page as one types, cursor paging, and bulk archive / restore / delete of the
// selected ones. The list API pages newest first by id and has no sort: a page of 100 is sorted where it is shown.
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { deleteLater, usePendingDeletes } from '../lib/delete-later'
import { plural } from '../lib/format'
import { FILTER_KINDS, oneOf, SOURCES, STATUSES } from '../lib/kinds'
import { documentLabel } from '../lib/messages'
import { navigate, usePlace, withQuery } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { showToast } from '../ui/toast'
import { arrange, DocTable, ListFilter, oneOfSorts } from '../ui/doc-list'
import { Filters, type FilterValues } from '../ui/filters'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded } from '../ui/states'

export function Documents() {
  const { query } = usePlace()
  const { current } = useWorkspaces()
  const filters: FilterValues = {
    kind: query.get('kind') ?? '',
    tag: query.get('tag') ?? '',
    source: query.get('source') ?? '',
    status: query.get('status') ?? '',
  }
  const cursor = query.get('cursor') ?? undefined
  const params = {
    workspace_id: current || undefined,
    kind: oneOf(FILTER_KINDS, filters.kind),
    tag: filters.tag || undefined,
    source: oneOf(SOURCES, filters.source),
    status: oneOf(STATUSES, filters.status),
    cursor,
    limit: 100,
  }
  const sort = oneOfSorts(query.get('sort'))
  const [filter, setFilter] = useState('')
  const list = useApi((signal) => unwrap(api.GET('/api/documents', { params: { query: params }, signal })), [JSON.stringify(params)])
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const bulk = useAction()

  const setFilters = (next: FilterValues) => {
    setSelected(new Set())
    navigate(withQuery('/app/documents', { ...next, sort: query.get('sort') }))
  }
  const toggle = (id: string) => {
    const next = new Set(selected)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    setSelected(next)
  }
  const ids = [...selected]
  const archived = params.status === 'archived'

  const archiveOrRestore = async () => {
    const ok = await bulk.run(async () => {
      for (const id of ids)
        await unwrap(api.POST(archived ? '/api/documents/{id}/restore' : '/api/documents/{id}/archive', { params: { path: { id } } }))
      return true
    })
    setSelected(new Set())
    list.reload()
    if (!ok) return
    if (archived) return announce(`Restored ${plural(ids.length, 'document')}`)
    showToast({
      message: `Archived ${plural(ids.length, 'document')}`,
      onUndo: async () => {
        const back = await bulk.run(async () => {
          for (const id of ids) await unwrap(api.POST('/api/documents/{id}/restore', { params: { path: { id } } }))
          return true
        })
        if (back) announce(`Restored ${plural(ids.length, 'document')}`)
        list.reload()
      },
    })
  }
  /** The rows go at once; the DELETE is sent when the undo toast ends (lib/delete-later.ts). */
  const remove = () => {
    setSelected(new Set())
    deleteLater({ ids, message: `Deleted ${plural(ids.length, 'document')}`, onDeleted: list.reload })
  }
  const pending = usePendingDeletes()

  return (
    <section>
      <PageTitle title="Documents">
        <Link href="/app/documents/new" class="button primary">
          New document
        </Link>
      </PageTitle>
      <Filters values={filters} onChange={setFilters} />
      <div class="bulk row" role="group" aria-label="Selected documents">
        <span>{ids.length ? `${ids.length} selected` : 'Select documents for bulk actions'}</span>
        <button type="button" disabled={!ids.length || bulk.busy} onClick={archiveOrRestore}>
          {archived ? 'Restore' : 'Archive'}
        </button>
        <button type="button" class="danger" disabled={!ids.length || bulk.busy} onClick={remove}>
          Delete
        </button>
      </div>
      <ActionStatus action={bulk} />
      <Loaded query={list}>
        {(loaded) => {
          const page = pending.size ? { ...loaded, data: loaded.data.filter((d) => !pending.has(d.id)) } : loaded
          return page.data.length === 0 ? (
            <Empty>
              <p>{cursor || Object.values(filters).some(Boolean) || current ? 'No documents match these filters.' : 'No documents yet.'}</p>
              <Link href="/app/documents/new">Add one</Link>
            </Empty>
          ) : (
            <>
              <ListFilter value={filter} onInput={setFilter} shown={arrange(page.data, sort, filter).length} total={page.data.length} />
              <DocTable
                docs={arrange(page.data, sort, filter)}
                sort={sort}
                onSort={(next) => navigate(withQuery('/app/documents', { ...filters, cursor, sort: next }), { replace: true })}
                caption="Documents on this page"
                select={{
                  header: (
                    <input
                      type="checkbox"
                      aria-label="Select all on this page"
                      checked={page.data.every((d) => selected.has(d.id))}
                      onChange={(e) => setSelected(e.currentTarget.checked ? new Set(page.data.map((d) => d.id)) : new Set())}
                    />
                  ),
                  cell: (doc) => (
                    <input
                      type="checkbox"
                      aria-label={`Select ${documentLabel(doc)}`}
                      checked={selected.has(doc.id)}
                      onChange={() => toggle(doc.id)}
                    />
                  ),
                  selected: (doc) => selected.has(doc.id),
                }}
              />
              <nav class="pager row" aria-label="Pages">
                {cursor && <Link href={withQuery('/app/documents', { ...filters, sort: query.get('sort') })}>First page</Link>}
                {page.next_cursor && (
                  <Link href={withQuery('/app/documents', { ...filters, sort: query.get('sort'), cursor: page.next_cursor })}>
                    Next page
                  </Link>
                )}
              </nav>
            </>
          )
        }}
      </Loaded>
    </section>
  )
}
