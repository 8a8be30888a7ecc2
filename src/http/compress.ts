// Response compression at the serving layer (serveApp), so every response the process serves gets it — JSON,
// the OpenAPI document, the explorer's and the dashboard's static assets: br or gzip as Accept-Encoding's
// q-values choose (br on a tie), `Vary: Accept-Encoding` on every compressible type. Never an event stream
// (compressing one would hold back its events), never a tiny body, an image or an already-encoded one.
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'

/** Below this, compression costs more than it saves (a typical `{ error }` body or a small object). */
export const MIN_COMPRESS_BYTES = 1024
const COMPRESSIBLE = /^(text\/(?!event-stream)|application\/(json|[\w.+-]+\+json|javascript|xml|[\w.+-]+\+xml)|image\/svg\+xml)/i
type Encoding = 'br' | 'gzip'

const brotli = promisify(brotliCompress)
const gzipAsync = promisify(gzip)
// Quality 5 compresses about as well as gzip -9 at a fraction of brotli's default (11) cost, fine per request.
const encoders: Record<Encoding, (bytes: Uint8Array) => Promise<Uint8Array>> = {
  br: (bytes) => brotli(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }),
  gzip: (bytes) => gzipAsync(bytes, { level: 6 }),
}

/** Publicly cacheable bodies (static assets) are compressed once per content and encoding. */
const assetCache = new Map<string, Uint8Array>()
const ASSET_CACHE_ENTRIES = 64

/** The coding Accept-Encoding prefers among br and gzip, or null (identity). RFC 9110 §12.5.3. */
export function chooseEncoding(header: string | null): Encoding | null {
  if (!header) return null
  const q: Record<string, number> = {}
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';')
    const weight = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    q[name === 'x-gzip' ? 'gzip' : name] = weight === undefined ? 1 : Number(weight)
  }
  const of = (coding: Encoding) => q[coding] ?? q['*'] ?? 0
  const best = (['br', 'gzip'] as const).reduce<Encoding | null>((a, b) => (of(b) > (a ? of(a) : 0) ? b : a), null)
  return best && of(best) > 0 ? best : null
}

/** `response`, compressed for `request` when that is worth it. */
export async function compressResponse(request: Request, response: Response): Promise<Response> {
  const type = response.headers.get('content-type') ?? ''
  if (!COMPRESSIBLE.test(type) || !response.body || response.status === 204 || response.status === 304 || response.status === 206)
    return response
  if (response.headers.has('content-encoding') || /\bno-transform\b/i.test(response.headers.get('cache-control') ?? '')) return response
  const headers = new Headers(response.headers)
  appendVary(headers, 'Accept-Encoding')
  const encoding = request.method === 'HEAD' ? null : chooseEncoding(request.headers.get('accept-encoding'))
  const declared = Number(response.headers.get('content-length') ?? NaN)
  if (!encoding || declared < MIN_COMPRESS_BYTES)
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
  const bytes = new Uint8Array(await response.arrayBuffer())
  if (bytes.byteLength < MIN_COMPRESS_BYTES)
    return new Response(bytes, { status: response.status, statusText: response.statusText, headers })
  const encoded = await encode(
    encoding,
    bytes,
    /\bpublic\b/i.test(headers.get('cache-control') ?? '') ? new URL(request.url).pathname : null,
  )
  headers.set('content-encoding', encoding)
  headers.delete('content-length')
  // Each coding is its own representation: a strong ETag gets the coding as a suffix (If-Match and
  // If-None-Match strip it again, src/http/etag.ts).
  const etag = headers.get('etag')
  if (etag && !etag.startsWith('W/')) headers.set('etag', etag.replace(/"$/, `-${encoding}"`))
  return new Response(encoded as Uint8Array<ArrayBuffer>, { status: response.status, statusText: response.statusText, headers })
}

async function encode(encoding: Encoding, bytes: Uint8Array, cacheAs: string | null): Promise<Uint8Array> {
  if (cacheAs === null) return encoders[encoding](bytes)
  const key = `${encoding} ${cacheAs} ${bytes.byteLength} ${Bun.hash(bytes)}`
  let encoded = assetCache.get(key)
  if (!encoded) {
    encoded = await encoders[encoding](bytes)
    if (assetCache.size >= ASSET_CACHE_ENTRIES) assetCache.delete(assetCache.keys().next().value!)
    assetCache.set(key, encoded)
  }
  return encoded
}

function appendVary(headers: Headers, name: string): void {
  const vary = headers.get('vary')
  if (!vary) headers.set('vary', name)
  else if (!vary.split(',').some((v) => v.trim().toLowerCase() === name.toLowerCase() || v.trim() === '*'))
    headers.set('vary', `${vary}, ${name}`)
}
