// The names this service uses as an OAuth authorization server and as the MCP protected resource, all derived
// from BASE_URL (the address clients reach it at), plus the lifetimes of what it issues.
import type { Config } from '../../config'

/** The one scope there is: the MCP tools, acting as the user who approved. */
export const MCP_SCOPE = 'mcp'

export const CODE_TTL_MS = 5 * 60_000
export const ACCESS_TOKEN_TTL_S = 3600
/** A refresh token lives this long from its issue; each use rotates it, so an active client never sees it expire. */
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000

/** Token formats: told apart from API keys (`svc_`) by their prefix, so /api can say why one is refused. */
export const ACCESS_TOKEN_PREFIX = 'mcpat_'
export const REFRESH_TOKEN_PREFIX = 'mcprt_'

const base = (config: Config) => config.baseUrl.replace(/\/+$/, '')

/** RFC 8414 issuer: BASE_URL as written (no trailing slash). */
export const issuerOf = (config: Config) => base(config)

/** RFC 8707 / RFC 9728 resource: the /mcp endpoint itself. */
export const mcpResourceOf = (config: Config) => `${base(config)}/mcp`

/** RFC 9728 §3.1: the metadata of `<origin>/mcp` lives at `<origin>/.well-known/oauth-protected-resource/mcp`. */
export const resourceMetadataUrlOf = (config: Config) => {
  const url = new URL(mcpResourceOf(config))
  return `${url.origin}/.well-known/oauth-protected-resource${url.pathname}`
}

export const endpointsOf = (config: Config) => ({
  authorization_endpoint: `${base(config)}/oauth/authorize`,
  token_endpoint: `${base(config)}/oauth/token`,
  registration_endpoint: `${base(config)}/oauth/register`,
  revocation_endpoint: `${base(config)}/oauth/revoke`,
})
