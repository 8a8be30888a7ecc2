// Conversations (/app/conversations): the threads agents sent (POST /api/threads), newest first, each with its size,
// the time its messages span and its workspace; cursor paging in the URL. One opens as a thread, message by message.
import { api, unwrap } from '../api/client'
import { formatSpan, plural } from '../lib/format'
import { usePlace, withQuery } from '../lib/router'
import { useApi } from '../lib/use-api'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { Empty, Loaded } from '../ui/states'

export function Conversations() {
  const { query } = usePlace()
  const { current, list } = useWorkspaces()
  const cursor = query.get('cursor') ?? undefined
  const params = { workspace_id: current || undefined, cursor, limit: 20 }
  const page = useApi((signal) => unwrap(api.GET('/api/threads', { params: { query: params }, signal })), [JSON.stringify(params)])

  return (
    <section>
      <PageTitle title="Conversations" />
      <p class="hint conversations-lead">
        Conversations your agents sent, message by message (POST /api/threads). Each message is searchable on its own; a search result or a
        citation of one opens here at that message.
      </p>
      <Loaded query={page} label="Loading conversations…">
        {(loaded) =>
          loaded.data.length === 0 ? (
            <Empty>
              <p>{cursor || current ? 'No conversations here.' : 'No conversations yet.'}</p>
            </Empty>
          ) : (
            <>
              <ul class="doc-list threads">
                {loaded.data.map((thread) => (
                  <li key={thread.id}>
                    <Link href={`/app/conversations/${thread.id}`} class="doc-title">
                      {thread.title}
                    </Link>
                    <p class="meta">
                      <span>{plural(thread.message_count, 'message')}</span>
                      <span>{formatSpan(thread.first_occurred_at, thread.last_occurred_at)}</span>
                      <span>{workspaceName(list, thread.workspace_id)}</span>
                    </p>
                  </li>
                ))}
              </ul>
              <nav class="pager row" aria-label="Pages">
                {cursor && <Link href="/app/conversations">First page</Link>}
                {loaded.next_cursor && <Link href={withQuery('/app/conversations', { cursor: loaded.next_cursor })}>Next page</Link>}
              </nav>
            </>
          )
        }
      </Loaded>
    </section>
  )
}
