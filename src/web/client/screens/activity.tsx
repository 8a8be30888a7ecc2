// Activity (/app/activity): what happened to this account's data, newest first, one dense row each — when (exact
// on hover), who (you, a key by label and prefix, an MCP client, a connector, the service), the way in, what
// happened in words and to what (linked while it exists). Filters by action family and by who, read from and kept
// in the URL (so the keys list links to one key's activity); "Load more" follows the cursor.
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import {
  ACTORS,
  type ActivityEntry,
  describeAction,
  describeActor,
  FAMILIES,
  goneIds,
  objectHref,
  objectTitle,
  SURFACES,
} from '../lib/activity-words'
import { formatAgo, formatDate } from '../lib/format'
import { navigate, usePlace, withQuery } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded } from '../ui/states'

const PAGE = 50
const UUID = /^[0-9a-f-]{36}$/i

export function Activity() {
  const { query } = usePlace()
  const action = query.get('action') ?? ''
  const actor = query.get('actor') ?? ''
  const objectId = query.get('object_id') ?? ''
  const filters = {
    action: action && FAMILIES.some(([v]) => v === action) ? action : undefined,
    actor: ACTORS.some(([v]) => v === actor) || UUID.test(actor) ? actor || undefined : undefined,
    object_id: UUID.test(objectId) ? objectId : undefined,
  }
  const first = useApi(
    (signal) => unwrap(api.GET('/api/activity', { params: { query: { ...filters, limit: PAGE } }, signal })),
    [filters.action, filters.actor, filters.object_id],
  )
  // The pages loaded after the first, for the first page they follow (a new first page starts over).
  const [loadedMore, setMore] = useState<{ after: unknown; entries: ActivityEntry[]; cursor: string | null }>()
  const more = loadedMore && loadedMore.after === first.data ? loadedMore : undefined
  const loading = useAction()
  const loadMore = async (cursor: string) => {
    const page = await loading.run(() => unwrap(api.GET('/api/activity', { params: { query: { ...filters, limit: PAGE, cursor } } })))
    if (page) setMore({ after: first.data, entries: [...(more?.entries ?? []), ...page.data], cursor: page.next_cursor })
  }
  const set = (change: Record<string, string>) => navigate(withQuery('/app/activity', { ...filters, ...change }), { replace: true })

  return (
    <section class="activity">
      <PageTitle title="Activity" />
      <p class="hint">
        What happened to your documents, memories, keys and settings, and who did it: you, a key, an MCP client or a connector.
      </p>
      <div class="row activity-filters" role="group" aria-label="Filter activity">
        <label>
          What
          <select value={filters.action ?? ''} onChange={(e) => set({ action: e.currentTarget.value })}>
            {FAMILIES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Who
          <select value={filters.actor ?? ''} onChange={(e) => set({ actor: e.currentTarget.value })}>
            {ACTORS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
            {filters.actor && UUID.test(filters.actor) && <option value={filters.actor}>This key or client</option>}
          </select>
        </label>
        {filters.object_id && <Link href={withQuery('/app/activity', { ...filters, object_id: undefined })}>Show every object</Link>}
      </div>
      <Loaded query={first} label="Loading the activity…">
        {(page) => {
          const entries = [...page.data, ...(more?.entries ?? [])]
          const cursor = more ? more.cursor : page.next_cursor
          if (!entries.length)
            return (
              <Empty>
                <p>
                  {filters.action || filters.actor || filters.object_id ? 'Nothing matches these filters.' : 'Nothing has happened yet.'}
                </p>
              </Empty>
            )
          const gone = goneIds(entries)
          return (
            <>
              <ol class="activity-list">
                {entries.map((entry) => (
                  <Row key={entry.id} entry={entry} gone={gone} />
                ))}
              </ol>
              <ActionStatus action={loading} />
              {cursor && (
                <button type="button" class="load-more" disabled={loading.busy} onClick={() => loadMore(cursor)}>
                  Load more
                </button>
              )}
            </>
          )
        }}
      </Loaded>
    </section>
  )
}

function Row({ entry, gone }: { entry: ActivityEntry; gone: Set<string> }) {
  const title = objectTitle(entry)
  const href = objectHref(entry, gone)
  return (
    <li class="activity-row">
      <time dateTime={entry.at} title={formatDate(entry.at)}>
        {formatAgo(entry.at)}
      </time>
      <span class="actor">{describeActor(entry.actor)}</span>
      <span class="surface">{SURFACES[entry.actor.surface] ?? entry.actor.surface}</span>
      <span class="what">{describeAction(entry)}</span>
      {title !== null && (
        <span class="object">{href ? <Link href={href}>{title}</Link> : <span class={entry.title ? '' : 'hint'}>{title}</span>}</span>
      )}
    </li>
  )
}
