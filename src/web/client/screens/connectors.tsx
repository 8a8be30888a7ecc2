// Connectors: add one (off to the provider's consent, back here with the outcome; a provider this server is not
// configured for says which settings enable it instead of failing after a click), each connector's selection, sync
// and run history (connector-card.tsx), and the OAuth connections to disconnect.
import { useEffect, useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { announce } from '../lib/announce'
import { formatDate } from '../lib/format'
import { navigate, usePlace } from '../lib/router'
import { useAction, useApi } from '../lib/use-api'
import { useWorkspaces } from '../lib/workspaces'
import { Confirm } from '../ui/confirm'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded } from '../ui/states'
import { ConnectorCard, TYPES, type ConnectorType } from './connector-card'

type Connection = paths['/api/connectors/connections']['get']['responses']['200']['content']['application/json']['data'][number]

const RUNNING = new Set(['queued', 'running'])

export function Connectors() {
  const { query } = usePlace()
  const connectors = useApi((signal) => unwrap(api.GET('/api/connectors', { signal })), [])
  const connections = useApi((signal) => unwrap(api.GET('/api/connectors/connections', { signal })), [])
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null)

  // Back from the provider's consent: the OAuth return lands here with connected=true or error=….
  useEffect(() => {
    const error = query.get('error')
    if (query.get('connected') === 'true') setOutcome({ ok: true, text: 'Connected: the first sync is queued and its run shows below.' })
    else if (error)
      setOutcome({
        ok: false,
        text: `The connection was not made: ${error === 'access_denied' ? 'access was refused at the provider (access_denied)' : error}. Authorize again to retry.`,
      })
    else return
    navigate('/app/connectors', { replace: true })
  }, [])

  // While a sync is queued or running, look again every two seconds.
  const busy = connectors.data?.data.some((c) => c.last_run && RUNNING.has(c.last_run.status))
  useEffect(() => {
    if (!busy) return
    const timer = setInterval(() => connectors.reload(), 2000)
    return () => clearInterval(timer)
  }, [busy])

  const refresh = () => (connectors.reload(), connections.reload())
  return (
    <section class="connectors">
      <PageTitle title="Connectors" />
      {outcome && (
        <p class={outcome.ok ? 'notice' : 'state error'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
        </p>
      )}
      <AddConnector />
      <Loaded query={connectors}>
        {({ data }) =>
          data.length === 0 ? (
            <Empty>
              <p>No connectors yet. Add one above to bring a Confluence space, Drive folder or Notion page into a workspace.</p>
            </Empty>
          ) : (
            <ul class="connector-list">
              {data.map((c) => (
                <ConnectorCard key={c.id} connector={c} onChange={refresh} />
              ))}
            </ul>
          )
        }
      </Loaded>
      <Loaded query={connections}>{({ data }) => <Connections connections={data} onChange={refresh} />}</Loaded>
    </section>
  )
}

type Provider = paths['/api/connectors/providers']['get']['responses']['200']['content']['application/json']['data'][number]

/** "A and B", "A, B and C". */
const and = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`)

function AddConnector() {
  const { list, current } = useWorkspaces()
  const providers = useApi((signal) => unwrap(api.GET('/api/connectors/providers', { signal })), [])
  const [type, setType] = useState<ConnectorType>('confluence')
  // Opens on the first provider this server can connect.
  useEffect(() => {
    const first = providers.data?.data.find((p) => p.configured)
    if (first) setType(first.type)
  }, [providers.data])
  const provider: Provider | undefined = providers.data?.data.find((p) => p.type === type)
  const unconfigured = provider !== undefined && !provider.configured
  const [label, setLabel] = useState('')
  const [workspace, setWorkspace] = useState(current)
  const add = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const started = await add.run(() =>
      unwrap(
        api.POST('/api/connectors', {
          body: {
            type,
            label: label.trim() || undefined,
            workspace_id: workspace || undefined,
            redirect_to: `${location.origin}/app/connectors`,
          },
        }),
      ),
    )
    // Off to the provider's consent page; its answer comes back through the OAuth return to this screen.
    if (started) location.assign(started.authorization_url)
  }
  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="add-connector">
      <h2 id="add-connector">Add a connector</h2>
      <div class="row options">
        <label>
          Provider
          <select value={type} onChange={(e) => setType(e.currentTarget.value as ConnectorType)}>
            {Object.entries(TYPES).map(([value, t]) => (
              <option key={value} value={value}>
                {t.name}
                {providers.data?.data.some((p) => p.type === value && !p.configured) ? ' (not configured here)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          <span>
            Label <span class="hint">(optional)</span>
          </span>
          <input value={label} maxLength={100} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <label>
          Into workspace
          <select value={workspace} onChange={(e) => setWorkspace(e.currentTarget.value)}>
            <option value="">The default workspace</option>
            {list?.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {unconfigured ? (
        <p class="notice not-configured" id="not-configured">
          {TYPES[type].name} is not configured on this server. To enable it, whoever runs the service sets{' '}
          {provider.setting.map((name, i) => (
            <span key={name}>
              {i > 0 && (i === provider.setting.length - 1 ? ' and ' : ', ')}
              <code>{name}</code>
            </span>
          ))}{' '}
          (the OAuth app's client id and secret, with the redirect URL <code>{`${location.origin}/api/connectors/oauth/callback`}</code>
          ), then restarts it.
        </p>
      ) : (
        <p class="hint">
          You will be sent to {TYPES[type].name} to allow access, then brought back here. Choose what to sync afterwards; until then
          everything the grant can see is synced.
        </p>
      )}
      <button
        type="submit"
        class="primary"
        disabled={add.busy || unconfigured}
        aria-describedby={unconfigured ? 'not-configured' : undefined}
        title={unconfigured ? `Set ${and(provider.setting)} to enable it` : undefined}
      >
        Connect {TYPES[type].name}
      </button>
      <ActionStatus action={add} />
    </form>
  )
}

function Connections({ connections, onChange }: { connections: Connection[]; onChange(): void }) {
  const [leaving, setLeaving] = useState<Connection | null>(null)
  const disconnect = useAction()
  const confirm = async () => {
    const target = leaving!
    const ok = await disconnect.run(
      async () => (await done(api.DELETE('/api/connectors/connections/{id}', { params: { path: { id: target.id } } })), true),
    )
    setLeaving(null)
    if (!ok) return
    announce(`Disconnected ${target.account_name ?? target.provider}`)
    onChange()
  }
  if (!connections.length) return null
  return (
    <section aria-labelledby="connections-heading">
      <h2 id="connections-heading">Connected accounts</h2>
      <ActionStatus action={disconnect} />
      <ul class="connection-list">
        {connections.map((c) => (
          <li key={c.id} class="card row">
            <div class="grow">
              <strong>{c.account_name ?? c.provider}</strong>
              <p class="meta">
                <span>{c.provider}</span>
                <span>{c.connectors === 1 ? '1 connector' : `${c.connectors} connectors`}</span>
                <span>since {formatDate(c.created_at)}</span>
              </p>
            </div>
            <button type="button" class="danger" onClick={() => setLeaving(c)} aria-label={`Disconnect ${c.account_name ?? c.provider}`}>
              Disconnect…
            </button>
          </li>
        ))}
      </ul>
      {leaving && (
        <Confirm
          title={`Disconnect ${leaving.account_name ?? leaving.provider}?`}
          confirm="Disconnect"
          danger
          busy={disconnect.busy}
          onConfirm={confirm}
          onCancel={() => setLeaving(null)}
        >
          <p>
            Access is revoked at the provider and the tokens are deleted here. Its connectors stop syncing until authorized again; the
            documents they brought stay.
          </p>
        </Confirm>
      )}
    </section>
  )
}
