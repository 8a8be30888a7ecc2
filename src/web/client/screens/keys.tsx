// API keys and integrations: the keys (prefix, label, scopes, the key that minted it, tier, created, last used), a
// new one made with the scopes chosen and shown in full once with a copy button, revocation (confirmed, with the keys
// it minted), and ready-to-copy MCP and OpenAI client configuration.
import { useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { announce } from '../lib/announce'
import { formatDate, plural } from '../lib/format'
import { DEFAULT_KEY_SCOPES, KEY_SCOPES, type KeyScope } from '../lib/key-scopes'
import { useAction, useApi } from '../lib/use-api'
import { Confirm } from '../ui/confirm'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus, Empty, Loaded } from '../ui/states'
import { Integrations } from './integrations'
import { ScopeChoice } from './key-scope-choice'
import { OneTimeKey } from './one-time-key'

type Key = paths['/api/keys']['get']['responses']['200']['content']['application/json']['data'][number]

/** How many keys `key` minted, at any depth: revoking it revokes them all (the API cascades). */
function mintedBy(keys: Key[], key: Key): number {
  const children = keys.filter((k) => k.parent_id === key.id)
  return children.reduce((total, child) => total + mintedBy(keys, child), children.length)
}

export function Keys() {
  const keys = useApi((signal) => unwrap(api.GET('/api/keys', { signal })), [])
  const [label, setLabel] = useState('')
  const [scopes, setScopes] = useState<readonly KeyScope[]>(DEFAULT_KEY_SCOPES)
  const [created, setCreated] = useState<{ key: string; label: string | null; scopes: KeyScope[] } | null>(null)
  const [revoking, setRevoking] = useState<Key | null>(null)
  const create = useAction()
  const revoke = useAction()

  const submit = async (event: Event) => {
    event.preventDefault()
    const chosen = KEY_SCOPES.filter((scope) => scopes.includes(scope))
    const made = await create.run(() => unwrap(api.POST('/api/keys', { body: { label: label.trim() || null, scopes: chosen } })))
    if (!made) return
    setCreated({ key: made.key, label: made.label, scopes: made.scopes })
    setLabel('')
    setScopes(DEFAULT_KEY_SCOPES)
    keys.reload()
  }
  const confirmRevoke = async () => {
    const target = revoking!
    const minted = mintedBy(keys.data?.data ?? [], target)
    const ok = await revoke.run(async () => (await done(api.DELETE('/api/keys/{id}', { params: { path: { id: target.id } } })), true))
    setRevoking(null)
    if (!ok) return
    announce(
      `Revoked ${target.label || target.prefix}${minted ? ` and the ${plural(minted, 'key')} it minted` : ''}: clients using them now get 401`,
    )
    keys.reload()
  }

  return (
    <section class="keys">
      <PageTitle title="API keys" />
      <p class="hint">
        One key per tool, each labelled: revoke one without touching the others. To rotate, create a new key, switch the client, then revoke
        the old one.
      </p>
      <form class="card stack" onSubmit={submit} aria-labelledby="new-key">
        <h2 id="new-key">New key</h2>
        <div class="row">
          <label class="grow">
            <span>
              Label <span class="hint">(what will use it, e.g. “Claude Desktop”)</span>
            </span>
            <input value={label} maxLength={100} onInput={(e) => setLabel(e.currentTarget.value)} />
          </label>
        </div>
        <ScopeChoice value={scopes} onChange={setScopes} />
        <button type="submit" class="primary" disabled={create.busy || scopes.length === 0}>
          Create key
        </button>
        <ActionStatus action={create} />
      </form>
      {created && (
        <section class="card new-key" aria-labelledby="key-once">
          <h2 id="key-once">Your new key{created.label ? ` “${created.label}”` : ''}</h2>
          <OneTimeKey apiKey={created.key}>
            <p>Scopes: {created.scopes.join(', ')}</p>
          </OneTimeKey>
          <button type="button" class="quiet" onClick={() => setCreated(null)}>
            I have copied it
          </button>
        </section>
      )}
      <ActionStatus action={revoke} />
      <Loaded query={keys}>
        {({ data }) =>
          data.length === 0 ? (
            <Empty>
              <p>No keys yet. Create one for each agent or tool that reads or writes your memory.</p>
            </Empty>
          ) : (
            <div class="table-scroll">
              <table class="keys-table">
                <thead>
                  <tr>
                    <th scope="col">Label</th>
                    <th scope="col">Prefix</th>
                    <th scope="col">Scopes</th>
                    <th scope="col">Tier</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {data.map((k) => (
                    <tr key={k.id}>
                      <td>{k.label || <span class="hint">no label</span>}</td>
                      <td>
                        <code>{k.prefix}…</code>
                      </td>
                      <td>
                        {k.scopes.join(', ')}
                        {k.parent_id && <MintedBy parent={data.find((p) => p.id === k.parent_id)} />}
                      </td>
                      <td>{k.tier}</td>
                      <td>{formatDate(k.created_at)}</td>
                      <td>{k.last_used_at ? formatDate(k.last_used_at) : 'never'}</td>
                      <td class="key-actions">
                        <Link href={`/app/activity?actor=${k.id}`} aria-label={`Activity of ${k.label || k.prefix}`}>
                          Activity
                        </Link>{' '}
                        <button type="button" class="danger" onClick={() => setRevoking(k)} aria-label={`Revoke ${k.label || k.prefix}`}>
                          Revoke…
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      {revoking && (
        <Confirm
          title={`Revoke “${revoking.label || revoking.prefix}”?`}
          confirm="Revoke key"
          danger
          busy={revoke.busy}
          onConfirm={confirmRevoke}
          onCancel={() => setRevoking(null)}
        >
          <p>
            Every client using the key <code>{revoking.prefix}…</code> gets 401 from its very next request.{' '}
            <strong>This cannot be undone.</strong>
          </p>
          {revoking.kind === 'api_key' && <RevokesMinted count={mintedBy(keys.data?.data ?? [], revoking)} />}
        </Confirm>
      )}
      <Integrations apiKey={created?.key} />
    </section>
  )
}

function MintedBy({ parent }: { parent: Key | undefined }) {
  return <span class="hint minted">minted by {parent ? <code>{parent.prefix}…</code> : 'another key'}</span>
}

/** Said whether or not it minted any: a key with the keys scope may mint more before the next reload. */
function RevokesMinted({ count }: { count: number }) {
  return (
    <p>
      Revoking it also revokes the keys it minted
      {count > 0 ? <strong>{`: ${plural(count, 'key')} here`}</strong> : ' (none so far)'}.
    </p>
  )
}
