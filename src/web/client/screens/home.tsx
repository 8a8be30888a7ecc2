// Home: the first-run checklist while the account holds no document, quick capture, recent documents, drafts waiting
// for review, and usage against the plan.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { formatBytes, plural } from '../lib/format'
import { useUser } from '../lib/session'
import { useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { DocList } from '../ui/doc-list'
import { Link } from '../ui/link'
import { DocumentsMeter } from '../ui/documents-meter'
import { Meter } from '../ui/meter'
import { PageTitle } from '../ui/page'
import { Empty, Loaded } from '../ui/states'
import { FirstRun, firstRunDismissed } from './first-run'
import { QuickCapture } from './quick-capture'

export function Home() {
  const { current } = useWorkspaces()
  const workspace_id = current || undefined
  const recent = useApi((signal) => unwrap(api.GET('/api/documents', { params: { query: { workspace_id, limit: 5 } }, signal })), [current])
  const drafts = useApi(
    (signal) => unwrap(api.GET('/api/documents', { params: { query: { workspace_id, status: 'pending_approval', limit: 100 } }, signal })),
    [current],
  )
  const usage = useApi((signal) => unwrap(api.GET('/api/usage', { signal })), [])
  const user = useUser()
  // Decided once, from the first count read: the checklist stays open while its last step is done, and is not
  // shown to an account that holds documents (or that dismissed it).
  const [checklist, setChecklist] = useState<boolean | undefined>(undefined)
  const count = usage.data?.documents.used
  useEffect(() => {
    if (checklist === undefined && count !== undefined && user) setChecklist(count === 0 && !firstRunDismissed(user.id))
  }, [count, user?.id])

  return (
    <section class="home">
      <PageTitle title="Home" />
      {checklist && user && usage.data && (
        <FirstRun userId={user.id} documents={usage.data.documents.used} onClose={() => setChecklist(false)} />
      )}
      <QuickCapture onSaved={() => (recent.reload(), usage.reload())} />
      <div class="grid">
        <section class="card" aria-labelledby="recent-heading">
          <h2 id="recent-heading">Recent documents</h2>
          <Loaded query={recent}>
            {(page) =>
              page.data.length ? (
                <>
                  <DocList docs={page.data} />
                  <Link href="/app/documents">All documents</Link>
                </>
              ) : (
                <Empty>
                  <p>
                    Nothing here yet. Capture a note above, or <Link href="/app/documents/new">add documents</Link>.
                  </p>
                </Empty>
              )
            }
          </Loaded>
        </section>
        <section class="card" aria-labelledby="drafts-heading">
          <h2 id="drafts-heading">Waiting for review</h2>
          <Loaded query={drafts}>
            {(page) => (
              <p class="big-number">
                <strong>{page.next_cursor ? `${page.data.length}+` : page.data.length}</strong>{' '}
                {page.data.length === 1 && !page.next_cursor ? 'draft' : 'drafts'} from your agents
                {page.data.length > 0 && (
                  <>
                    {' '}
                    <Link href="/app/review">Review them</Link>
                  </>
                )}
              </p>
            )}
          </Loaded>
        </section>
        <section class="card" aria-labelledby="usage-heading">
          <h2 id="usage-heading">Usage</h2>
          <Loaded query={usage}>
            {(u) => (
              <div class="meters">
                <p>
                  Plan: <strong>{u.plan}</strong>
                </p>
                <DocumentsMeter used={u.documents.used} limit={u.documents.limit} />
                <Meter label="Storage" used={u.storage_bytes.used} limit={u.storage_bytes.limit} show={formatBytes} />
                <Meter
                  label={`API calls (${u.period})`}
                  used={u.api_calls.used}
                  limit={u.api_calls.limit}
                  show={(n) => plural(n, 'call')}
                />
              </div>
            )}
          </Loaded>
        </section>
      </div>
    </section>
  )
}
