// Serving the app over HTTP with Bun.serve: request paths that are not in normal form refused, every
// response compressed as the client accepts (compress.ts), and each request's socket peer recorded for
// clientAddress (client-address.ts).
//
// Why: Bun builds `request.url` with the URL parser, which resolves "." and ".." segments (also spelt
// %2e), reads "\" as "/" and cuts the path at "#" — before the app sees anything. A client that interpolates
// an id into a path template, say `DELETE /api/documents/${doc}/links/${target}` with target "..", would
// then reach another route entirely (`DELETE /api/documents/${doc}`). Bun.serve's own `routes`, though,
// match the raw request-target and hand over its segments as params: every path of up to MAX_SEGMENTS
// segments is routed through one of them, and served only when its raw segments are exactly the segments
// of the URL the app will see. A path that reaches the fallback with fewer segments than that was longer
// before the parser shortened it, so it is refused too.
//
// The Host header never chooses the route: the app finds the path in `http://<host>/…` whatever the host
// (app.ts, standardHostname), and when Bun leaves the URL relative — no Host, as HTTP/1.0 allows (a load
// balancer's health check), or a Host that is no host name — the first is served on a placeholder host and the
// second refused with a 400, as RFC 9112 §3.2 asks, rather than failing with a 500.
import type { Server } from 'bun'
import { recordPeer } from './client-address'
import { compressResponse } from './compress'
import { errorResponse } from './error-codes'

const MAX_SEGMENTS = 16

/** The app's own limit (2 MiB) is enforced as the body streams in, with a 413 `{ error }`; Bun's, which answers
 * with an empty body, is set out of the way. */
const BUN_BODY_LIMIT = Number.MAX_SAFE_INTEGER

type Fetch = (request: Request, server: Server<undefined>) => Response | Promise<Response>

export function serveApp(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  options: { port: number; hostname?: string },
): Server<undefined> {
  const fetch: Fetch = async (request, server) => {
    recordPeer(request, server)
    return compressResponse(request, await app.fetch(request))
  }
  const routes: Record<
    string,
    (request: Request & { params: Record<string, string> }, server: Server<undefined>) => Response | Promise<Response>
  > = {}
  let pattern = ''
  for (let i = 1; i <= MAX_SEGMENTS; i++) {
    pattern += `/:s${i}`
    routes[pattern] = (request, server) => {
      const absolute = withHost(request)
      if (absolute instanceof Response) return absolute
      return isNormal(absolute, Object.values(request.params)) ? fetch(absolute, server) : notNormal(absolute)
    }
  }
  return Bun.serve({
    ...options,
    maxRequestBodySize: BUN_BODY_LIMIT,
    routes,
    fetch(request, server) {
      const absolute = withHost(request)
      if (absolute instanceof Response) return absolute
      const segments = new URL(absolute.url).pathname.split('/').length - 1
      return segments <= 1 || segments > MAX_SEGMENTS ? fetch(absolute, server) : notNormal(absolute)
    },
  })
}

/** The request with an absolute URL: as Bun made it, or on a placeholder host when it had no Host; a 400 when
 * its Host is not a host. */
function withHost(request: Request): Request | Response {
  if (URL.canParse(request.url)) return request
  const url = `http://localhost${request.url.startsWith('/') ? '' : '/'}${request.url}`
  if (!request.headers.has('host')) return new Request(url, request)
  return errorResponse(
    new Request(url),
    400,
    'the Host header is not a host name or address (RFC 9112 §3.2): send the one the service is reached at',
  )
}

/** The raw segments (as Bun's router split and decoded them) are the parsed URL's segments. */
function isNormal(request: Request, raw: string[]): boolean {
  const parsed = new URL(request.url).pathname.split('/').slice(1)
  return raw.length === parsed.length && raw.every((segment, i) => segment === decode(parsed[i]!))
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

function notNormal(request: Request): Response {
  return errorResponse(
    request,
    400,
    'the request path is not in normal form: "." and ".." segments (also encoded), "\\", "#" and empty segments are not allowed, so an id that is not an id never changes which route runs',
  )
}
