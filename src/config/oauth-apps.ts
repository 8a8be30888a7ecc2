// The OAuth apps the service signs in with and connects through: each provider's public endpoints, and the
// reader of its <PROVIDER>_* variables.
import { type Env, readUrl } from './parsers'

export const OAUTH_PROVIDERS = ['github', 'google', 'confluence', 'notion'] as const
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number]

export interface OAuthApp {
  clientId: string
  clientSecret: string
  authUrl: string
  tokenUrl: string
  /** The provider's REST API base (profile, pages, files). */
  apiUrl: string
  /** Token revocation endpoint, where the provider has one. */
  revokeUrl: string | null
}

/** Each provider's public endpoints; `<PROVIDER>_AUTH_URL`, `_TOKEN_URL`, `_API_URL`, `_REVOKE_URL` override them. */
const OAUTH_DEFAULTS: Record<OAuthProvider, Omit<OAuthApp, 'clientId' | 'clientSecret'>> = {
  github: {
    authUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    apiUrl: 'https://api.github.com',
    revokeUrl: null,
  },
  google: {
    authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    apiUrl: 'https://www.googleapis.com',
    revokeUrl: 'https://oauth2.googleapis.com/revoke',
  },
  confluence: {
    authUrl: 'https://auth.atlassian.com/authorize',
    tokenUrl: 'https://auth.atlassian.com/oauth/token',
    apiUrl: 'https://api.atlassian.com',
    revokeUrl: null,
  },
  notion: {
    authUrl: 'https://api.notion.com/v1/oauth/authorize',
    tokenUrl: 'https://api.notion.com/v1/oauth/token',
    apiUrl: 'https://api.notion.com',
    revokeUrl: 'https://api.notion.com/v1/oauth/revoke',
  },
}

/** OAuth apps by provider; null when its client id or secret is unset (its routes answer 503). */
export function oauthApps(env: Env): Record<OAuthProvider, OAuthApp | null> {
  const apps = {} as Record<OAuthProvider, OAuthApp | null>
  for (const provider of OAUTH_PROVIDERS) {
    const P = provider.toUpperCase()
    const clientId = env[`${P}_CLIENT_ID`]?.trim()
    const clientSecret = env[`${P}_CLIENT_SECRET`]?.trim()
    if (!clientId || !clientSecret) {
      apps[provider] = null
      continue
    }
    const d = OAUTH_DEFAULTS[provider]
    const revoke = env[`${P}_REVOKE_URL`]?.trim()
    apps[provider] = {
      clientId,
      clientSecret,
      authUrl: readUrl(env, `${P}_AUTH_URL`, d.authUrl),
      tokenUrl: readUrl(env, `${P}_TOKEN_URL`, d.tokenUrl),
      apiUrl: readUrl(env, `${P}_API_URL`, d.apiUrl),
      revokeUrl: revoke ? readUrl(env, `${P}_REVOKE_URL`, '') : d.revokeUrl,
    }
  }
  return apps
}
