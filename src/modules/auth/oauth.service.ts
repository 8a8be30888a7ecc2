// Sign-in with GitHub or Google: the authorization-code flow (PKCE for Google), then the provider's
// profile. A known identity signs in its account; a new one is linked to the account with the same verified
// email, or makes a new account. The state is bound to the browser by a short cookie (no login CSRF).
import { and, eq } from 'drizzle-orm'
import { identities, users } from '../../../db/schema'
import type { OAuthProvider } from '../../config'
import type { Deps } from '../../deps'
import { AppError, badRequest, notFound } from '../../http/errors'
import { authorizationUrl, exchangeCode } from '../../oauth/oauth.client'
import { landingUrl } from '../../oauth/landing'
import { consumeState, issueState, STATE_TTL_MS } from '../../oauth/oauth.state'
import { createAccount } from './auth.service'
import { createSession } from './sessions.service'

export const SIGN_IN_PROVIDERS = ['github', 'google'] as const
export type SignInProvider = (typeof SIGN_IN_PROVIDERS)[number]
export const STATE_COOKIE = 'oauth_state'

interface Profile {
  id: string
  email: string | null
  name: string | null
}

export function asSignInProvider(provider: string): SignInProvider {
  if (!(SIGN_IN_PROVIDERS as readonly string[]).includes(provider)) throw notFound(`no sign-in provider ${provider}: use github or google`)
  return provider as SignInProvider
}

const callbackUrl = (deps: Deps, provider: OAuthProvider) => `${deps.config.baseUrl}/api/auth/oauth/${provider}/callback`

export async function startSignIn(deps: Deps, provider: SignInProvider, redirectTo?: string): Promise<{ url: string; state: string }> {
  const target = landingUrl(deps, redirectTo)
  const { state, codeVerifier } = await issueState(deps, provider, null, { purpose: 'sign-in', redirect_to: target })
  return { url: authorizationUrl(deps, provider, callbackUrl(deps, provider), state, codeVerifier), state }
}

export function stateCookie(deps: Deps, value: string, maxAgeMs = STATE_TTL_MS): string {
  const secure = new URL(deps.config.baseUrl).protocol === 'https:'
  return [
    `${STATE_COOKIE}=${value}`,
    `Path=/api/auth/oauth`,
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
    ...(secure ? ['Secure'] : []),
  ].join('; ')
}

async function fetchJson<T>(provider: string, url: string, token: string): Promise<T> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'user-agent': 'knowledge-memory-service' },
    signal: AbortSignal.timeout(15_000),
  }).catch((error: Error) => {
    // The network's own words (DNS, TLS, sockets) are for the log, with the request id; the client learns who failed.
    throw new AppError(502, `${provider} could not be reached`, {}, 'provider_error', { cause: error })
  })
  if (!res.ok) throw new AppError(502, `${provider} answered ${res.status} for the profile`)
  return (await res.json()) as T
}

async function profileOf(deps: Deps, provider: SignInProvider, token: string): Promise<Profile> {
  const api = deps.config.oauth[provider]!.apiUrl
  if (provider === 'github') {
    const user = await fetchJson<{ id: number; login: string; name: string | null }>(provider, `${api}/user`, token)
    const emails = await fetchJson<{ email: string; primary: boolean; verified: boolean }[]>(provider, `${api}/user/emails`, token)
    const email = emails.find((e) => e.primary && e.verified) ?? emails.find((e) => e.verified)
    return { id: String(user.id), email: email?.email ?? null, name: user.name ?? user.login }
  }
  const info = await fetchJson<{ sub: string; email?: string; email_verified?: boolean; name?: string }>(
    provider,
    `${api}/oauth2/v3/userinfo`,
    token,
  )
  return { id: info.sub, email: info.email_verified ? (info.email ?? null) : null, name: info.name ?? null }
}

export async function finishSignIn(
  deps: Deps,
  provider: SignInProvider,
  query: { code?: string; state?: string; error?: string },
  cookieState: string | null,
) {
  if (query.error) throw badRequest(`${provider} sign-in was not completed: ${query.error}`)
  if (!query.state || cookieState !== query.state) throw badRequest('state does not match this browser: start the sign-in again')
  const { codeVerifier, payload } = await consumeState(deps, provider, query.state)
  if (!query.code) throw badRequest('code is missing from the callback')
  const tokens = await exchangeCode(deps, provider, callbackUrl(deps, provider), query.code, codeVerifier)
  const profile = await profileOf(deps, provider, tokens.accessToken())
  const userId = await accountFor(deps, provider, profile)
  return { session: await createSession(deps, userId), redirectTo: String(payload.redirect_to ?? `${deps.config.baseUrl}/`) }
}

/** The identity's account; else the account of the same verified email (linked now); else a new account. */
async function accountFor(deps: Deps, provider: SignInProvider, profile: Profile): Promise<string> {
  const [known] = await deps.db
    .select({ user_id: identities.user_id })
    .from(identities)
    .where(and(eq(identities.provider, provider), eq(identities.provider_user_id, profile.id)))
  if (known) return known.user_id
  if (!profile.email) throw badRequest(`${provider} did not confirm an email address for this account; verify one there and try again`)
  const email = profile.email.toLowerCase()
  const [existing] = await deps.db.select({ id: users.id }).from(users).where(eq(users.email, email))
  const userId = existing?.id ?? (await createAccount(deps, { email, password: null, name: profile.name })).id
  await deps.db
    .insert(identities)
    .values({ id: deps.ids.next(), user_id: userId, provider, provider_user_id: profile.id, created_at: deps.clock.now() })
    .onConflictDoNothing()
  return userId
}
