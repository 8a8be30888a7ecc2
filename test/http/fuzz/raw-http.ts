// A minimal HTTP/1.1 client over a raw socket: the request line goes out byte for byte (fetch would resolve
// `%2e%2e`, reject `%ED%BF%BF` or add a content-type), so the server sees exactly what a hostile client sends.
import { connect } from 'node:net'

export interface RawRequest {
  method: string
  /** The request-target exactly as sent: path and query, already percent-encoded as the variant wants. */
  target: string
  headers?: Record<string, string>
  body?: string | Uint8Array
  /** Send the body with Transfer-Encoding: chunked and no Content-Length (the server must read to learn its size). */
  chunked?: boolean
}

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

export class RequestTimeout extends Error {}

/** Sends one request on its own connection (Connection: close) and reads the whole answer, streams included. */
export function rawRequest(base: URL, request: RawRequest, timeoutMs: number): Promise<RawResponse> {
  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body ? Buffer.from(request.body) : undefined
  const headers: Record<string, string> = { host: base.host, connection: 'close', ...request.headers }
  if (body && request.chunked) headers['transfer-encoding'] = 'chunked'
  else if (body) headers['content-length'] = String(body.byteLength)
  const head =
    `${request.method} ${request.target} HTTP/1.1\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n'

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const socket = connect({ host: base.hostname, port: Number(base.port) })
    let settled = false
    const finish = (error: Error | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      if (error) return reject(error)
      try {
        resolve(parse(Buffer.concat(chunks)))
      } catch (e) {
        reject(e as Error)
      }
    }
    const timer = setTimeout(() => finish(new RequestTimeout(`no complete answer within ${timeoutMs} ms`)), timeoutMs)
    // The body goes out piece by piece, each after the last has drained, and stops as soon as an answer begins:
    // a server may answer (413) and close before reading a body, and writing on would only hit a reset.
    const pieces: (string | Buffer)[] = [Buffer.from(head, 'latin1')]
    if (body && request.chunked) {
      for (let i = 0; i < body.byteLength; i += 64 * 1024) {
        const part = body.subarray(i, i + 64 * 1024)
        pieces.push(`${part.byteLength.toString(16)}\r\n`, part, '\r\n')
      }
      pieces.push('0\r\n\r\n')
    } else if (body) for (let i = 0; i < body.byteLength; i += 64 * 1024) pieces.push(body.subarray(i, i + 64 * 1024))
    const writeNext = () => {
      while (pieces.length && !chunks.length && !settled) if (!socket.write(pieces.shift()!)) return void socket.once('drain', writeNext)
    }
    socket.on('connect', writeNext)
    socket.on('data', (data: Buffer) => {
      chunks.push(data)
      if (complete(Buffer.concat(chunks))) finish(null)
    })
    socket.on('end', () => finish(null))
    // The server may close early (a 413 before the body is read): what was answered still counts.
    socket.on('error', (error) => (chunks.length ? finish(null) : finish(error)))
  })
}

function splitHead(bytes: Buffer): { head: string; rest: Buffer } | null {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) return null
  return { head: bytes.subarray(0, end).toString('latin1'), rest: bytes.subarray(end + 4) }
}

function parseHead(head: string) {
  const [statusLine, ...lines] = head.split('\r\n')
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1])
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status, headers }
}

/** True once the whole message is in: by Content-Length, by the last chunk, or a status with no body. */
function complete(bytes: Buffer): boolean {
  const split = splitHead(bytes)
  if (!split) return false
  const { status, headers } = parseHead(split.head)
  if (status === 204 || status === 304) return true
  if (headers['content-length'] !== undefined) return split.rest.byteLength >= Number(headers['content-length'])
  if (headers['transfer-encoding']?.includes('chunked')) return dechunk(split.rest) !== null
  return false
}

/** The decoded body of a complete chunked message, or null while chunks are still missing. */
function dechunk(bytes: Buffer): Buffer | null {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at)
    if (lineEnd < 0) return null
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16)
    if (Number.isNaN(size)) return null
    if (size === 0) return Buffer.concat(parts)
    if (bytes.byteLength < lineEnd + 2 + size + 2) return null
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}

function parse(bytes: Buffer): RawResponse {
  const split = splitHead(bytes)
  if (!split) throw new Error(`connection closed without a complete response head (${bytes.byteLength} bytes)`)
  const { status, headers } = parseHead(split.head)
  const raw = headers['transfer-encoding']?.includes('chunked') ? (dechunk(split.rest) ?? split.rest) : split.rest
  return { status, headers, body: raw.toString('utf8') }
}
