// Sign in and sign up (email and password), with GitHub and Google buttons when the service has them
// configured (GET /api/auth/providers), and the way to a forgotten password. After signing in, back to the page
// that asked for it.
import { useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { navigate, usePlace, withQuery } from '../lib/router'
import { afterSignIn, setUser } from '../lib/session'
import { useAction, useApi } from '../lib/use-api'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus } from '../ui/states'

const PROVIDER_NAMES = { github: 'GitHub', google: 'Google' } as const

export function SignIn({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const { query } = usePlace()
  const action = useAction()
  const providers = useApi((signal) => unwrap(api.GET('/api/auth/providers', { signal })), [])
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [name, setName] = useState('')
  const next = afterSignIn(query)
  const signingUp = mode === 'sign-up'

  const submit = async (event: Event) => {
    event.preventDefault()
    const answer = await action.run(() =>
      signingUp
        ? unwrap(api.POST('/api/auth/sign-up', { body: { email, password, ...(name.trim() ? { name: name.trim() } : {}) } }))
        : unwrap(api.POST('/api/auth/sign-in', { body: { email, password } })),
    )
    if (!answer) return
    setUser(answer.user)
    navigate(next, { replace: true })
  }

  const other = signingUp ? '/app/sign-in' : '/app/sign-up'
  return (
    <main id="main" class="auth">
      <p class="brand-large">Memory</p>
      <section class="card">
        <PageTitle title={signingUp ? 'Create your account' : 'Sign in'} />
        <form onSubmit={submit} class="stack">
          {signingUp && (
            <label>
              Name <span class="hint">(optional)</span>
              <input name="name" autoComplete="name" value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={100} />
            </label>
          )}
          <label>
            Email
            <input name="email" type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </label>
          <label>
            Password {signingUp && <span class="hint">(at least 8 characters)</span>}
            <input
              name="password"
              type="password"
              autoComplete={signingUp ? 'new-password' : 'current-password'}
              required
              minLength={signingUp ? 8 : undefined}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
          {!signingUp && (
            <p class="forgot">
              <Link href="/app/forgot-password">Forgot password?</Link>
            </p>
          )}
          <ActionStatus action={action} />
          <button type="submit" class="primary" disabled={action.busy}>
            {action.busy ? 'Please wait…' : signingUp ? 'Create account' : 'Sign in'}
          </button>
        </form>
        {providers.data && providers.data.providers.length > 0 && (
          <div class="providers stack">
            <p class="divider">or</p>
            {providers.data.providers.map((provider) => (
              // A full navigation: the provider's consent page, then back here through the service.
              <a key={provider} class="button" href={withQuery(`/api/auth/oauth/${provider}`, { redirect_to: location.origin + next })}>
                Continue with {PROVIDER_NAMES[provider]}
              </a>
            ))}
          </div>
        )}
        <p>
          {signingUp ? 'Already have an account? ' : 'New here? '}
          <Link href={withQuery(other, { next: query.get('next') })}>{signingUp ? 'Sign in' : 'Create an account'}</Link>
        </p>
      </section>
    </main>
  )
}
