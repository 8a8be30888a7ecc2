// What every connector provider's fake offers a test, whatever the provider: the service's env pointing at it,
// the requests it received, and the failures a test can script (expired tokens, 429s, outages, a refusal at
// consent, requests held at a gate).

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  headers: Record<string, string>
  /** Form or JSON bodies parsed to an object, anything else as text. */
  body: unknown
}

export interface ConnectorFake {
  baseUrl: string
  clientId: string
  clientSecret: string
  /** <PROVIDER>_CLIENT_ID, _CLIENT_SECRET, _AUTH_URL, _TOKEN_URL, _API_URL (and _REVOKE_URL where there is one) for this fake. */
  env: Record<string, string>
  requests: RecordedRequest[]
  /** Every access token issued so far stops working (the API's 401) until a refresh issues a new one. */
  expireAccessTokens(): void
  /** Tokens revoked through the revoke endpoint (always empty for a provider without one). */
  revokedTokens: string[]
  /** The next n API requests answer 429 with Retry-After: seconds. */
  rateLimitNext(n: number, retryAfterSeconds?: number): void
  /** Every API request answers `status` until called with null. */
  failApi(status: number | null): void
  /** The next authorize is refused by the user (error=access_denied back to redirect_uri). */
  denyNextConsent(): void
  /** API requests wait on the promise set when they arrive (null = no gate). */
  gateApi(gate: Promise<void> | null): void
  stop(): Promise<void>
}
