// The password card of Settings: the current password, then the new one twice. The API ends every other session
// when it changes, so whoever knew the old one is signed out; its 400 says which rule a new password breaks.
import { useState } from 'preact/hooks'
import { api, done } from '../api/client'
import { announce } from '../lib/announce'
import { useAction } from '../lib/use-api'
import { useNewPassword } from '../ui/new-password'
import { ActionStatus } from '../ui/states'

export function PasswordChange({ onChanged }: { onChanged(): void }) {
  const [current, setCurrent] = useState('')
  const next = useNewPassword('password-change')
  const [changed, setChanged] = useState(false)
  const change = useAction()

  const submit = async (event: Event) => {
    event.preventDefault()
    if (next.differ) return
    setChanged(false)
    const body = { new_password: next.password, ...(current ? { current_password: current } : {}) }
    const ok = await change.run(async () => (await done(api.POST('/api/auth/password', { body })), true))
    if (!ok) return
    setCurrent('')
    next.clear()
    setChanged(true)
    announce('Password changed: other sessions were signed out')
    onChanged()
  }

  return (
    <form class="card stack" onSubmit={submit} aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <label>
        <span>
          Current password <span class="hint">(none yet if you signed up with GitHub or Google: leave it empty)</span>
        </span>
        <input
          name="current-password"
          type="password"
          autoComplete="current-password"
          maxLength={256}
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
      </label>
      {next.fields}
      <button type="submit" class="primary" disabled={change.busy || next.differ}>
        Change password
      </button>
      <ActionStatus action={change} />
      {changed && <p class="notice">Password changed: other sessions were signed out. This one stays signed in.</p>}
    </form>
  )
}
