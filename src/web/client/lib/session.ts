// Who is signed in, for every screen: loaded once from /api/auth/session, cleared on sign-out or on any 401
// (which sends the person to sign-in and, after it, back where they were).
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { BASE, navigate, withQuery } from './router'

export type User = paths['/api/auth/session']['get']['responses']['200']['content']['application/json']['user']

/** undefined: not known yet; null: signed out. */
let current: User | null | undefined
const listeners = new Set<() => void>()
const notify = () => listeners.forEach((listener) => listener())

export function setUser(user: User | null): void {
  current = user
  notify()
}

export async function loadSession(): Promise<void> {
  try {
    setUser((await unwrap(api.GET('/api/auth/session'))).user)
  } catch {
    setUser(null)
  }
}

export function useUser(): User | null | undefined {
  const [user, set] = useState(current)
  useEffect(() => {
    const update = () => set(current)
    listeners.add(update)
    update()
    return () => void listeners.delete(update)
  }, [])
  return user
}

export const SIGN_IN = `${BASE}/sign-in`
export const SIGN_UP = `${BASE}/sign-up`

/** The sign-in page, remembering where to come back to (only a path of this app: never another site). */
export function signInPath(next = location.pathname + location.search): string {
  return withQuery(SIGN_IN, {
    next: next.startsWith(`${BASE}/`) && !next.startsWith(SIGN_IN) && !next.startsWith(SIGN_UP) ? next : undefined,
  })
}

/** Where to go after signing in: the remembered page of this app, or the consent page of an MCP client's
 * authorization request (/oauth/authorize?…, which sends the person to sign in first), else Home. */
export function afterSignIn(query: URLSearchParams): string {
  const next = query.get('next') ?? ''
  if (/^\/oauth\/authorize\?[^\\]*$/.test(next)) return next
  return /^\/app(\/[^/\\]|$)/.test(next) && !next.startsWith('//') ? next : BASE
}

/** A 401 anywhere: the session ended; sign in again and come back. */
export function sessionExpired(): void {
  // Signed out already (a wrong password on the sign-in form is a 401 too): nothing to end, nowhere to go.
  if (current === null) return
  const target = signInPath()
  setUser(null)
  navigate(target, { replace: true })
}
