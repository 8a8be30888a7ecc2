// The authorization endpoint's rules (RFC 6749 §4.1, OAuth 2.1, RFC 8707): which requests are refused (every
// invalid one, on a page of this service: never at the client's redirect_uri), and the code an approval gives.
// Consent forms carry a token bound to the session and the request.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { oauthCodes } from '../../../db/schema'
import type { Deps } from '../../deps'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { findClient, type OAuthClient } from './clients.service'
import type { OAuthErrorCode } from './oauth.errors'
import { CODE_TTL_MS, issuerOf, MCP_SCOPE, mcpResourceOf } from './oauth.urls'
import { matchesRegistered, redirectUriProblem, withParams } from './redirect-uris'

/** The parameters of an authorization request, as the consent form carries them back. */
export const AUTHORIZATION_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'scope',
  'resource',
] as const
export type AuthorizationParams = Partial<Record<(typeof AUTHORIZATION_PARAMS)[number], string>>

export interface AuthorizationRequest {
  client: OAuthClient
  /** Where the answer goes: the given redirect_uri, or the client's only registered one. */
  redirectUri: string
  /** As given (null when omitted): the token request must repeat it. */
  givenRedirectUri: string | null
  codeChallenge: string
  state: string | undefined
  scope: string
  resource: string
}

/**
 * An invalid request is shown to the person, never sent to the client's redirect_uri: anyone may register a
 * client with any https redirect URI, and an error answered there would make this service an open redirector
 * (a link to it lands, with no click, on the registrant's site: RFC 9700 §4.11.2). Only the person's own
 * answer on the consent page (Allow or Deny) goes back to the client.
 */
export type Checked = { kind: 'ok'; request: AuthorizationRequest } | { kind: 'refused'; message: string }

/** S256 of a 43–128 character verifier: 43 base64url characters. */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/

export async function checkAuthorizationRequest(deps: Deps, params: AuthorizationParams): Promise<Checked> {
  const client = params.client_id ? await findClient(deps, params.client_id) : null
  if (!client)
    return {
      kind: 'refused',
      message: params.client_id
        ? `Unknown client ${params.client_id}. The application must register again.`
        : 'The request names no client (client_id).',
    }
  const given = params.redirect_uri ?? null
  let redirectUri: string
  if (given !== null) {
    if (!matchesRegistered(given, client.redirect_uris))
      return { kind: 'refused', message: `The redirect URI ${given} is not registered for this application.` }
    redirectUri = given
  } else if (client.redirect_uris.length === 1) {
    redirectUri = client.redirect_uris[0]!
  } else {
    return { kind: 'refused', message: 'The request has no redirect_uri and the application registered several.' }
  }
  // A client registered under older rules keeps its URIs; today's rules still decide where an answer may go.
  const problem = redirectUriProblem(redirectUri)
  if (problem) return { kind: 'refused', message: `The application's ${problem}.` }
  const fail = (error: OAuthErrorCode, description: string): Checked => ({
    kind: 'refused',
    message: `The application sent an invalid authorization request (${error}): ${description}.`,
  })
  if (params.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code')
  if (!params.code_challenge) return fail('invalid_request', 'code_challenge is required (PKCE with S256)')
  if (params.code_challenge_method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256')
  if (!CHALLENGE.test(params.code_challenge))
    return fail('invalid_request', 'code_challenge must be the 43-character base64url SHA-256 of the verifier')
  const resource = mcpResourceOf(deps.config)
  // RFC 8707: the token will be good for /mcp only; a client asking for anything else is told so. Clients of
  // the 2025-03-26 MCP revision send no resource: theirs is /mcp too.
  if (params.resource !== undefined && params.resource !== resource) return fail('invalid_target', `resource must be ${resource}`)
  // Any requested scope is answered with the one there is; the token response says which (RFC 6749 §3.3).
  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      givenRedirectUri: given,
      codeChallenge: params.code_challenge,
      state: params.state,
      scope: MCP_SCOPE,
      resource,
    },
  }
}

/** A single-use code for the approved request, stored as its hash; the redirect that delivers it. */
export async function approve(deps: Deps, userId: string, request: AuthorizationRequest): Promise<string> {
  const code = randomBase62(43)
  const now = deps.clock.now()
  await deps.db.insert(oauthCodes).values({
    id: sha256Hex(code),
    client_id: request.client.id,
    user_id: userId,
    redirect_uri: request.givenRedirectUri,
    code_challenge: request.codeChallenge,
    resource: request.resource,
    scope: request.scope,
    expires_at: new Date(now.getTime() + CODE_TTL_MS),
    created_at: now,
  })
  // RFC 9207: `iss` tells the client which server answered (mix-up defence).
  return withParams(request.redirectUri, { code, state: request.state, iss: issuerOf(deps.config) })
}

export function denial(deps: Deps, request: AuthorizationRequest): string {
  return errorLocation(deps, request.redirectUri, 'access_denied', 'the user declined', request.state)
}

function errorLocation(deps: Deps, redirectUri: string, error: OAuthErrorCode, description: string, state: string | undefined): string {
  return withParams(redirectUri, { error, error_description: description, state, iss: issuerOf(deps.config) })
}

/**
 * The consent form's anti-CSRF token: an HMAC (under ENCRYPTION_KEY) of the session and of every parameter of
 * the request, so it is good only for this person's session and for exactly the request they were shown.
 */
export function consentToken(deps: Deps, sessionId: string, params: AuthorizationParams): string {
  // JSON, so no value can pass for another (a state holding "\nscope=…" stays inside its string).
  const message = JSON.stringify(['oauth-consent', sessionId, ...AUTHORIZATION_PARAMS.map((name) => params[name] ?? null)])
  return createHmac('sha256', deps.config.encryptionKey).update(message).digest('base64url')
}

export function validConsentToken(deps: Deps, sessionId: string, params: AuthorizationParams, token: string | undefined): boolean {
  const expected = Buffer.from(consentToken(deps, sessionId, params))
  const given = Buffer.from(token ?? '')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The authorization parameters of a query or form, strings only (a repeated parameter is refused as absent). */
export function readAuthorizationParams(source: Record<string, unknown>): AuthorizationParams {
  const params: AuthorizationParams = {}
  for (const name of AUTHORIZATION_PARAMS) {
    const value = source[name]
    if (typeof value === 'string' && value !== '') params[name] = value
  }
  return params
}
