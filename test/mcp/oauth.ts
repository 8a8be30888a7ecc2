// OAuth helpers for the MCP tests: an OAuthClientProvider for the SDK client that keeps everything in memory
// and plays the person at the consent page with their session cookie, and the same steps by hand (register,
// consent, token) for the tests of each endpoint's errors.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'

const UNESCAPE: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" }

/** The consent form's hidden fields, as a browser would send them back. */
export function consentFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {}
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[name!] = value!.replace(/&(amp|lt|gt|quot|#39);/g, (e) => UNESCAPE[e]!)
  }
  return fields
}

/** GET the authorization URL as the signed-in person, then press Allow (or Deny): the redirect's Location. */
export async function consent(
  serverUrl: string,
  authorizationUrl: URL | string,
  cookie: string,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  const page = await fetch(authorizationUrl, { headers: { cookie }, redirect: 'manual' })
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.headers.get('location') ?? (await page.text())}`)
  const fields = consentFields(await page.text())
  const answer = await fetch(`${serverUrl}/oauth/authorize`, {
    method: 'POST',
    headers: { cookie, origin: serverUrl, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, decision }),
    redirect: 'manual',
  })
  if (answer.status !== 303) throw new Error(`consent answer: ${answer.status} ${await answer.text()}`)
  return new URL(answer.headers.get('location')!)
}

export const REDIRECT_URI = 'http://127.0.0.1:53682/callback'

/** What an MCP host keeps: client registration, tokens and the PKCE verifier, here in memory. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed
  saved?: OAuthTokens
  verifier = ''
  /** The code the last consent gave (or the redirect's error). */
  lastRedirect?: URL
  authorizations = 0
  /** false: redirectToAuthorization only records that it was asked (a host whose person is away). */
  consents = true

  constructor(
    private readonly serverUrl: string,
    private readonly cookie: string,
    readonly clientMetadata: OAuthClientMetadata = {
      client_name: 'Test MCP host',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  ) {}

  get redirectUrl() {
    return this.clientMetadata.redirect_uris[0]!
  }
  state() {
    return 'state-' + this.authorizations
  }
  clientInformation() {
    return this.client
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined
    if (scope === 'all' || scope === 'client') this.client = undefined
  }
  async redirectToAuthorization(url: URL) {
    this.authorizations++
    this.lastRedirect = this.consents ? await consent(this.serverUrl, url, this.cookie) : undefined
  }
  get code(): string {
    const code = this.lastRedirect?.searchParams.get('code')
    if (!code) throw new Error(`no code: ${this.lastRedirect}`)
    return code
  }
}

/** By hand: register a public client (or one with the given metadata) and return its registration. */
export async function register(serverUrl: string, metadata: Record<string, unknown> = {}) {
  const res = await fetch(`${serverUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Hand-made client',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

export async function pkce() {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')
  const challenge = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))).toString('base64url')
  return { verifier, challenge }
}

export function authorizeUrl(serverUrl: string, params: Record<string, string>): string {
  return `${serverUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', redirect_uri: REDIRECT_URI, resource: `${serverUrl}/mcp`, state: 'xyz', ...params })}`
}

export async function token(serverUrl: string, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${serverUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> }
}
