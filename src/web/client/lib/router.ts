// Path routing under /app with the History API: the current location as a hook, navigate(), and matching
// of route patterns such as /app/documents/:id.
import { useEffect, useState } from 'preact/hooks'

export const BASE = '/app'

const listeners = new Set<() => void>()
const notify = () => listeners.forEach((listener) => listener())
addEventListener('popstate', notify)

export interface Place {
  path: string
  query: URLSearchParams
  /** path + search, for "come back here after signing in". */
  href: string
}

const here = (): Place => ({
  path: location.pathname,
  query: new URLSearchParams(location.search),
  href: location.pathname + location.search,
})

export function navigate(to: string, { replace = false } = {}): void {
  if (to === location.pathname + location.search) return
  // A page the server renders (the OAuth consent page after signing in) is loaded, not routed here.
  if (to !== BASE && !to.startsWith(`${BASE}/`)) {
    if (replace) location.replace(to)
    else location.assign(to)
    return
  }
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  scrollTo(0, 0)
  notify()
}

export function usePlace(): Place {
  const [place, setPlace] = useState(here)
  useEffect(() => {
    const update = () => setPlace(here())
    listeners.add(update)
    return () => void listeners.delete(update)
  }, [])
  return place
}

/** The params of `pattern` (e.g. `/app/documents/:id`) in `path`, or null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/')
  const got = path.replace(/\/+$/, '').split('/')
  if (want.length !== got.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const part = want[i]!
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(got[i]!)
    else if (part !== got[i]) return null
  }
  return params
}

/** A URL of `path` with the query's non-empty values. */
export function withQuery(path: string, query: Record<string, string | number | undefined | null>): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value))
  const search = params.toString()
  return search ? `${path}?${search}` : path
}
