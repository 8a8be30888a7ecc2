// The sign-in email card of Settings: the address, whether it is verified, a change waiting for its mailed link, a
// button that mails a verification link, and changing the address (only with the current password).
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { announce } from '../lib/announce'
import { setUser, useUser } from '../lib/session'
import { useAction } from '../lib/use-api'
import { ActionStatus } from '../ui/states'

type Profile = paths['/api/profile']['get']['responses']['200']['content']['application/json']

export function SignInEmail({ profile, onSaved }: { profile: Profile; onSaved(): void }) {
  const user = useUser()
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [said, setSaid] = useState('')
  const change = useAction()
  const verify = useAction()
  const same = email.trim().toLowerCase() === profile.email

  const submit = async (event: Event) => {
    event.preventDefault()
    if (same) return
    setSaid('')
    const body = { email: email.trim(), ...(password ? { current_password: password } : {}) }
    const saved = await change.run(() => unwrap(api.PATCH('/api/profile', { body })))
    if (!saved) return
    setEmail('')
    setPassword('')
    if (user) setUser({ ...user, email: saved.email })
    const text = saved.pending_email
      ? `A link is on its way to ${saved.pending_email}: the sign-in email changes when you open it.`
      : `Your sign-in email is now ${saved.email}.`
    setSaid(text)
    announce(text)
    onSaved()
  }
  const sendLink = async () => {
    setSaid('')
    const sent = await verify.run(() => unwrap(api.POST('/api/auth/verify-email')))
    if (sent) setSaid(sent.detail), announce(sent.detail)
  }
  // 404: this server sends no mail; its message names the administrator's command, which is the way forward.
  const noMail = verify.error?.status === 404 ? verify.error.message : ''

  return (
    <section class="card stack" aria-labelledby="email-heading">
      <h2 id="email-heading">Sign-in email</h2>
      <p class="row">
        <strong class="email-address">{profile.email}</strong>
        {profile.email_verified ? <span class="badge ok">verified</span> : <span class="badge warn">not verified</span>}
      </p>
      {profile.pending_email && (
        <p class="notice">
          Changing to <strong>{profile.pending_email}</strong>: waiting for the link mailed to {profile.pending_email}.
        </p>
      )}
      {!profile.email_verified && (
        <div class="stack">
          <p class="hint">A verified address can be linked to a GitHub or Google sign-in, and receives password reset links.</p>
          <button type="button" onClick={sendLink} disabled={verify.busy}>
            Send verification link
          </button>
          {noMail ? <p class="notice">{noMail}</p> : <ActionStatus action={verify} />}
        </div>
      )}
      {said && <p class="notice">{said}</p>}
      <form class="stack" onSubmit={submit} aria-labelledby="email-change-heading">
        <h3 id="email-change-heading">Change the sign-in email</h3>
        <label>
          New email
          <input
            type="email"
            name="email"
            required
            maxLength={254}
            autoComplete="email"
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          <span>
            Current password <span class="hint">(none if you signed up with GitHub or Google: sign in again, then leave it empty)</span>
          </span>
          <input
            name="current-password"
            type="password"
            autoComplete="current-password"
            maxLength={256}
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        {same && email && <p class="error-text">That is your sign-in email already.</p>}
        <button type="submit" class="primary" disabled={change.busy || same}>
          Change email
        </button>
        <ActionStatus action={change} />
      </form>
    </section>
  )
}
