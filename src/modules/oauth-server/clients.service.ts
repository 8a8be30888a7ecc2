// OAuth clients: dynamic registration (RFC 7591, rate limited per address) and client authentication at the
// token and revocation endpoints (none for public clients; client_secret_basic or _post for confidential ones).
import { and, count, eq, gt, lt, notExists } from 'drizzle-orm'
import { timingSafeEqual } from 'node:crypto'
import { oauthClients, oauthGrants } from '../../../db/schema'
import type { Deps } from '../../deps'
import { randomBase62, sha256Hex } from '../../lib/crypto'
import { OAuthError } from './oauth.errors'
import { MCP_SCOPE } from './oauth.urls'
import { MAX_REDIRECT_URIS, redirectUriProblem } from './redirect-uris'

export type OAuthClient = typeof oauthClients.$inferSelect

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const
type AuthMethod = (typeof AUTH_METHODS)[number]
const GRANT_TYPES = ['authorization_code', 'refresh_token']
const HOUR_MS = 3_600_000
/** Registered metadata kept and echoed back as given (when a string); the consent page shows none of it but the name. */
const ECHOED = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri', 'software_id', 'software_version'] as const

type Metadata = Record<string, unknown>

/** RFC 7591 §3.2.1's answer: the client id (and secret, once), plus the metadata as registered. */
export async function registerClient(deps: Deps, metadata: Metadata, from: string): Promise<Record<string, unknown>> {
  const redirectUris = readRedirectUris(metadata.redirect_uris)
  const method = readAuthMethod(metadata.token_endpoint_auth_method)
  const name = optionalString(metadata.client_name, 'client_name', 200)
  const echoed: Record<string, string> = {}
  for (const field of ECHOED) {
    const value = optionalString(metadata[field], field, 2000)
    if (value) echoed[field] = value
  }
  // Grant types this server has; an unknown one (a device grant) is dropped from what is registered, not refused.
  const grantTypes = Array.isArray(metadata.grant_types) ? GRANT_TYPES.filter((g) => (metadata.grant_types as unknown[]).includes(g)) : []
  const registered = { ...echoed, grant_types: grantTypes.length ? grantTypes : GRANT_TYPES, response_types: ['code'], scope: MCP_SCOPE }

  await assertRegistrationRate(deps, from)
  const clientId = `mcpc_${randomBase62(24)}`
  const secret = method === 'none' ? null : `mcps_${randomBase62(40)}`
  const now = deps.clock.now()
  await deps.db.insert(oauthClients).values({
    id: clientId,
    secret_hash: secret ? sha256Hex(secret) : null,
    name,
    redirect_uris: redirectUris,
    auth_method: method,
    metadata: registered,
    registered_from: from,
    created_at: now,
  })
  // Registrations that never led to a grant are left by clients that gave up; a day later nobody needs them.
  if (Math.random() < 0.05) {
    await deps.db
      .delete(oauthClients)
      .where(
        and(
          lt(oauthClients.created_at, new Date(now.getTime() - 24 * HOUR_MS)),
          notExists(deps.db.select().from(oauthGrants).where(eq(oauthGrants.client_id, oauthClients.id))),
        ),
      )
  }
  return {
    client_id: clientId,
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method,
    ...(name ? { client_name: name } : {}),
    ...registered,
  }
}

export async function findClient(deps: Deps, clientId: string): Promise<OAuthClient | null> {
  if (!clientId || clientId.length > 100) return null
  const [client] = await deps.db.select().from(oauthClients).where(eq(oauthClients.id, clientId))
  return client ?? null
}

/**
 * The client making a token or revocation request, authenticated the way it registered (RFC 6749 §2.3):
 * HTTP Basic, or client_id (+ client_secret) in the form. Anything else is invalid_client.
 */
export async function authenticateClient(deps: Deps, authorization: string | null, form: Record<string, string>): Promise<OAuthClient> {
  let clientId = form.client_id ?? ''
  let secret: string | null = form.client_secret ?? null
  let viaBasic = false
  if (authorization && /^basic\s/i.test(authorization)) {
    const decoded = Buffer.from(authorization.replace(/^basic\s+/i, ''), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) throw invalidClient('the Basic credentials are not client_id:client_secret', true)
    // RFC 6749 §2.3.1: both parts are form-urlencoded before they are joined.
    clientId = decodeForm(decoded.slice(0, colon))
    secret = decodeForm(decoded.slice(colon + 1))
    viaBasic = true
  }
  if (!clientId) throw invalidClient('client_id is required', viaBasic)
  const client = await findClient(deps, clientId)
  if (!client) throw invalidClient(`unknown client ${clientId}: register again`, viaBasic)
  if (client.secret_hash === null) {
    if (secret) throw invalidClient('this client registered as public (token_endpoint_auth_method "none") and has no secret', viaBasic)
    return client
  }
  if (!secret || !sameHash(sha256Hex(secret), client.secret_hash)) throw invalidClient('wrong or missing client_secret', viaBasic)
  return client
}

async function assertRegistrationRate(deps: Deps, from: string): Promise<void> {
  const since = new Date(deps.clock.now().getTime() - HOUR_MS)
  const [{ n } = { n: 0 }] = await deps.db
    .select({ n: count() })
    .from(oauthClients)
    .where(and(eq(oauthClients.registered_from, from), gt(oauthClients.created_at, since)))
  const limit = deps.config.oauthRegistrationsPerHour
  if (n >= limit) {
    throw new OAuthError(
      'invalid_client_metadata',
      `too many client registrations from this address: at most ${limit} an hour; retry later`,
      429,
      { 'retry-after': '600' },
    )
  }
}

function readRedirectUris(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URIs')
  }
  if (value.length > MAX_REDIRECT_URIS) throw new OAuthError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect_uris`)
  for (const uri of value as string[]) {
    const problem = redirectUriProblem(uri)
    if (problem) throw new OAuthError('invalid_redirect_uri', problem)
  }
  return [...new Set(value as string[])]
}

function readAuthMethod(value: unknown): AuthMethod {
  // RFC 7591 §2: omitted means client_secret_basic.
  if (value === undefined) return 'client_secret_basic'
  if (typeof value === 'string' && (AUTH_METHODS as readonly string[]).includes(value)) return value as AuthMethod
  throw new OAuthError('invalid_client_metadata', `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`)
}

function optionalString(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value !== 'string') throw new OAuthError('invalid_client_metadata', `${field} must be a string`)
  if (value.length > max) throw new OAuthError('invalid_client_metadata', `${field} is longer than ${max} characters`)
  return value
}

function invalidClient(description: string, viaBasic: boolean): OAuthError {
  // RFC 6749 §5.2: a client that tried Basic is told which scheme to use.
  return new OAuthError('invalid_client', description, 401, viaBasic ? { 'www-authenticate': 'Basic realm="oauth"' } : {})
}

function decodeForm(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    return value
  }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}
