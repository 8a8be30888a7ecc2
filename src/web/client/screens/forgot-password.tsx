// "Forgot password?": the email to mail a reset link to. The answer is the same whether or not an account has the
// address; a service that sends no mail answers 503 naming its administrator's command, shown as it is.
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { SIGN_IN } from '../lib/session'
import { useAction } from '../lib/use-api'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus } from '../ui/states'

export function ForgotPassword() {
  const [email, setEmail] = useState('')
  const [sent, setSent] = useState('')
  const request = useAction()
  const submit = async (event: Event) => {
    event.preventDefault()
    setSent('')
    const answer = await request.run(() => unwrap(api.POST('/api/auth/password-reset', { body: { email: email.trim() } })))
    if (answer) setSent(answer.detail)
  }
  return (
    <main id="main" class="auth">
      <p class="brand-large">Memory</p>
      <section class="card">
        <PageTitle title="Reset your password" />
        <form onSubmit={submit} class="stack">
          <p class="hint">We mail a link to set a new password to the address you signed up with. It works once, for one hour.</p>
          <label>
            Email
            <input
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={254}
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </label>
          <ActionStatus action={request} />
          {sent && (
            <p class="notice" role="status">
              {sent}
            </p>
          )}
          <button type="submit" class="primary" disabled={request.busy}>
            {request.busy ? 'Please wait…' : 'Mail me a reset link'}
          </button>
        </form>
        <p>
          <Link href={SIGN_IN}>Back to sign in</Link>
        </p>
      </section>
    </main>
  )
}
