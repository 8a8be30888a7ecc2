// The OAuth client shared by sign-in and connectors (arctic's OAuth2Client against configured endpoints):
// authorization URLs with PKCE where the provider supports it, code exchange, refresh and revocation.
import { CodeChallengeMethod, OAuth2Client, OAuth2RequestError, type OAuth2Tokens } from 'arctic'
import type { OAuthApp, OAuthProvider } from '../config'
import type { Deps } from '../deps'
import { AppError, unavailable } from '../http/errors'

/** Scopes each provider is asked for, and whether it takes PKCE (GitHub and Notion's token endpoints do not). */
export const PROVIDER_TRAITS: Record<OAuthProvider, { scopes: string[]; pkce: boolean; extraParams?: Record<string, string> }> = {
  github: { scopes: ['read:user', 'user:email'], pkce: false },
  // Sign-in needs no refresh token; a connector asks for offline access itself (authorizationUrl's extraParams).
  google: { scopes: ['openid', 'email', 'profile'], pkce: true },
  confluence: { scopes: ['read:confluence-content.all', 'read:confluence-space.summary', 'offline_access'], pkce: true, extraParams: { audience: 'api.atlassian.com', prompt: 'consent' } },
  notion: { scopes: [], pkce: false, extraParams: { owner: 'user' } },
}

export function appOf(deps: Deps, provider: OAuthProvider): OAuthApp {
  const app = deps.config.oauth[provider]
  if (!app) throw unavailable(`${provider} is not configured`)
  return app
}

const clientOf = (deps: Deps, app: OAuthApp, redirectUri: string) => new OAuth2Client(app.clientId, app.clientSecret, redirectUri)

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
  const client = clientOf(deps, app, redirectUri)
  const url = traits.pkce
    ? client.createAuthorizationURLWithPKCE(app.authUrl, state, CodeChallengeMethod.S256, codeVerifier, scopes ?? traits.scopes)
    : client.createAuthorizationURL(app.authUrl, state, scopes ?? traits.scopes)
  for (const [k, v] of Object.entries({ ...traits.extraParams, ...options.extraParams })) url.searchParams.set(k, v)
  return url.toString()
}

/** Exchanges the callback's code; a provider refusal is a 400 naming it, an unreachable provider a 502. */
export async function exchangeCode(deps: Deps, provider: OAuthProvider, redirectUri: string, code: string, codeVerifier: string | null): Promise<OAuth2Tokens> {
  const app = appOf(deps, provider)
  try {
    const tokens = await clientOf(deps, app, redirectUri).validateAuthorizationCode(app.tokenUrl, code, PROVIDER_TRAITS[provider].pkce ? codeVerifier : null)
    // GitHub refuses a code with HTTP 200 and { error }, which a generic OAuth client takes for tokens.
    const data = tokens.data as { error?: unknown; access_token?: unknown }
    if (typeof data.error === 'string' || typeof data.access_token !== 'string') {
      throw new AppError(400, `${provider} refused the authorization code: ${typeof data.error === 'string' ? data.error : 'no access token in the answer'}`)
    }
    return tokens
  } catch (error) {
    if (error instanceof AppError) throw error
    if (error instanceof OAuth2RequestError) throw new AppError(400, `${provider} refused the authorization code: ${error.code}`)
    throw new AppError(502, `${provider} token endpoint failed: ${(error as Error).message}`)
  }
}

export async function refreshTokens(deps: Deps, provider: OAuthProvider, refreshToken: string): Promise<OAuth2Tokens> {
  const app = appOf(deps, provider)
  try {
    return await clientOf(deps, app, `${deps.config.baseUrl}/api/connectors/oauth/callback`).refreshAccessToken(app.tokenUrl, refreshToken, [])
  } catch (error) {
    if (error instanceof OAuth2RequestError) throw new AppError(401, `${provider} refused to refresh the token (${error.code}): reconnect`)
    throw new AppError(502, `${provider} token endpoint failed: ${(error as Error).message}`)
  }
}

/** Revokes at the provider when it has an endpoint; failures are logged, never block a disconnect. */
export async function revokeToken(deps: Deps, provider: OAuthProvider, token: string): Promise<void> {
  const app = appOf(deps, provider)
  if (!app.revokeUrl) return
  try {
    await clientOf(deps, app, deps.config.baseUrl).revokeToken(app.revokeUrl, token)
  } catch (error) {
    deps.log.warn('token revocation failed', { provider, error: String(error) })
  }
}
