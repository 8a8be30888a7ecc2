// Links taken from user content are followed only when they are web or mail addresses: a `javascript:`,
// `data:` or `vbscript:` URL is shown as text, never made clickable.
const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:'])

export function safeHref(url: string | null | undefined, base = globalThis.location?.origin ?? 'http://localhost'): string | null {
  if (!url) return null
  try {
    const parsed = new URL(url.trim(), base)
    return SAFE_PROTOCOLS.has(parsed.protocol) ? parsed.href : null
  } catch {
    return null
  }
}
