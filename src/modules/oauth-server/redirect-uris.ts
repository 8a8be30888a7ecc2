// Which redirect URIs a client may register (RFC 8252 for native apps, OAuth 2.1 §2.3.1), how an authorization
// request's redirect_uri is matched against them, and how the consent page's CSP names one.

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** A DNS name or an IPv4 address, as a CSP host-source can name it (letters, digits, "-" between dots): the
 * consent page's policy names the redirect URI's origin (consent.page.ts), so nothing else may get there. */
const HOST_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/

/** RFC 8252 §7.1: a native app's private-use scheme is a domain name it controls, reversed (com.example.app). */
const REVERSE_DOMAIN_SCHEME = /^[a-z][a-z0-9+-]*(?:\.[a-z0-9+-]+)+$/

/**
 * Private-use schemes without a period, of MCP hosts that register them: Cursor's is
 * cursor://anysphere.cursor-mcp/oauth/callback. Each is a scheme only that application opens; the ones a
 * browser or the system acts on (javascript:, data:, file:, intent:, chrome:, ms-settings:…) never are.
 */
const APP_SCHEMES = new Set(['cursor'])

export const MAX_REDIRECT_URIS = 10
const MAX_URI_LENGTH = 2000

/**
 * Why `uri` cannot be a redirect URI, or null when it can: https to a host name or IPv4 address; http only to
 * the loopback interface (a native app's local listener, RFC 8252 §7.3); or a private-use scheme in
 * reverse-domain form (`com.example.app:/cb`, RFC 8252 §7.1), or one of APP_SCHEMES. Never a fragment
 * (RFC 6749 §3.1.2), credentials, spaces or anything but printable ASCII.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `redirect URI longer than ${MAX_URI_LENGTH} characters`
  if (/[^\x21-\x7e]/.test(uri))
    return `redirect URI ${JSON.stringify(uri)} must be printable ASCII (percent-encode the rest), without spaces`
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `redirect URI ${uri} is not an absolute URI`
  }
  if (url.hash || uri.includes('#')) return `redirect URI ${uri} must not have a fragment`
  if (url.username || url.password) return `redirect URI ${uri} must not carry credentials`
  if (url.protocol === 'https:') {
    return HOST_NAME.test(url.hostname) ? null : `redirect URI ${uri} must name its host by a DNS name or an IPv4 address`
  }
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : `redirect URI ${uri} uses http on a host other than the loopback interface (localhost, 127.0.0.1, [::1]); use https`
  }
  const scheme = url.protocol.slice(0, -1)
  if (REVERSE_DOMAIN_SCHEME.test(scheme) || APP_SCHEMES.has(scheme)) return null
  return `redirect URI ${uri}: the scheme ${scheme} is neither https, loopback http, nor a private-use scheme named after a domain the application controls, reversed (com.example.app:/callback, RFC 8252 §7.1)`
}

/**
 * The CSP source that lets the consent form's answer (a redirect, which browsers check against form-action)
 * reach `uri`: its origin, or its scheme for a private-use one. Built from the parsed URL and only when it
 * passes the same rules as registration, so nothing a client wrote (a ";" in a host) can add a directive.
 * Null when there is none.
 */
export function formActionSource(uri: string): string | null {
  if (redirectUriProblem(uri) !== null) return null
  const url = new URL(uri)
  // A CSP host-source cannot name an IPv6 address: the scheme is the narrowest source that admits [::1].
  if (url.protocol === 'http:' && url.hostname === '[::1]') return 'http:'
  if (url.protocol === 'https:' || url.protocol === 'http:') return `${url.protocol}//${url.hostname}${url.port ? `:${url.port}` : ''}`
  return url.protocol
}

/**
 * Whether `requested` is one of `registered`: exactly, except that a loopback http URI matches on any port,
 * since a native app listens on whatever port is free when it runs (RFC 8252 §7.3).
 */
export function matchesRegistered(requested: string, registered: string[]): boolean {
  if (registered.includes(requested)) return true
  let want: URL
  try {
    want = new URL(requested)
  } catch {
    return false
  }
  if (want.protocol !== 'http:' || !LOOPBACK_HOSTS.has(want.hostname)) return false
  return registered.some((entry) => {
    const known = new URL(entry)
    return (
      known.protocol === 'http:' && known.hostname === want.hostname && known.pathname === want.pathname && known.search === want.search
    )
  })
}

/** `uri` with OAuth's answer added to its query (RFC 6749 §4.1.2), keeping the query it had. */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri)
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  return url.href
}
