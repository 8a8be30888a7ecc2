// 405 with `Allow` for a path the API has with another method (RFC 9110 §15.5.6), and OPTIONS on a known path
// answered 204 with `Allow`, from the app's own route table: a wrong method is told what would work, not "no route".
import type { AnyElysia } from 'elysia'
import { errorResponse } from './error-codes'
import { requestIdFor } from './request-id'

interface Pattern {
  regex: RegExp
  methods: Set<string>
}

/** Route patterns ("/api/documents/:id") as regexes, with the methods each answers (GET implies HEAD). */
function patternsOf(routes: AnyElysia['routes']): Pattern[] {
  const byPath = new Map<string, Set<string>>()
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Set<string>()
    methods.add(route.method.toUpperCase())
    if (route.method.toUpperCase() === 'GET') methods.add('HEAD')
    byPath.set(route.path, methods)
  }
  return [...byPath].map(([path, methods]) => ({
    regex: new RegExp(
      `^${path
        .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[^/]+/g, '[^/]+')
        .replace(/\*/g, '.*')}$`,
    ),
    methods,
  }))
}

/** Every method some route answers on `pathname`, in a stable order; empty for an unknown path. */
export function allowedMethods(patterns: Pattern[], pathname: string): string[] {
  const allowed = new Set<string>()
  for (const p of patterns) if (p.regex.test(pathname)) for (const m of p.methods) allowed.add(m)
  if (allowed.size) allowed.add('OPTIONS')
  return inOrder(allowed)
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const inOrder = (methods: Iterable<string>) => [...methods].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))

/** Paths routed without parameters ("/api/documents/check"), with their methods. */
function staticsOf(routes: AnyElysia['routes']): Map<string, Set<string>> {
  const statics = new Map<string, Set<string>>()
  for (const route of routes) {
    if (/[:*]/.test(route.path)) continue
    const methods = statics.get(route.path) ?? new Set<string>()
    methods.add(route.method.toUpperCase())
    if (route.method.toUpperCase() === 'GET') methods.add('HEAD')
    statics.set(route.path, methods)
  }
  return statics
}

const notAllowed = (request: Request, pathname: string, allowed: string[], headers = new Headers()) => {
  headers.set('allow', allowed.join(', '))
  return errorResponse(request, 405, `method ${request.method} is not allowed on ${pathname}; allowed: ${allowed.join(', ')}`, { headers })
}

/** The `wrap` for the root app: `routes` is read once, on the first request, when every route is mounted. */
export function methodNotAllowed(routes: () => AnyElysia['routes']) {
  let patterns: Pattern[] | undefined
  let statics: Map<string, Set<string>> | undefined
  return (fetch: unknown) =>
    async (request: Request): Promise<Response> => {
      const { pathname } = new URL(request.url)
      // A path the API routes as such names that resource, even where a parameter route would also match it:
      // PATCH /api/documents/check is a method /api/documents/check does not have (405), not a document whose id
      // "check" is not a UUID (400).
      statics ??= staticsOf(routes())
      const own = statics.get(pathname)
      if (own && !own.has(request.method) && request.method !== 'OPTIONS') {
        return notAllowed(request, pathname, inOrder([...own, 'OPTIONS']), new Headers({ 'x-request-id': requestIdFor(request) }))
      }
      const response = await (fetch as (request: Request) => Response | Promise<Response>)(request)
      if (response.status !== 404 || (request.method !== 'OPTIONS' && response.headers.get('content-type')?.includes('json') !== true))
        return response
      patterns ??= patternsOf(routes())
      const allowed = own ? inOrder([...own, 'OPTIONS']) : allowedMethods(patterns, pathname)
      if (allowed.length === 0 || (allowed.includes(request.method) && request.method !== 'OPTIONS')) return response
      void response.body?.cancel()
      const headers = new Headers(response.headers)
      headers.set('allow', allowed.join(', '))
      if (request.method === 'OPTIONS') {
        headers.delete('content-type')
        return new Response(null, { status: 204, headers })
      }
      return notAllowed(request, pathname, allowed, headers)
    }
}
