// Workspaces: create, rename, delete (confirmed, with what it takes along); the last one cannot be deleted.
import { useEffect, useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { formatDate, plural } from '../lib/format'
import { useAction } from '../lib/use-api'
import { loadWorkspaces, useWorkspaces, type Workspace } from '../lib/workspaces'
import { Confirm } from '../ui/confirm'
import { PageTitle } from '../ui/page'
import { ActionStatus, Loading } from '../ui/states'

export function Workspaces() {
  const { list } = useWorkspaces()
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [editing, setEditing] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<Workspace | null>(null)
  const create = useAction()
  const remove = useAction()
  // The counts change as documents come and go: fresh ones on every visit.
  useEffect(() => void loadWorkspaces().catch(() => {}), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const made = await create.run(() =>
      unwrap(api.POST('/api/workspaces', { body: { name: name.trim(), description: description.trim() || undefined } })),
    )
    if (!made) return
    setName('')
    setDescription('')
    await loadWorkspaces().catch(() => {})
    announce(`Created workspace ${made.name}`)
  }
  const confirmDelete = async () => {
    const target = deleting!
    const ok = await remove.run(async () => (await done(api.DELETE('/api/workspaces/{id}', { params: { path: { id: target.id } } })), true))
    setDeleting(null)
    if (!ok) return
    await loadWorkspaces().catch(() => {})
    announce(`Deleted workspace ${target.name}`)
  }

  if (!list) return <Loading />
  const last = list.length === 1
  return (
    <section>
      <PageTitle title="Workspaces" />
      <form class="card stack create-workspace" onSubmit={submit} aria-labelledby="new-workspace">
        <h2 id="new-workspace">New workspace</h2>
        <div class="row">
          <label class="grow">
            Name
            <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <label class="grow">
            <span>
              Description <span class="hint">(optional)</span>
            </span>
            <input value={description} maxLength={1000} onInput={(e) => setDescription(e.currentTarget.value)} />
          </label>
        </div>
        <button type="submit" class="primary" disabled={create.busy || !name.trim()}>
          Create workspace
        </button>
        <ActionStatus action={create} />
      </form>
      <ActionStatus action={remove} />
      {last && <p class="hint">Your only workspace cannot be deleted: every document lives in one. Create another first.</p>}
      <ul class="workspace-list">
        {list.map((w) =>
          editing === w.id ? (
            <RenameForm key={w.id} workspace={w} onDone={() => setEditing(null)} />
          ) : (
            <li key={w.id} class="card">
              <div>
                <h2>{w.name}</h2>
                {w.description && <p class="excerpt">{w.description}</p>}
                <p class="meta">
                  <span>{plural(w.document_count, 'active document')}</span>
                  <span>created {formatDate(w.created_at)}</span>
                </p>
              </div>
              <div class="row">
                <button type="button" onClick={() => setEditing(w.id)} aria-label={`Rename ${w.name}`}>
                  Rename
                </button>
                <button
                  type="button"
                  class="danger"
                  onClick={() => setDeleting(w)}
                  disabled={last || remove.busy}
                  aria-label={`Delete ${w.name}`}
                  title={last ? 'The last workspace cannot be deleted' : undefined}
                >
                  Delete…
                </button>
              </div>
            </li>
          ),
        )}
      </ul>
      {deleting && (
        <Confirm
          title={`Delete “${deleting.name}”?`}
          confirm="Delete workspace"
          danger
          busy={remove.busy}
          onConfirm={confirmDelete}
          onCancel={() => setDeleting(null)}
        >
          <p>
            Its {plural(deleting.document_count, 'active document')} (and its drafts and archived ones), their links and its connectors'
            documents are deleted with it. <strong>This cannot be undone.</strong>
          </p>
        </Confirm>
      )}
    </section>
  )
}

function RenameForm({ workspace, onDone }: { workspace: Workspace; onDone(): void }) {
  const [name, setName] = useState(workspace.name)
  const [description, setDescription] = useState(workspace.description ?? '')
  const save = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    const saved = await save.run(() =>
      unwrap(
        api.PATCH('/api/workspaces/{id}', {
          params: { path: { id: workspace.id } },
          body: { name: name.trim(), description: description.trim() || null },
        }),
      ),
    )
    if (!saved) return
    await loadWorkspaces().catch(() => {})
    announce(`Renamed to ${saved.name}`)
    onDone()
  }
  return (
    <li class="card">
      <form class="stack grow" onSubmit={submit} aria-label={`Rename ${workspace.name}`}>
        <div class="row">
          <label class="grow">
            Name
            <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} autoFocus />
          </label>
          <label class="grow">
            Description
            <input value={description} maxLength={1000} onInput={(e) => setDescription(e.currentTarget.value)} />
          </label>
        </div>
        <div class="row">
          <button type="submit" class="primary" disabled={save.busy || !name.trim()}>
            Save
          </button>
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        </div>
        <ActionStatus action={save} />
      </form>
    </li>
  )
}
