// The sign-in providers card of Settings: GitHub and Google linked to this account, and a button for each one this
// service offers that is not linked yet (a full navigation: the provider's consent page, then back to Settings).
// Hidden when the service offers neither and none is linked.
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { useApi } from '../lib/use-api'

type Profile = paths['/api/profile']['get']['responses']['200']['content']['application/json']
type Provider = Profile['identities'][number]

const NAMES: Record<Provider, string> = { github: 'GitHub', google: 'Google' }

export function LinkedProviders({ profile }: { profile: Profile }) {
  const providers = useApi((signal) => unwrap(api.GET('/api/auth/providers', { signal })), [])
  const offered = (providers.data?.providers ?? []).filter((p) => !profile.identities.includes(p))
  // A service without GitHub or Google sign-in, for an account that never linked one: nothing to show.
  if (offered.length === 0 && profile.identities.length === 0) return null
  return (
    <section class="card stack" aria-labelledby="providers-heading">
      <h2 id="providers-heading">Sign-in providers</h2>
      {profile.identities.length > 0 ? (
        <ul class="linked">
          {profile.identities.map((provider) => (
            <li key={provider}>
              <strong>{NAMES[provider]}</strong> is linked: you can sign in with it.
            </li>
          ))}
        </ul>
      ) : (
        <p class="hint">No GitHub or Google sign-in is linked to this account.</p>
      )}
      {offered.length > 0 && (
        <div class="row">
          {offered.map((provider) => (
            // The link route redirects to the provider, which only a page load can follow.
            <a key={provider} class="button" href={`/api/auth/oauth/${provider}/link`}>
              {`Link ${NAMES[provider]}`}
            </a>
          ))}
        </div>
      )}
    </section>
  )
}
