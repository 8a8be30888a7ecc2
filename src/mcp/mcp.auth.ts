// Who is calling /mcp: a bearer API key, or an OAuth access token issued to an MCP client for this resource.
// Every 401 names the protected-resource metadata (RFC 9728 §5.1), which is how a client that connects by URL
// discovers where to sign in; `error="invalid_token"` says a token was sent but is no good (RFC 6750 §3.1).
import type { Deps } from '../deps'
import type { Principal } from '../http/auth'
import { AppError } from '../http/errors'
import { viaSurface } from '../modules/auth/session-user'
import { verifyKey } from '../modules/keys/keys.service'
import { ACCESS_TOKEN_PREFIX, resourceMetadataUrlOf } from '../modules/oauth-server/oauth.urls'
import { isMcpResource, verifyAccessToken } from '../modules/oauth-server/tokens.service'

export async function authenticateMcp(deps: Deps, request: Request): Promise<Principal> {
  const refuse = (message: string, error?: 'invalid_token') => {
    const challenge = `Bearer resource_metadata="${resourceMetadataUrlOf(deps.config)}"${error ? `, error="${error}"` : ''}`
    return new AppError(401, message, { 'www-authenticate': challenge })
  }
  const authorization = request.headers.get('authorization')
  const match = authorization === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  // No bearer credentials (none, another scheme, or a session cookie alone): no error code (RFC 6750 §3.1).
  if (!match) {
    throw refuse(
      authorization === null
        ? 'missing credentials: send "Authorization: Bearer <API key or OAuth access token>"'
        : 'Authorization header must be "Bearer <API key or OAuth access token>"',
    )
  }
  const token = match[1]!
  if (token.startsWith(ACCESS_TOKEN_PREFIX)) {
    const found = await verifyAccessToken(deps, token)
    if (!found || !isMcpResource(deps, found.resource)) throw refuse('invalid, expired or revoked access token', 'invalid_token')
    // A grant acts like a key: agent writes stay drafts, and per-key rate limits count per grant.
    return { user: found.user, via: 'key', credentialId: found.grantId, scopes: ['read', 'write'] }
  }
  const key = await verifyKey(deps, token)
  if (!key) throw refuse('invalid or revoked API key', 'invalid_token')
  return { user: viaSurface(key.user, 'mcp'), via: 'key', credentialId: key.keyId, scopes: key.scopes }
}
