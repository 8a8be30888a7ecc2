// The OAuth client shared by sign-in and connectors (arctic's OAuth2Client against configured endpoints):
// authorization URLs with PKCE where the provider supports it, code exchange, refresh and revocation.
import { CodeChallengeMethod, OAuth2Client, OAuth2RequestError, OAuth2Tokens } from 'arctic'
import type { OAuthApp, OAuthProvider } from '../config'
import type { Deps } from '../deps'
import { AppError, providerFailed, unavailable } from '../http/errors'

interface ProviderTraits {
  scopes: string[]
  /** PKCE S256 (GitHub's, Atlassian's and Notion's token endpoints do not document it). */
  pkce: boolean
  /** How the token endpoint authenticates the app: HTTP Basic, or client_id + client_secret in the form (Atlassian). */
  clientAuth: 'basic' | 'post'
  /** Notion documents its revocation request as JSON; the others take RFC 7009's form. */
  revokeBody?: 'form' | 'json'
  /** Which token a disconnect revokes: Google's refresh token ends the whole grant; Notion's endpoint takes the access token. */
  revokeWith?: 'access' | 'refresh'
  extraParams?: Record<string, string>
}

/** What each provider is asked for by default and how its endpoints are spoken to (connectors pass their own scopes). */
export const PROVIDER_TRAITS: Record<OAuthProvider, ProviderTraits> = {
  github: { scopes: ['read:user', 'user:email'], pkce: false, clientAuth: 'basic' },
  // Sign-in needs no refresh token; a connector asks for offline access itself (authorizationUrl's extraParams).
  google: { scopes: ['openid', 'email', 'profile'], pkce: true, clientAuth: 'basic', revokeWith: 'refresh' },
  confluence: { scopes: [], pkce: false, clientAuth: 'post', extraParams: { audience: 'api.atlassian.com', prompt: 'consent' } },
  notion: { scopes: [], pkce: false, clientAuth: 'basic', revokeBody: 'json', revokeWith: 'access', extraParams: { owner: 'user' } },
}

export function appOf(deps: Deps, provider: OAuthProvider): OAuthApp {
  const app = deps.config.oauth[provider]
  if (!app) throw unavailable(`${provider} is not configured`)
  return app
}

const clientOf = (app: OAuthApp, redirectUri: string) => new OAuth2Client(app.clientId, app.clientSecret, redirectUri)

export function authorizationUrl(
  deps: Deps,
  provider: OAuthProvider,
  redirectUri: string,
  state: string,
  codeVerifier: string,
  options: { scopes?: string[]; extraParams?: Record<string, string> } = {},
): string {
  const scopes = options.scopes
  const app = appOf(deps, provider)
  const traits = PROVIDER_TRAITS[provider]
  const client = clientOf(app, redirectUri)
  const url = traits.pkce
    ? client.createAuthorizationURLWithPKCE(app.authUrl, state, CodeChallengeMethod.S256, codeVerifier, scopes ?? traits.scopes)
    : client.createAuthorizationURL(app.authUrl, state, scopes ?? traits.scopes)
  for (const [k, v] of Object.entries({ ...traits.extraParams, ...options.extraParams })) url.searchParams.set(k, v)
  return url.toString()
}

/** Exchanges the callback's code; a provider refusal is a 400 naming it, an unreachable provider a 502. */
export async function exchangeCode(
  deps: Deps,
  provider: OAuthProvider,
  redirectUri: string,
  code: string,
  codeVerifier: string | null,
): Promise<OAuth2Tokens> {
  const app = appOf(deps, provider)
  const verifier = PROVIDER_TRAITS[provider].pkce ? codeVerifier : null
  try {
    const tokens =
      PROVIDER_TRAITS[provider].clientAuth === 'post'
        ? await postTokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri })
        : await clientOf(app, redirectUri).validateAuthorizationCode(app.tokenUrl, code, verifier)
    // GitHub refuses a code with HTTP 200 and { error }, which a generic OAuth client takes for tokens.
    const data = tokens.data as { error?: unknown; access_token?: unknown }
    if (typeof data.error === 'string' || typeof data.access_token !== 'string') {
      throw new AppError(
        400,
        `${provider} refused the authorization code: ${typeof data.error === 'string' ? data.error : 'no access token in the answer'}`,
      )
    }
    return tokens
  } catch (error) {
    if (error instanceof AppError) throw error
    if (error instanceof OAuth2RequestError) throw new AppError(400, `${provider} refused the authorization code: ${error.code}`)
    throw providerFailed(`${provider} token endpoint failed`, error)
  }
}

/** A refused refresh (revoked, expired, rotated away) is a 401 saying to reconnect; an outage a 502. */
export async function refreshTokens(deps: Deps, provider: OAuthProvider, refreshToken: string): Promise<OAuth2Tokens> {
  const app = appOf(deps, provider)
  try {
    if (PROVIDER_TRAITS[provider].clientAuth === 'post')
      return await postTokenRequest(app, { grant_type: 'refresh_token', refresh_token: refreshToken })
    return await clientOf(app, `${deps.config.baseUrl}/api/connectors/oauth/callback`).refreshAccessToken(app.tokenUrl, refreshToken, [])
  } catch (error) {
    // The provider's refusal (502), not the caller's credentials (a 401 would tell a client its own key is bad).
    if (error instanceof OAuth2RequestError) throw new AppError(502, `${provider} refused to refresh the token (${error.code}): reconnect`)
    throw providerFailed(`${provider} token endpoint failed`, error)
  }
}

/** Revokes at the provider when it has an endpoint; failures are logged, never block a disconnect. */
export async function revokeToken(deps: Deps, provider: OAuthProvider, token: string): Promise<void> {
  const app = appOf(deps, provider)
  if (!app.revokeUrl) return
  try {
    if (PROVIDER_TRAITS[provider].revokeBody === 'json') {
      const res = await fetch(app.revokeUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${btoa(`${app.clientId}:${app.clientSecret}`)}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ token }),
        signal: AbortSignal.timeout(15_000),
      })
      await res.body?.cancel()
      if (!res.ok) throw new Error(`answered ${res.status}`)
    } else {
      await clientOf(app, deps.config.baseUrl).revokeToken(app.revokeUrl, token)
    }
  } catch (error) {
    deps.log.warn('token revocation failed', { provider, error: String(error) })
  }
}

/** A token request with the app's credentials in the form (client_secret_post), read the way arctic reads one. */
async function postTokenRequest(app: OAuthApp, params: Record<string, string>): Promise<OAuth2Tokens> {
  const res = await fetch(app.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ ...params, client_id: app.clientId, client_secret: app.clientSecret }),
    signal: AbortSignal.timeout(15_000),
  })
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null
  if (res.ok && data && typeof data === 'object') return new OAuth2Tokens(data)
  // Atlassian answers a refused grant with 400, 401 or 403 and { error, error_description }.
  if (data && typeof data.error === 'string')
    throw new OAuth2RequestError(data.error, typeof data.error_description === 'string' ? data.error_description : null, null, null)
  throw new Error(`answered ${res.status}`)
}
