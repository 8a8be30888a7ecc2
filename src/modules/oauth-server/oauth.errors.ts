// OAuth's own error shape (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009): `{ error: <code>, error_description }`.
// The OAuth endpoints answer in it, not in the service's `{ error: <message> }`, because OAuth clients
// (the MCP SDK among them) read `error` as a code and pick their recovery from it.
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'unsupported_token_type'
  | 'access_denied'
  | 'unsupported_response_type'

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = code === 'invalid_client' ? 401 : 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description)
  }
}

/** Token, registration and revocation answers are never cached (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }

export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...headers },
  })
}

export function oauthErrorResponse(error: OAuthError): Response {
  return oauthJson({ error: error.code, error_description: error.description }, error.status, error.headers)
}

/** Runs an endpoint's work; an OAuthError becomes its RFC answer, anything else goes to the app's error handler. */
export async function answerOAuth(work: () => Promise<Response>): Promise<Response> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error)
    throw error
  }
}
