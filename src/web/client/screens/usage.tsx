// Usage and billing: meters against the plan's limits, the plan and subscription with upgrade (Stripe
// Checkout) and the billing portal when billing is configured, totals, and the daily history as a chart.
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { formatBytes, formatDate, plural } from '../lib/format'
import { navigate, usePlace } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { DocumentsMeter } from '../ui/documents-meter'
import { Meter } from '../ui/meter'
import { PageTitle } from '../ui/page'
import { ActionStatus, Loaded } from '../ui/states'
import { HistoryChart } from './usage-chart'

const DAYS = [7, 30, 90, 365] as const

export function Usage() {
  const { query } = usePlace()
  const days = DAYS.find((d) => String(d) === query.get('days')) ?? 30
  const usage = useApi((signal) => unwrap(api.GET('/api/usage', { signal })), [])
  const stats = useApi((signal) => unwrap(api.GET('/api/stats', { signal })), [])
  const history = useApi((signal) => unwrap(api.GET('/api/stats/historical', { params: { query: { days } }, signal })), [days])

  return (
    <section class="usage">
      <PageTitle title="Usage" />
      <div class="grid">
        <section class="card" aria-labelledby="meters-heading">
          <h2 id="meters-heading">Against your plan</h2>
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
        <Billing onChange={usage.reload} />
        <section class="card" aria-labelledby="totals-heading">
          <h2 id="totals-heading">Totals</h2>
          <Loaded query={stats}>
            {(s) => (
              <dl class="totals">
                <div>
                  <dt>Documents</dt>
                  <dd>
                    {s.documents.stored.toLocaleString()}
                    <span class="hint">
                      {' '}
                      ({s.documents.by_status.active.toLocaleString()} active, {plural(s.documents.by_status.pending_approval, 'draft')},{' '}
                      {s.documents.by_status.archived.toLocaleString()} archived)
                    </span>
                  </dd>
                </div>
                <div>
                  <dt>Memories</dt>
                  <dd>{s.memories.toLocaleString()}</dd>
                </div>
                <div>
                  <dt>Drafts waiting</dt>
                  <dd>{s.pending_drafts.toLocaleString()}</dd>
                </div>
                <div>
                  <dt>Links</dt>
                  <dd>
                    {s.links.completed.toLocaleString()} (+{s.links.pending.toLocaleString()} suggested)
                  </dd>
                </div>
                <div>
                  <dt>Searches</dt>
                  <dd>{s.searches.toLocaleString()}</dd>
                </div>
                <div>
                  <dt>Answers</dt>
                  <dd>{s.answers.toLocaleString()}</dd>
                </div>
              </dl>
            )}
          </Loaded>
        </section>
      </div>
      <section class="card history" aria-labelledby="history-heading">
        <div class="row snippet-head">
          <h2 id="history-heading">Activity by day</h2>
          <label class="inline">
            Period
            <select value={days} onChange={(e) => navigate(`/app/usage?days=${e.currentTarget.value}`, { replace: true })}>
              {DAYS.map((d) => (
                <option key={d} value={d}>
                  last {d} days
                </option>
              ))}
            </select>
          </label>
        </div>
        <Loaded query={history}>{(h) => <HistoryChart series={h.series} />}</Loaded>
      </section>
    </section>
  )
}

/** The subscription: 503 means this service has no billing configured, and every account has its default plan. */
function Billing({ onChange }: { onChange(): void }) {
  const { query } = usePlace()
  const subscription = useApi(async (signal) => {
    try {
      return await unwrap(api.GET('/api/billing/subscription', { signal }))
    } catch (error) {
      if ((error as { status?: number }).status === 503) return null
      throw error
    }
  }, [])
  const action = useAction()
  const [returned, setReturned] = useState('')

  // Back from Stripe: Checkout's return names its session (verified server-side); the portal's says so.
  useEffect(() => {
    const session = query.get('session_id')
    const portal = query.get('portal')
    if (!session && !portal) return
    navigate('/app/usage', { replace: true })
    void action
      .run(() =>
        session ? unwrap(api.POST('/api/billing/verify', { body: { session_id: session } })) : unwrap(api.POST('/api/billing/portal-sync')),
      )
      .then((s) => {
        if (!s) return
        setReturned(session ? `Welcome to ${s.plan}: your subscription is ${s.status}.` : 'Your billing details are up to date.')
        subscription.reload()
        onChange()
      })
  }, [])

  const here = `${location.origin}/app/usage`
  const upgrade = async () => {
    const session = await action.run(() =>
      unwrap(api.POST('/api/billing/checkout', { body: { success_url: `${here}?session_id={CHECKOUT_SESSION_ID}`, cancel_url: here } })),
    )
    if (session?.url) location.assign(session.url)
  }
  const portal = async () => {
    const session = await action.run(() => unwrap(api.POST('/api/billing/portal', { body: { return_url: `${here}?portal=returned` } })))
    if (session) location.assign(session.url)
  }

  return (
    <section class="card" aria-labelledby="billing-heading">
      <h2 id="billing-heading">Plan and billing</h2>
      {returned && (
        <p class="notice" role="status">
          {returned}
        </p>
      )}
      <Loaded query={subscription}>
        {(s) =>
          s === null ? (
            <p class="hint">Billing is not configured on this service: every account has its default plan (set by whoever runs it).</p>
          ) : (
            <div class="stack">
              <p>
                <strong>{s.plan}</strong> · {s.status === 'none' ? 'no subscription' : s.status.replace('_', ' ')}
                {s.current_period_end && (
                  <>
                    {' '}
                    · {s.cancel_at_period_end ? 'ends' : 'renews'} {formatDate(s.current_period_end)}
                  </>
                )}
              </p>
              <div class="row">
                {s.plan === 'free' && (
                  <button type="button" class="primary" onClick={upgrade} disabled={action.busy}>
                    Upgrade to pro
                  </button>
                )}
                {s.status !== 'none' && (
                  <button type="button" onClick={portal} disabled={action.busy}>
                    Manage billing
                  </button>
                )}
              </div>
            </div>
          )
        }
      </Loaded>
      <ActionStatus action={action} />
    </section>
  )
}
