// The OAuth authorization server MCP clients discover from /mcp's 401: the metadata documents (RFC 9728,
// RFC 8414), dynamic registration (RFC 7591), the token endpoint (RFC 6749, PKCE) and revocation (RFC 7009).
// These answer in OAuth's shapes ({ error, error_description }), not the service's { error }: see oauth.errors.ts.
// Any origin may call them, browser-based MCP clients included: CORS is answered in http/cors.ts.
import { Elysia, type TSchema } from 'elysia'
import type { Deps } from '../../deps'
import { clientAddress } from '../../http/client-address'
import { authenticateClient, registerClient } from './clients.service'
import { answerOAuth, OAuthError, oauthJson } from './oauth.errors'
import {
  AuthorizationServerMetadata,
  Revoked,
  ClientRegistration,
  OAuthErrorBody,
  ProtectedResourceMetadata,
  RegisteredClient,
  RevocationRequest,
  TokenRequest,
  TokenResponse,
} from './oauth.schemas'
import { endpointsOf, issuerOf, MCP_SCOPE, mcpResourceOf } from './oauth.urls'
import { exchangeCode, refreshTokens, revokeToken } from './tokens.service'

const tags = ['oauth']
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post']
const form = (schema: TSchema) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema } },
})

export function oauthRoutes(deps: Deps) {
  const resourceMetadata = () => ({
    resource: mcpResourceOf(deps.config),
    authorization_servers: [issuerOf(deps.config)],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: 'Knowledge Memory Service (MCP)',
    resource_documentation: `${issuerOf(deps.config)}/openapi`,
  })
  const serverMetadata = () => ({
    issuer: issuerOf(deps.config),
    ...endpointsOf(deps.config),
    scopes_supported: [MCP_SCOPE],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: AUTH_METHODS,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuerOf(deps.config)}/openapi`,
  })
  const metadataHeaders = { 'cache-control': 'public, max-age=3600' }
  const prm = {
    response: { 200: ProtectedResourceMetadata },
    detail: { tags, summary: 'OAuth protected resource metadata of /mcp (RFC 9728): where MCP clients get tokens' },
  }
  const asm = {
    response: { 200: AuthorizationServerMetadata },
    detail: { tags, summary: 'OAuth authorization server metadata (RFC 8414): endpoints, PKCE S256, grant types' },
  }

  return (
    new Elysia({ name: 'oauth' })
      .get('/.well-known/oauth-protected-resource', ({ set }) => (Object.assign(set.headers, metadataHeaders), resourceMetadata()), prm)
      // RFC 9728 §3.1: the path-suffixed form for the resource <BASE_URL>/mcp, which /mcp's 401 points to.
      .get('/.well-known/oauth-protected-resource/mcp', ({ set }) => (Object.assign(set.headers, metadataHeaders), resourceMetadata()), prm)
      .get('/.well-known/oauth-authorization-server', ({ set }) => (Object.assign(set.headers, metadataHeaders), serverMetadata()), asm)
      // Clients that take the MCP URL for the issuer (the 2025-03-26 revision) look here.
      .get('/.well-known/oauth-authorization-server/mcp', ({ set }) => (Object.assign(set.headers, metadataHeaders), serverMetadata()), {
        ...asm,
        detail: { ...asm.detail, hide: true },
      })
      .post(
        '/oauth/register',
        ({ body, request, server }) =>
          answerOAuth(async () => {
            if (!isObject(body))
              throw new OAuthError('invalid_client_metadata', 'the body must be a JSON object of client metadata (RFC 7591)')
            // The client's address, read through the proxies TRUST_PROXY names; in-process calls have none.
            const from = clientAddress(deps.config, request, server)
            return oauthJson(await registerClient(deps, body, from), 201)
          }),
        {
          response: { 201: RegisteredClient, 400: OAuthErrorBody, 429: OAuthErrorBody },
          detail: {
            tags,
            summary: 'Register an OAuth client (RFC 7591 dynamic registration): MCP clients do this themselves; rate limited per address',
            requestBody: { required: true, content: { 'application/json': { schema: ClientRegistration } } },
          },
        },
      )
      .post(
        '/oauth/token',
        ({ body, request }) =>
          answerOAuth(async () => {
            const params = readForm(body)
            const client = await authenticateClient(deps, request.headers.get('authorization'), params)
            if (params.grant_type === 'authorization_code') return oauthJson(await exchangeCode(deps, client, params))
            if (params.grant_type === 'refresh_token') return oauthJson(await refreshTokens(deps, client, params))
            throw new OAuthError(
              params.grant_type ? 'unsupported_grant_type' : 'invalid_request',
              params.grant_type
                ? `grant_type ${params.grant_type} is not supported: use authorization_code or refresh_token`
                : 'grant_type is required',
            )
          }),
        {
          response: { 200: TokenResponse, 400: OAuthErrorBody, 401: OAuthErrorBody },
          detail: {
            tags,
            summary: 'Exchange an authorization code (with its PKCE verifier) or a refresh token for an access token to /mcp',
            requestBody: form(TokenRequest),
          },
        },
      )
      .post(
        '/oauth/revoke',
        ({ body, request }) =>
          answerOAuth(async () => {
            const params = readForm(body)
            const client = await authenticateClient(deps, request.headers.get('authorization'), params)
            if (!params.token) throw new OAuthError('invalid_request', 'token is required')
            await revokeToken(deps, client, params.token)
            return oauthJson({})
          }),
        {
          response: { 200: Revoked, 400: OAuthErrorBody, 401: OAuthErrorBody },
          detail: {
            tags,
            summary:
              'Revoke an access or refresh token (RFC 7009): either ends its whole grant, every token of it. Unknown tokens are not an error',
            requestBody: form(RevocationRequest),
          },
        },
      )
  )
}

/** The form's parameters as strings; RFC 6749 §3.2: none may be sent twice. */
function readForm(body: unknown): Record<string, string> {
  if (body === undefined || body === null) return {}
  if (!isObject(body)) throw new OAuthError('invalid_request', 'send the parameters as application/x-www-form-urlencoded')
  const params: Record<string, string> = {}
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `parameter ${name} must be sent once, as text`)
    params[name] = value
  }
  return params
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
