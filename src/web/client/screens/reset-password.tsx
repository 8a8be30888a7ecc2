// The page a mailed reset link opens: /app/reset-password#token=…. The token travels in the #fragment, which the
// browser never sends, so it reaches no server or proxy log; it is read once and taken out of the address bar.
import { useEffect, useState } from 'preact/hooks'
import { api, done } from '../api/client'
import { loadSession, SIGN_IN } from '../lib/session'
import { useAction } from '../lib/use-api'
import { Link } from '../ui/link'
import { useNewPassword } from '../ui/new-password'
import { PageTitle } from '../ui/page'
import { ActionStatus } from '../ui/states'

const FORGOT = '/app/forgot-password'

const tokenInFragment = () => new URLSearchParams(location.hash.slice(1)).get('token')?.trim() || null

export function ResetPassword() {
  const [token] = useState(tokenInFragment)
  const next = useNewPassword('reset')
  const [changed, setChanged] = useState(false)
  const reset = useAction()
  // Out of the address bar and the history entry: a reload or a shared screen no longer shows it.
  useEffect(() => {
    if (location.hash) history.replaceState(history.state, '', location.pathname + location.search)
  }, [])

  const submit = async (event: Event) => {
    event.preventDefault()
    if (!token || next.differ) return
    const body = { token, new_password: next.password }
    const ok = await reset.run(async () => (await done(api.POST('/api/auth/password-reset/confirm', { body })), true))
    if (!ok) return
    next.clear()
    setChanged(true)
    // Every session of that account ended, this browser's too if it was signed in to it.
    void loadSession()
  }

  return (
    <main id="main" class="auth">
      <p class="brand-large">Memory</p>
      <section class="card stack">
        <PageTitle title="Choose a new password" />
        {changed ? (
          <>
            <p class="notice" role="status">
              Password changed: sign in with the new one. Every session of the account was signed out.
            </p>
            <Link href={SIGN_IN} class="button primary">
              Sign in
            </Link>
          </>
        ) : !token ? (
          <p class="state error" role="alert">
            This link has no reset token: open the link from the mail again, or ask for a new one.
          </p>
        ) : (
          <form onSubmit={submit} class="stack">
            {next.fields}
            <ActionStatus action={reset} />
            <button type="submit" class="primary" disabled={reset.busy || next.differ}>
              {reset.busy ? 'Please wait…' : 'Set the new password'}
            </button>
          </form>
        )}
        {!changed && (
          <p>
            <Link href={FORGOT}>Ask for a new link</Link> · <Link href={SIGN_IN}>Back to sign in</Link>
          </p>
        )}
      </section>
    </main>
  )
}
