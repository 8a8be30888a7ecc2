// /app: the dashboard, served by the API's own process and origin (the session cookie and the Origin rule
// apply as they are). Every /app path answers the same shell (the client routes with the History API);
// /app/assets/<name>-<hash>.<ext> are the bundle's files, cached for a year since their names change with them;
// /favicon.svg is the dashboard's icon.
import { Elysia, t } from 'elysia'
import { AppError } from '../http/errors'
import { dashboardBundle, type Asset } from './web.bundle'

/** No inline script or style, nothing from another origin, never framed (clickjacking), no <base> rewrite. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
}

const hide = { detail: { hide: true } }

async function shell(request: Request): Promise<Response> {
  const { shell } = await dashboardBundle()
  const etag = `"${Bun.hash(shell).toString(36)}"`
  const headers = { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', etag }
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers })
  return new Response(shell, { headers })
}

function asset(request: Request, file: Asset): Response {
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'content-type': file.type,
    'cache-control': 'public, max-age=31536000, immutable',
    vary: 'Accept-Encoding',
  }
  if (gzip) headers['content-encoding'] = 'gzip'
  return new Response((gzip ? file.gzip : file.body) as Uint8Array<ArrayBuffer>, { headers })
}

/** The icon browsers show for the dashboard's tabs (src/extension/icon.ts draws it; a test holds the two equal). */
const FAVICON = new URL('./favicon.svg', import.meta.url).pathname
let favicon: Promise<string> | undefined

async function faviconResponse(): Promise<Response> {
  favicon ??= Bun.file(FAVICON).text()
  const headers = { ...SECURITY_HEADERS, 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' }
  return new Response(await favicon, { headers })
}

export function webRoutes() {
  return new Elysia({ name: 'web' })
    .get('/favicon.svg', () => faviconResponse(), hide)
    .get(
      '/app/assets/:file',
      async ({ params, request }) => {
        const file = (await dashboardBundle()).assets.get(params.file)
        if (file) return asset(request, file)
        throw new AppError(
          404,
          `no dashboard asset ${params.file}: the dashboard was rebuilt since this page loaded, reload it`,
          SECURITY_HEADERS,
        )
      },
      { params: t.Object({ file: t.String() }), ...hide },
    )
    .get('/app', ({ request }) => shell(request), hide)
    .get('/app/*', ({ request }) => shell(request), hide)
}
