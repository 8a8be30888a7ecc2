// The signed-in sessions card of Settings: each browser signed in to the account (this one marked), signing one
// out, and signing out everywhere, this session included (API keys are not sessions: they keep working).
import { useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { announce } from '../lib/announce'
import { formatDate } from '../lib/format'
import { navigate } from '../lib/router'
import { setUser, SIGN_IN } from '../lib/session'
import { useAction, useApi } from '../lib/use-api'
import { describeUserAgent } from '../lib/user-agent'
import { forgetWorkspaces } from '../lib/workspaces'
import { Confirm } from '../ui/confirm'
import { ActionStatus, Loaded } from '../ui/states'

type Session = paths['/api/sessions']['get']['responses']['200']['content']['application/json']['data'][number]

/** `refresh`: changes when another card ended sessions (a password change), so the list is read again. */
export function Sessions({ refresh }: { refresh: number }) {
  const sessions = useApi((signal) => unwrap(api.GET('/api/sessions', { signal })), [refresh])
  const [everywhere, setEverywhere] = useState(false)
  const end = useAction()
  const endAll = useAction()

  const signOut = async (session: Session) => {
    const ok = await end.run(async () => (await done(api.DELETE('/api/sessions/{id}', { params: { path: { id: session.id } } })), true))
    if (!ok) return
    announce(`Signed out ${describeUserAgent(session.user_agent)}`)
    sessions.reload()
  }
  const signOutEverywhere = async () => {
    const ok = await endAll.run(async () => (await done(api.DELETE('/api/sessions')), true))
    setEverywhere(false)
    if (!ok) return
    forgetWorkspaces()
    setUser(null)
    navigate(SIGN_IN, { replace: true })
    announce('Signed out everywhere')
  }

  return (
    <section class="card stack" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Signed-in sessions</h2>
      <ActionStatus action={end} />
      <Loaded query={sessions}>
        {({ data }) => (
          <ul class="session-list">
            {data.map((s) => {
              const name = describeUserAgent(s.user_agent)
              return (
                <li key={s.id}>
                  <div>
                    <strong>{name}</strong> {s.current && <span class="badge">this session</span>}
                    <p class="meta">
                      <span>Signed in on {formatDate(s.created_at)}</span>
                      {s.user_agent && <span class="user-agent">{s.user_agent}</span>}
                    </p>
                  </div>
                  {!s.current && (
                    <button
                      type="button"
                      onClick={() => signOut(s)}
                      disabled={end.busy}
                      aria-label={`Sign out ${name}, signed in on ${formatDate(s.created_at)}`}
                    >
                      Sign out
                    </button>
                  )}
                </li>
              )
            })}
          </ul>
        )}
      </Loaded>
      <button type="button" class="danger" onClick={() => setEverywhere(true)}>
        Sign out everywhere…
      </button>
      <ActionStatus action={endAll} />
      {everywhere && (
        <Confirm
          title="Sign out everywhere?"
          confirm="Sign out everywhere"
          danger
          busy={endAll.busy}
          onConfirm={signOutEverywhere}
          onCancel={() => setEverywhere(false)}
        >
          <p>
            Every browser signed in to this account is signed out, <strong>this one included</strong>: you sign in again here. API keys keep
            working; revoke them under API keys.
          </p>
        </Confirm>
      )}
    </section>
  )
}
