// Deleting the account: every document, memory, key, connector and conversation goes, and the subscription
// is cancelled. Typing DELETE is the confirmation (the API asks for the same word).
import { useState } from 'preact/hooks'
import { api, done } from '../api/client'
import { navigate } from '../lib/router'
import { setUser, SIGN_UP } from '../lib/session'
import { useAction } from '../lib/use-api'
import { forgetWorkspaces } from '../lib/workspaces'
import { ActionStatus } from '../ui/states'

export function AccountDeletion() {
  const [typed, setTyped] = useState('')
  const remove = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    if (typed !== 'DELETE') return
    const ok = await remove.run(async () => (await done(api.DELETE('/api/account', { body: { confirm: 'DELETE' } })), true))
    if (!ok) return
    forgetWorkspaces()
    setUser(null)
    navigate(SIGN_UP, { replace: true })
  }
  return (
    <form class="card stack danger-zone" onSubmit={submit} aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete account</h2>
      <p>
        Deletes your account and everything in it: documents, memories, workspaces, API keys, connectors and conversations; a paid
        subscription is cancelled. <strong>This is permanent and cannot be undone.</strong>
      </p>
      <label>
        <span>
          Type <code>DELETE</code> to confirm
        </span>
        <input value={typed} autoComplete="off" spellcheck={false} onInput={(e) => setTyped(e.currentTarget.value)} />
      </label>
      <button type="submit" class="danger" disabled={typed !== 'DELETE' || remove.busy}>
        Delete my account
      </button>
      <ActionStatus action={remove} />
    </form>
  )
}
