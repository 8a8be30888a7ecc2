// The edge rule for every request, before any route sees it: what cannot be stored or parsed safely never
// gets past here. One rule everywhere: such input is refused with a 400 naming the field, never stripped
// silently (a client that sent a NUL learns it, rather than finding different text stored).
// - strings (body, query, path parameters, object keys) must be well-formed Unicode without NUL (U+0000):
//   PostgreSQL cannot store NUL in text or JSON, and an unpaired surrogate is not Unicode at all;
// - JSON may nest at most MAX_JSON_DEPTH levels: deeper input can exhaust the embedded database's stack
//   (db/pglite-guard.ts) and no field of this API needs it;
// - numbers must be finite (`1e309` parses as Infinity, which JSON cannot store);
// - a path must not end with "/": the URL parser resolves "." and ".." segments (also encoded, %2e%2e)
//   before routing, so `DELETE /api/documents/X/links/..` arrives as `DELETE /api/documents/X/`; refusing
//   the trailing slash keeps an id that is not an id from changing which route runs;
// - request line and headers together stay under MAX_HEADER_BYTES (431 with `{ error }`; Bun's own limit,
//   which answers with an empty body, is set above it);
// - a body is sent as itself: a Content-Encoding other than identity (gzip, br, deflate, zstd…) is 415, since
//   the server decodes none and would otherwise read compressed bytes as malformed JSON (a 400 that hides why).
import { Elysia } from 'elysia'
import { drainBody } from './drain'
import { AppError, badRequest, notFound } from './errors'

export const MAX_JSON_DEPTH = 32
// Room for the longest search query in the URL: q is accepted up to 16,384 characters, and one of 4 UTF-8 bytes
// is 12 percent-encoded, so 192 KiB; past this limit a query is refused whole, before its length can be named.
export const MAX_HEADER_BYTES = 256 * 1024

/** What is wrong with one value, or null: the first problem found, named by its path. */
export function inputProblem(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return stringProblem(value, path)
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path} must be a finite number`
  if (value === null || typeof value !== 'object' || value instanceof Blob) return null
  // Checked before descending, so even a value nested 100,000 deep costs at most MAX_JSON_DEPTH frames.
  if (depth >= MAX_JSON_DEPTH) return `${path} is nested more than ${MAX_JSON_DEPTH} levels deep`
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = inputProblem(value[i], `${path}[${i}]`, depth + 1)
      if (problem) return problem
    }
    return null
  }
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = stringProblem(key, `a key of ${path}`)
    if (keyProblem) return keyProblem
    const problem = inputProblem(item, `${path}.${key}`, depth + 1)
    if (problem) return problem
  }
  return null
}

function stringProblem(value: string, path: string): string | null {
  if (value.includes('\u0000')) return `${path} contains a NUL character (U+0000), which cannot be stored`
  if (!value.isWellFormed()) return `${path} contains an unpaired UTF-16 surrogate: it is not valid Unicode`
  return null
}

/** Percent-encoding that does not decode to UTF-8 (`%FF`, or `%ED%BF%BF`, a surrogate's bytes) would be read
 * as U+FFFD by the router and the query parser: the text the client meant is unknowable, so it is refused. */
function encodingProblem(pathname: string, search: string): string | null {
  if (!decodes(pathname)) return 'the path is not valid percent-encoded UTF-8'
  for (const pair of search.slice(1).split('&')) {
    const [name = '', value = ''] = pair.split('=', 2)
    if (!decodes(name)) return 'a query parameter name is not valid percent-encoded UTF-8'
    if (!decodes(value)) return `query.${decodeURIComponent(name)} is not valid percent-encoded UTF-8`
  }
  return null
}

function decodes(component: string): boolean {
  if (!component.includes('%')) return true
  try {
    // A "%" that starts no escape (`%ZZ`, a trailing `%`) is read as itself, as browsers and the router do.
    decodeURIComponent(component.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'))
    return true
  } catch {
    return false
  }
}

/** Request line plus headers, as HTTP/1.1 sends them ("name: value\r\n"). */
function headerBytes(request: Request): number {
  let size = request.method.length + request.url.length + 12
  request.headers.forEach((value, name) => (size += name.length + value.length + 4))
  return size
}

/** The codings applied to the body other than identity, as the client named them; null when there are none. */
function bodyEncoding(request: Request): string | null {
  const header = request.headers.get('content-encoding')
  if (header === null) return null
  const codings = header
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c.toLowerCase() !== 'identity')
  return codings.length ? codings.join(', ').slice(0, 100) : null
}

export function inputGuard() {
  return new Elysia({ name: 'input-guard' })
    .onRequest(async ({ request }) => {
      if (headerBytes(request) > MAX_HEADER_BYTES)
        throw new AppError(431, `request line and headers are larger than ${MAX_HEADER_BYTES} bytes`)
      const encoding = bodyEncoding(request)
      if (encoding) {
        await drainBody(request.body)
        throw new AppError(415, `Content-Encoding ${encoding} is not supported: send the body uncompressed`)
      }
      const { pathname, search } = new URL(request.url)
      if (pathname.length > 1 && pathname.endsWith('/')) {
        throw notFound(`no route for ${request.method} ${pathname}: a path never ends with "/" here (an id of "." or ".." is not an id)`)
      }
      const problem = encodingProblem(pathname, search)
      if (problem) throw badRequest(problem)
    })
    .onTransform({ as: 'global' }, ({ body, query, params }) => {
      const problem = inputProblem(body, 'body') ?? inputProblem(query, 'query') ?? inputProblem(params, 'params')
      if (problem) throw badRequest(problem)
    })
}
