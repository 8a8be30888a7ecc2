// Zip in and out for the account archive, with fflate (pure JavaScript, streaming): the writer turns entries into
// a ReadableStream produced only as fast as the client reads it; the reader checks the zip's directory (names,
// count, declared sizes) before inflating anything, so a zip bomb or a `../` name is refused at no cost.
import { crc32, deflateRawSync } from 'node:zlib'
import { unzipSync, Zip, ZipDeflate, type ZipInputFile } from 'fflate'
import { badRequest } from '../../http/errors'
import { MAX_ENTRIES, MAX_INFLATED_BYTES } from './archive-format'

const encoder = new TextEncoder()

/**
 * A zip written as a stream: `steps` writes entries through the writer and yields after each page it read; the
 * stream pulls the next step only when the client has taken what the previous one wrote.
 */
export function zipStream(
  steps: (zip: ZipWriter) => AsyncGenerator<unknown>,
  onError: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  let pending: Uint8Array[] = []
  const zip = new Zip((error, chunk) => {
    if (error) throw error
    pending.push(chunk)
  })
  const writer = new ZipWriter(zip)
  const run = steps(writer)
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          // Pages that wrote nothing the zip let out yet (a small entry still deflating) are followed by the next.
          while (pending.length === 0) {
            const { done } = await run.next()
            if (done) {
              zip.end()
              break
            }
          }
        } catch (error) {
          onError(error)
          controller.error(error)
          return
        }
        const out = pending
        pending = []
        for (const chunk of out) controller.enqueue(chunk)
        if (writer.ended) controller.close()
      },
      async cancel() {
        await run.return(undefined)
      },
    },
    { highWaterMark: 0 },
  )
}

export class ZipWriter {
  ended = false
  constructor(private readonly zip: Zip) {
    const end = zip.end.bind(zip)
    zip.end = () => {
      this.ended = true
      end()
    }
  }

  /** An entry written in parts (a .jsonl file a page at a time); only one is open at a time. */
  open(name: string): { write: (text: string) => void; close: () => void } {
    const file = new ZipDeflate(name, { level: 6 })
    this.zip.add(file)
    return { write: (text) => file.push(encoder.encode(text)), close: () => file.push(new Uint8Array(0), true) }
  }

  /**
   * A whole entry, deflated here (node:zlib) unless `compress` is false (an original's image or PDF is stored as it
   * is). Not a ZipDeflate: the zip keeps every entry it was given for its directory, and a ZipDeflate carries its
   * deflater's buffers (~100 KiB), which made a 10,000-document export hold 1.8 GiB; this entry carries its name and sums.
   */
  file(name: string, data: string | Uint8Array, compress = true): void {
    const bytes = typeof data === 'string' ? encoder.encode(data) : data
    const entry: ZipInputFile = {
      filename: name,
      size: bytes.byteLength,
      crc: crc32(bytes),
      compression: compress ? 8 : 0,
      ondata: () => {},
    }
    this.zip.add(entry)
    const packed = compress ? deflateRawSync(bytes, { level: 6 }) : bytes
    entry.ondata?.(null, packed as Uint8Array<ArrayBuffer>, true)
  }
}

export interface ZipEntryInfo {
  name: string
  /** Declared in the zip's directory: what inflating it may produce, at most. */
  size: number
}

/** The entries of `bytes` from its directory, checked: a readable zip, names safe and unique, count and sizes bounded. */
export function listZip(bytes: Uint8Array): ZipEntryInfo[] {
  const entries: ZipEntryInfo[] = []
  try {
    unzipSync(bytes, {
      filter: (file) => {
        if (entries.length >= MAX_ENTRIES) throw badRequest(`the archive holds more than ${MAX_ENTRIES} entries`)
        if (file.compression !== 0 && file.compression !== 8)
          throw badRequest(`${file.name}: compression method ${file.compression} is not supported (store or deflate)`)
        entries.push({ name: file.name, size: file.originalSize })
        return false
      },
    })
  } catch (error) {
    if (error instanceof Error && 'status' in error) throw error
    throw badRequest('the file is not a readable zip archive')
  }
  const seen = new Set<string>()
  for (const { name } of entries) {
    const problem = unsafeName(name)
    if (problem) throw badRequest(`${JSON.stringify(name)}: ${problem}`)
    if (seen.has(name)) throw badRequest(`${JSON.stringify(name)}: the archive holds two entries of this name`)
    seen.add(name)
  }
  return entries
}

/** Why a zip entry's name is refused, or null: absolute, a `..` segment, a backslash or a control character. */
function unsafeName(name: string): string | null {
  if (name.length === 0 || name.length > 1024) return 'an entry name must be 1 to 1024 characters'
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'an absolute path is not allowed'
  if (name.includes('\\')) return 'a backslash is not allowed in an entry name'
  if (name.split('/').some((part) => part === '..' || part === '.')) return 'a "." or ".." segment is not allowed (path traversal)'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name) || !name.isWellFormed()) return 'an entry name must be text without control characters'
  return null
}

/**
 * Inflates the entries `wanted` chooses, after checking that what they declare adds up to at most
 * MAX_INFLATED_BYTES. Each is inflated into a buffer of its declared size, so an entry lying about it cannot grow
 * past that (its text then fails to parse, naming it).
 */
export function readZip(bytes: Uint8Array, entries: ZipEntryInfo[], wanted: (name: string) => boolean): Map<string, Uint8Array> {
  let total = 0
  for (const entry of entries) {
    if (!wanted(entry.name)) continue
    total += entry.size
    if (total > MAX_INFLATED_BYTES)
      throw badRequest(
        `${entry.name}: the archive's entries inflate to more than ${MAX_INFLATED_BYTES} bytes (a zip bomb is refused unread)`,
      )
  }
  try {
    return new Map(Object.entries(unzipSync(bytes, { filter: (file) => wanted(file.name) })))
  } catch {
    throw badRequest('an entry of the archive could not be inflated (a damaged zip)')
  }
}
