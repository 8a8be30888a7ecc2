// Memories (/app/memories): the active memories, grouped by kind (or one kind, from the URL) in dense tables sorted
// and filtered like Documents' (the page of 100 sorted where shown), and beside them the workspace's context pack
// exactly as an agent receives it, with its token budget adjustable.
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { MEMORY_KINDS } from '../lib/memory-kinds'
import { oneOf } from '../lib/kinds'
import { navigate, usePlace, withQuery } from '../lib/router'
import { useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { arrange, DocTable, ListFilter, oneOfSorts, type Sort } from '../ui/doc-list'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { Empty, Loaded } from '../ui/states'
import { ContextPackPanel } from './context-pack'
import './memories.css'

type MemoryPage = paths['/api/memories']['get']['responses']['200']['content']['application/json']

export function Memories() {
  const { query } = usePlace()
  const { current } = useWorkspaces()
  const kind = oneOf(MEMORY_KINDS, query.get('kind'))
  const cursor = query.get('cursor') ?? undefined
  const params = { workspace_id: current || undefined, kind, cursor, limit: 100 }
  const sort = oneOfSorts(query.get('sort'))
  const [filter, setFilter] = useState('')
  const memories = useApi((signal) => unwrap(api.GET('/api/memories', { params: { query: params }, signal })), [JSON.stringify(params)])

  return (
    <section class="memories">
      <PageTitle title="Memories" />
      <div class="memories-layout">
        <section aria-labelledby="memories-heading">
          <h2 id="memories-heading" class="visually-hidden">
            Active memories
          </h2>
          <label class="kind-filter">
            Kind
            <select value={kind ?? ''} onChange={(e) => navigate(withQuery('/app/memories', { kind: e.currentTarget.value }))}>
              <option value="">Every kind</option>
              {MEMORY_KINDS.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
          <Loaded query={memories} label="Loading memories…">
            {(page) =>
              page.data.length ? (
                <>
                  <ListFilter value={filter} onInput={setFilter} shown={arrange(page.data, sort, filter).length} total={page.data.length} />
                  <ByKind
                    page={page}
                    kind={kind}
                    cursor={cursor}
                    sort={sort}
                    filter={filter}
                    onSort={(next) => navigate(withQuery('/app/memories', { kind, cursor, sort: next }), { replace: true })}
                  />
                </>
              ) : (
                <NoMemories filtered={!!(kind || cursor || current)} />
              )
            }
          </Loaded>
        </section>
        <ContextPackPanel />
      </div>
    </section>
  )
}

function NoMemories({ filtered }: { filtered: boolean }) {
  return (
    <Empty>
      <p>
        {filtered ? 'No active memories here.' : 'No memories yet.'} Memories are what you approve of your agents’ drafts, or notes you save
        with a memory kind.
      </p>
      <Link href="/app/review">Review drafts</Link>
    </Empty>
  )
}

function ByKind({
  page,
  kind,
  cursor,
  sort,
  filter,
  onSort,
}: {
  page: MemoryPage
  kind: string | undefined
  cursor: string | undefined
  sort: Sort
  filter: string
  onSort(sort: Sort): void
}) {
  const shown = arrange(page.data, sort, filter)
  const groups = MEMORY_KINDS.map((k) => ({ kind: k, items: shown.filter((m) => m.kind === k) })).filter((g) => g.items.length)
  const title = (k: string) => `${k[0]!.toUpperCase()}${k.slice(1)}s`
  return (
    <>
      {groups.map((group) => (
        <section key={group.kind} class="kind-group" aria-labelledby={`kind-${group.kind}`}>
          <h3 id={`kind-${group.kind}`}>
            {title(group.kind)} <span class="count">{group.items.length}</span>
          </h3>
          <DocTable docs={group.items} sort={sort} onSort={onSort} caption={title(group.kind)} />
        </section>
      ))}
      <nav class="pager row" aria-label="Pages">
        {cursor && <Link href={withQuery('/app/memories', { kind, sort })}>First page</Link>}
        {page.next_cursor && <Link href={withQuery('/app/memories', { kind, sort, cursor: page.next_cursor })}>Next page</Link>}
      </nav>
    </>
  )
}
