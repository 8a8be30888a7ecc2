// Request bodies over the limit get 413 `{ error }` from the app itself, with or without Content-Length:
// every body is read as a stream and refused as soon as it passes the limit (never buffered whole), then
// parsed by its content type: JSON (an object), forms and multipart uploads, text; anything else is 415.
import { Elysia } from 'elysia'
import { drainBody } from './drain'
import { AppError, badRequest, payloadTooLarge } from './errors'
import { bodyLimitFor, MAX_BODY_BYTES, ZIP_BODY_ROUTES } from './route-body-limits'

export { MAX_BODY_BYTES } from './route-body-limits'

/** JSON bodies exactly as received, for the routes that must verify a signature over the bytes (webhooks). */
const rawBodies = new WeakMap<Request, Uint8Array>()
export const rawBodyOf = (request: Request): Uint8Array | undefined => rawBodies.get(request)

const isJson = (contentType: string) => /^application\/([\w.+-]+\+)?json\b/i.test(contentType)

export function bodyLimit(maxBytes = MAX_BODY_BYTES) {
  return new Elysia({ name: 'body-limit' }).onParse({ as: 'global' }, async ({ request, contentType }) => {
    if (!request.body) return
    const bytes = await readAtMost(request.body, bodyLimitFor(request, maxBytes))
    if (bytes.byteLength === 0) return undefined
    const type = (contentType ?? '').toLowerCase()
    if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded'))
      return formFields(bytes, request.headers.get('content-type') ?? type)
    if (type.startsWith('application/zip') && ZIP_BODY_ROUTES.has(new URL(request.url).pathname))
      return { file: new File([bytes as Uint8Array<ArrayBuffer>], 'archive.zip', { type: 'application/zip' }) }
    if (type.startsWith('text/')) return new TextDecoder().decode(bytes) // refused by every route that takes an object
    if (!isJson(type)) throw new AppError(415, `content-type "${contentType ?? ''}" is not accepted: send application/json`)
    rawBodies.set(request, bytes)
    let text: string
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      throw badRequest('request body is not valid UTF-8')
    }
    let parsed: unknown
    try {
      parsed = parseJson(text)
    } catch {
      throw badRequest('request body is not valid JSON')
    }
    // Every route that takes a body takes an object; `[]`, `"x"`, `1` or `null` is never what a caller meant.
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('body: must be a JSON object')
    return parsed
  })
}

/**
 * JSON.parse, less any member named `__proto__` (at any depth). JSON.parse makes it an own property, but the
 * code after it does not: validation's cleaner takes it for a known member (`'__proto__' in {}` is true) and the
 * type check then refuses it as unexpected, and a spread or assignment would set an object's prototype. A member
 * no schema has is ignored like any other unknown member. The reviver (a call per value) runs only when the text
 * could hold that name: spelled out, or hidden in a \u escape.
 */
function parseJson(text: string): unknown {
  if (!text.includes('__proto__') && !text.includes('\\u')) return JSON.parse(text)
  return JSON.parse(text, (key, value) => (key === '__proto__' ? undefined : value))
}

/** Form fields by name: one value as itself, a repeated name as an array (files stay File objects). */
async function formFields(bytes: Uint8Array, contentType: string): Promise<Record<string, FormDataEntryValue | FormDataEntryValue[]>> {
  let form: FormData
  try {
    form = await new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), { headers: { 'content-type': contentType } }).formData()
  } catch {
    throw badRequest('request body is not a valid form (check the multipart boundary)')
  }
  const fields: Record<string, FormDataEntryValue | FormDataEntryValue[]> = {}
  for (const name of new Set(form.keys())) {
    if (name === '__proto__' || name === 'constructor' || name === 'prototype') continue
    const values = form.getAll(name)
    fields[name] = values.length === 1 ? values[0]! : values
  }
  return fields
}

/** The whole stream, or 413 as soon as it passes `maxBytes` (the rest is drained, never kept). */
async function readAtMost(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await drainBody(null, reader)
      throw payloadTooLarge(`request body is larger than ${maxBytes} bytes`)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.byteLength
  }
  return bytes
}
