// Sign-in with GitHub or Google: the authorization-code flow (PKCE for Google), then the provider's
// profile. A known identity signs in its account. A new one makes a new account — or, when an account already has
// the address, is linked to it only if that account proved the address too (a mailed link, an earlier provider
// sign-in): otherwise whoever signed up with someone else's address would receive their sign-in. A person signed in
// links a provider from Settings (purpose "link"). The state is bound to the browser by a short cookie (no login CSRF).
import { and, eq, isNull } from 'drizzle-orm'
import { identities, users } from '../../../db/schema'
import type { OAuthProvider } from '../../config'
import type { Deps } from '../../deps'
import { AppError, badRequest, conflict, notFound } from '../../http/errors'
import { authorizationUrl, exchangeCode } from '../../oauth-client/oauth.client'
import { landingUrl } from '../../oauth-client/landing'
import { consumeState, issueState, STATE_TTL_MS } from '../../oauth-client/oauth.state'
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

/** `linkTo`: the signed-in account the identity is to be linked to (Settings); absent for a sign-in. */
export async function startSignIn(
  deps: Deps,
  provider: SignInProvider,
  redirectTo?: string,
  linkTo?: string,
): Promise<{ url: string; state: string }> {
  const target = landingUrl(deps, redirectTo)
  const { state, codeVerifier } = await issueState(deps, provider, linkTo ?? null, {
    purpose: linkTo ? 'link' : 'sign-in',
    redirect_to: target,
  })
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
  userAgent?: string | null,
) {
  if (query.error) throw badRequest(`${provider} sign-in was not completed: ${query.error}`)
  if (!query.state || cookieState !== query.state) throw badRequest('state does not match this browser: start the sign-in again')
  const { codeVerifier, payload, userId: linkTo } = await consumeState(deps, provider, query.state)
  if (!query.code) throw badRequest('code is missing from the callback')
  const tokens = await exchangeCode(deps, provider, callbackUrl(deps, provider), query.code, codeVerifier)
  const profile = await profileOf(deps, provider, tokens.accessToken())
  const redirectTo = String(payload.redirect_to ?? `${deps.config.baseUrl}/`)
  // Linking from Settings keeps the session the person is signed in with: no second one appears in their list.
  if (payload.purpose === 'link' && linkTo) {
    await linkIdentity(deps, provider, profile, linkTo)
    return { session: null, redirectTo }
  }
  const userId = await accountFor(deps, provider, profile)
  return { session: await createSession(deps, userId, userAgent), redirectTo }
}

const identityOwner = async (deps: Deps, provider: SignInProvider, profile: Profile) =>
  (
    await deps.db
      .select({ user_id: identities.user_id })
      .from(identities)
      .where(and(eq(identities.provider, provider), eq(identities.provider_user_id, profile.id)))
  )[0]?.user_id

async function addIdentity(deps: Deps, provider: SignInProvider, profile: Profile, userId: string) {
  await deps.db
    .insert(identities)
    .values({ id: deps.ids.next(), user_id: userId, provider, provider_user_id: profile.id, created_at: deps.clock.now() })
    .onConflictDoNothing()
}

/** The provider confirms the account's own address: from now on it counts as verified. */
async function noteVerified(deps: Deps, userId: string, profile: Profile) {
  if (!profile.email) return
  await deps.db
    .update(users)
    .set({ email_verified_at: deps.clock.now() })
    .where(and(eq(users.id, userId), eq(users.email, profile.email.toLowerCase()), isNull(users.email_verified_at)))
}

/**
 * The identity's account; else the account of the same address when that account verified it (linked now); else a
 * new account, verified by the provider. An unverified account with the address is never linked: its owner signs in
 * with the password and links the provider from Settings.
 */
async function accountFor(deps: Deps, provider: SignInProvider, profile: Profile): Promise<string> {
  const known = await identityOwner(deps, provider, profile)
  if (known) {
    await noteVerified(deps, known, profile)
    return known
  }
  if (!profile.email) throw badRequest(`${provider} did not confirm an email address for this account; verify one there and try again`)
  const email = profile.email.toLowerCase()
  const [existing] = await deps.db.select({ id: users.id, verified: users.email_verified_at }).from(users).where(eq(users.email, email))
  if (existing && !existing.verified) {
    throw conflict(
      `an account with ${email} already exists but has not verified that address, so ${provider} cannot sign in to it: ` +
        `sign in with its password, then link ${provider} in Settings (or reset the password by email to verify it)`,
    )
  }
  const userId = existing?.id ?? (await createAccount(deps, { email, password: null, name: profile.name, verified: true })).id
  await addIdentity(deps, provider, profile, userId)
  return userId
}

/** Settings → link: the identity joins the signed-in account, whatever its address; one already another's is 409. */
async function linkIdentity(deps: Deps, provider: SignInProvider, profile: Profile, userId: string): Promise<void> {
  const owner = await identityOwner(deps, provider, profile)
  if (owner && owner !== userId) throw conflict(`this ${provider} account already signs in to another account: unlink it there first`)
  if (!owner) await addIdentity(deps, provider, profile, userId)
  await noteVerified(deps, userId, profile)
}
