// Schemas of the OAuth endpoints for the OpenAPI document: the metadata documents, registration, the token
// endpoint's form and answer, and OAuth's error shape (RFC 6749 §5.2), which these endpoints answer in.
import { t } from 'elysia'

export const OAuthErrorBody = t.Object(
  {
    error: t.String({
      description: 'An OAuth error code: invalid_request, invalid_client, invalid_grant, invalid_target, invalid_redirect_uri, …',
    }),
    error_description: t.Optional(t.String({ description: 'What is wrong, for a person' })),
  },
  { title: 'OAuthError' },
)

export const ProtectedResourceMetadata = t.Object(
  {
    resource: t.String({ description: 'The MCP endpoint: <BASE_URL>/mcp' }),
    authorization_servers: t.Array(t.String()),
    scopes_supported: t.Array(t.String()),
    bearer_methods_supported: t.Array(t.String()),
    resource_name: t.String(),
    resource_documentation: t.String(),
  },
  { title: 'ProtectedResourceMetadata', description: 'RFC 9728' },
)

export const AuthorizationServerMetadata = t.Object(
  {
    issuer: t.String(),
    authorization_endpoint: t.String(),
    token_endpoint: t.String(),
    registration_endpoint: t.String(),
    revocation_endpoint: t.String(),
    scopes_supported: t.Array(t.String()),
    response_types_supported: t.Array(t.String()),
    response_modes_supported: t.Array(t.String()),
    grant_types_supported: t.Array(t.String()),
    token_endpoint_auth_methods_supported: t.Array(t.String()),
    revocation_endpoint_auth_methods_supported: t.Array(t.String()),
    code_challenge_methods_supported: t.Array(t.String()),
    authorization_response_iss_parameter_supported: t.Boolean(),
    service_documentation: t.String(),
  },
  { title: 'AuthorizationServerMetadata', description: 'RFC 8414' },
)

const Uris = t.Array(t.String(), {
  minItems: 1,
  description: 'https, http on the loopback interface (any port), or a private-use scheme such as cursor://',
})

export const ClientRegistration = t.Object(
  {
    redirect_uris: Uris,
    token_endpoint_auth_method: t.Optional(
      t.String({ description: 'none (public client), client_secret_basic (the default) or client_secret_post' }),
    ),
    client_name: t.Optional(t.String({ description: 'Shown on the consent page and in the key list' })),
    grant_types: t.Optional(t.Array(t.String())),
    response_types: t.Optional(t.Array(t.String())),
    scope: t.Optional(t.String()),
    client_uri: t.Optional(t.String()),
    logo_uri: t.Optional(t.String()),
    software_id: t.Optional(t.String()),
    software_version: t.Optional(t.String()),
  },
  {
    title: 'ClientRegistration',
    description: 'RFC 7591 client metadata; other fields are accepted and ignored',
    additionalProperties: t.Unknown(),
  },
)

export const RegisteredClient = t.Object(
  {
    client_id: t.String(),
    client_secret: t.Optional(t.String({ description: 'Confidential clients only; shown this once' })),
    client_secret_expires_at: t.Optional(t.Integer({ description: '0: never' })),
    client_id_issued_at: t.Integer(),
    redirect_uris: t.Array(t.String()),
    token_endpoint_auth_method: t.String(),
    client_name: t.Optional(t.String()),
    grant_types: t.Array(t.String()),
    response_types: t.Array(t.String()),
    scope: t.String(),
  },
  { title: 'RegisteredClient', additionalProperties: t.Unknown() },
)

export const TokenRequest = t.Object(
  {
    grant_type: t.String({ description: 'authorization_code or refresh_token' }),
    code: t.Optional(t.String()),
    code_verifier: t.Optional(t.String({ description: 'The PKCE verifier whose S256 was the code_challenge' })),
    redirect_uri: t.Optional(t.String({ description: 'Required when the authorization request had one; the same value' })),
    refresh_token: t.Optional(t.String()),
    resource: t.Optional(t.String({ description: 'RFC 8707: <BASE_URL>/mcp' })),
    client_id: t.Optional(t.String()),
    client_secret: t.Optional(t.String()),
  },
  { title: 'TokenRequest', additionalProperties: t.Unknown() },
)

export const TokenResponse = t.Object(
  {
    access_token: t.String({ description: '`mcpat_…`: good for /mcp only, for expires_in seconds' }),
    token_type: t.Literal('Bearer'),
    expires_in: t.Integer(),
    refresh_token: t.String({ description: '`mcprt_…`: single use; each refresh returns a new one' }),
    scope: t.String(),
  },
  { title: 'TokenResponse' },
)

export const RevocationRequest = t.Object(
  { token: t.String(), token_type_hint: t.Optional(t.String()), client_id: t.Optional(t.String()), client_secret: t.Optional(t.String()) },
  // A form: any other parameter is text too, sent once (RFC 7009 lets a server ignore ones it does not know).
  { title: 'RevocationRequest', additionalProperties: t.String() },
)

export const Revoked = t.Object(
  {},
  { title: 'Revoked', description: 'The token no longer works (or never did: RFC 7009 answers 200 either way)' },
)
