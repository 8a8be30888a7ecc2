// Which redirect URIs a client may register (RFC 8252 for native apps, OAuth 2.1 §2.3.1) and how an
// authorization request's redirect_uri is matched against them.

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/** Schemes a browser would run, read or hand to another program in a way no OAuth client means by a redirect. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:', 'ftp:', 'ws:', 'wss:'])

export const MAX_REDIRECT_URIS = 10
const MAX_URI_LENGTH = 2000

/**
 * Why `uri` cannot be a redirect URI, or null when it can: https anywhere; http only to the loopback interface
 * (a native app's local listener, RFC 8252 §7.3); or a private-use scheme (`cursor://…`, `com.example.app:/cb`,
 * RFC 8252 §7.1). Never a fragment (RFC 6749 §3.1.2).
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_URI_LENGTH) return `redirect URI longer than ${MAX_URI_LENGTH} characters`
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `redirect URI ${uri} is not an absolute URI`
  }
  if (url.hash || uri.includes('#')) return `redirect URI ${uri} must not have a fragment`
  if (url.username || url.password) return `redirect URI ${uri} must not carry credentials`
  if (url.protocol === 'https:') return url.hostname ? null : `redirect URI ${uri} has no host`
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : `redirect URI ${uri} uses http on a host other than the loopback interface (localhost, 127.0.0.1, [::1]); use https`
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `redirect URI ${uri} uses the scheme ${url.protocol} which cannot be a redirect`
  return null
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
