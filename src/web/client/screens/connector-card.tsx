// One connector: its state and last run, sync now, what to sync (Confluence spaces from the provider; Drive
// folder or Notion page ids), its run history with counts and errors, authorize again, and removal.
import { useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { announce } from '../lib/announce'
import { formatDate } from '../lib/format'
import { useAction, useApi } from '../lib/use-api'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import { Confirm } from '../ui/confirm'
import { ActionStatus, Loaded } from '../ui/states'

type Connector = paths['/api/connectors']['get']['responses']['200']['content']['application/json']['data'][number]
type Run = NonNullable<Connector['last_run']>

export type ConnectorType = 'confluence' | 'google_drive' | 'notion'
export const TYPES: Record<ConnectorType, { name: string; key: 'spaces' | 'folders' | 'pages'; one: string; what: string }> = {
  confluence: { name: 'Confluence', key: 'spaces', one: 'space', what: 'spaces' },
  google_drive: { name: 'Google Drive', key: 'folders', one: 'folder id', what: 'folder ids' },
  notion: { name: 'Notion', key: 'pages', one: 'page or database id', what: 'page or database ids' },
}
const count = (n: number, t: { one: string; what: string }) => `${n} ${n === 1 ? t.one : t.what}`
const typeOf = (c: Connector) => TYPES[c.type as ConnectorType] ?? TYPES.confluence

export function ConnectorCard({ connector: c, onChange }: { connector: Connector; onChange(): void }) {
  const { list } = useWorkspaces()
  const [panel, setPanel] = useState<'none' | 'select' | 'runs'>('none')
  const [removing, setRemoving] = useState(false)
  const [withDocuments, setWithDocuments] = useState(false)
  const action = useAction()
  const path = { params: { path: { id: c.id } } }
  const t = typeOf(c)
  const selection = c.config[t.key] ?? []

  const sync = async () => {
    const run = await action.run(() => unwrap(api.POST('/api/connectors/{id}/sync', path)))
    if (run) announce(`Sync ${run.status}`), onChange()
  }
  const authorize = async () => {
    const started = await action.run(() =>
      unwrap(api.POST('/api/connectors/{id}/authorize', { ...path, body: { redirect_to: `${location.origin}/app/connectors` } })),
    )
    if (started) location.assign(started.authorization_url)
  }
  const remove = async () => {
    const ok = await action.run(
      async () => (
        await done(api.DELETE('/api/connectors/{id}', { ...path, params: { ...path.params, query: { delete_documents: withDocuments } } })),
        true
      ),
    )
    setRemoving(false)
    if (ok) announce(`Removed ${c.label}`), onChange()
  }

  return (
    <li class="card connector">
      <div class="row snippet-head">
        <h3>{c.label}</h3>
        <span class={`status ${c.status === 'active' ? 'ok' : 'pending'}`}>
          {c.status === 'active' ? 'connected' : 'waiting for authorization'}
        </span>
      </div>
      <p class="meta">
        <span class="kind">{t.name}</span>
        <span>into {c.workspace_id ? workspaceName(list, c.workspace_id) : 'the default workspace'}</span>
        <span>{selection.length ? `${count(selection.length, t)} chosen` : 'everything the grant can see'}</span>
        <span>{c.last_sync_at ? `last synced ${formatDate(c.last_sync_at)}` : 'never synced'}</span>
      </p>
      {c.last_run && <RunLine run={c.last_run} />}
      <div class="row">
        {c.status === 'active' ? (
          <button type="button" class="primary" onClick={sync} disabled={action.busy}>
            Sync now
          </button>
        ) : (
          <button type="button" class="primary" onClick={authorize} disabled={action.busy}>
            Authorize {t.name}
          </button>
        )}
        <button type="button" aria-expanded={panel === 'select'} onClick={() => setPanel(panel === 'select' ? 'none' : 'select')}>
          Choose {t.key}
        </button>
        <button type="button" aria-expanded={panel === 'runs'} onClick={() => setPanel(panel === 'runs' ? 'none' : 'runs')}>
          Run history
        </button>
        <button type="button" class="danger" onClick={() => setRemoving(true)} disabled={action.busy}>
          Remove…
        </button>
      </div>
      <ActionStatus action={action} />
      {panel === 'select' && <Selection connector={c} onSaved={() => (setPanel('none'), onChange())} />}
      {panel === 'runs' && <Runs id={c.id} latest={c.last_run?.id ?? null} status={c.last_run?.status ?? null} />}
      {removing && (
        <Confirm
          title={`Remove ${c.label}?`}
          confirm="Remove connector"
          danger
          busy={action.busy}
          onConfirm={remove}
          onCancel={() => setRemoving(false)}
        >
          <p>The connector and its run history are removed; its connection stays for other connectors.</p>
          <label class="choice">
            <input type="checkbox" checked={withDocuments} onChange={(e) => setWithDocuments(e.currentTarget.checked)} />
            Also delete the documents it synced (permanent)
          </label>
        </Confirm>
      )}
    </li>
  )
}

function RunLine({ run }: { run: Run }) {
  return (
    <p class={`run ${run.status}`}>
      Last run: <strong>{run.status}</strong> · {run.added} added, {run.updated} updated, {run.removed} removed, {run.skipped} skipped
      {run.error && <span class="error-text"> · {run.error}</span>}
    </p>
  )
}

function Runs({ id, latest, status }: { id: string; latest: string | null; status: string | null }) {
  const detail = useApi((signal) => unwrap(api.GET('/api/connectors/{id}', { params: { path: { id } }, signal })), [id, latest, status])
  return (
    <Loaded query={detail}>
      {({ runs }) =>
        runs.length === 0 ? (
          <p class="hint">No runs yet.</p>
        ) : (
          <div class="table-scroll">
            <table class="runs">
              <caption class="visually-hidden">Sync runs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Started</th>
                  <th scope="col">Status</th>
                  <th scope="col">Added</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Removed</th>
                  <th scope="col">Skipped</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {runs.map((r) => (
                  <tr key={r.id}>
                    <td>{formatDate(r.started_at ?? r.created_at)}</td>
                    <td>{r.status}</td>
                    <td>{r.added}</td>
                    <td>{r.updated}</td>
                    <td>{r.removed}</td>
                    <td>{r.skipped}</td>
                    <td class="error-text">{r.error ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }
    </Loaded>
  )
}

/** Confluence lists its spaces to tick; Drive and Notion take ids (from the item's address), one a line. */
function Selection({ connector: c, onSaved }: { connector: Connector; onSaved(): void }) {
  const t = typeOf(c)
  const [chosen, setChosen] = useState<string[]>(c.config[t.key] ?? [])
  const [text, setText] = useState((c.config[t.key] ?? []).join('\n'))
  const save = useAction()
  const wiki = c.type === 'confluence'
  const spaces = useApi(
    (signal) =>
      wiki && c.status === 'active'
        ? unwrap(api.GET('/api/connectors/{id}/{wiki}/spaces', { params: { path: { id: c.id, wiki: 'confluence' } }, signal }))
        : Promise.resolve(null),
    [c.id],
  )
  const submit = async (event: Event) => {
    event.preventDefault()
    const ids = wiki ? chosen : text.split(/[\s,]+/).filter(Boolean)
    const saved = await save.run(() =>
      unwrap(api.PATCH('/api/connectors/{id}', { params: { path: { id: c.id } }, body: { config: { [t.key]: ids } } })),
    )
    if (saved) announce(`Saved: ${ids.length ? count(ids.length, t) : 'everything the grant can see'} will sync next time`), onSaved()
  }
  return (
    <form class="stack selection" onSubmit={submit} aria-label={`What ${c.label} syncs`}>
      {wiki ? (
        <Loaded query={spaces}>
          {(list) =>
            list === null ? (
              <p class="hint">Authorize the connector first: its spaces are listed from Confluence.</p>
            ) : (
              <fieldset>
                <legend>Spaces to sync (none ticked = every space)</legend>
                {list.data.map((s) => (
                  <label key={s.key} class="choice">
                    <input
                      type="checkbox"
                      checked={chosen.includes(s.key)}
                      onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, s.key] : chosen.filter((k) => k !== s.key))}
                    />
                    {s.name} <span class="hint">({s.key})</span>
                  </label>
                ))}
              </fieldset>
            )
          }
        </Loaded>
      ) : (
        <label>
          <span>
            {t.name} {t.what} to sync, one a line{' '}
            <span class="hint">(the id is the last part of its address; empty = everything shared with the service)</span>
          </span>
          <textarea rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </label>
      )}
      <button type="submit" class="primary" disabled={save.busy}>
        Save selection
      </button>
      <ActionStatus action={save} />
    </form>
  )
}
