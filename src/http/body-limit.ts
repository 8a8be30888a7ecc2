// Request bodies over the limit get 413 `{ error }` from the app itself, with or without Content-Length.
import { Elysia } from 'elysia'
import { badRequest, payloadTooLarge } from './errors'

export const MAX_BODY_BYTES = 2 * 1024 * 1024

/** JSON bodies exactly as received, for the routes that must verify a signature over the bytes (webhooks). */
const rawBodies = new WeakMap<Request, Uint8Array>()
export const rawBodyOf = (request: Request): Uint8Array | undefined => rawBodies.get(request)

export function bodyLimit(maxBytes = MAX_BODY_BYTES) {
  return new Elysia({ name: 'body-limit' }).onParse({ as: 'global' }, async ({ request, contentType }) => {
    if (!contentType?.startsWith('application/json')) return
    const bytes = new Uint8Array(await request.arrayBuffer())
    if (bytes.byteLength > maxBytes) throw payloadTooLarge(`request body is larger than ${maxBytes} bytes`)
    rawBodies.set(request, bytes)
    if (bytes.byteLength === 0) return undefined
    try {
      return JSON.parse(new TextDecoder().decode(bytes))
    } catch {
      throw badRequest('request body is not valid JSON')
    }
  })
}
