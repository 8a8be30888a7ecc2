// A zip container's entries read from its central directory (fflate), before anything is inflated, and the
// guards a DOCX, XLSX, PPTX, ODF or EPUB passes before a parser opens it: zip bombs and XML entity bombs.
import { type UnzipFileInfo, unzipSync } from 'fflate'
import { UnreadableFile } from './extracted'

export interface ZipEntry {
  name: string
  /** Compressed bytes. */
  size: number
  /** Bytes once inflated, as the central directory states them. */
  originalSize: number
}

const MiB = 1024 * 1024
/** Past this inflated size an entry's ratio is checked: small entries of repeated markup compress well. */
const RATIO_CHECKED_FROM = 1 * MiB
/** Text and XML compress 5–20:1; far past that is an entry made to blow up (Apache POI's default bound too). */
const MAX_RATIO = 100

export const isZip = (bytes: Uint8Array) => bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04

/** The entries the central directory lists; undefined when the bytes are no readable zip. */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] | undefined {
  const entries: ZipEntry[] = []
  try {
    unzipSync(bytes, {
      filter: (file: UnzipFileInfo) => {
        entries.push({ name: file.name, size: file.size, originalSize: file.originalSize })
        return false
      },
    })
  } catch {
    return undefined
  }
  return entries
}

/** Inflates the named entries only (each already bounded by checkZipBomb). */
export function readZipEntries(bytes: Uint8Array, wanted: (name: string) => boolean): Record<string, Uint8Array> {
  return unzipSync(bytes, { filter: (file) => wanted(file.name) })
}

/** Refuses an archive whose entries would inflate past maxUnpackedBytes, or any large entry past 100:1. */
export function checkZipBomb(entries: ZipEntry[], maxUnpackedBytes: number): void {
  const total = entries.reduce((sum, e) => sum + e.originalSize, 0)
  const bomb = entries.find((e) => e.originalSize > RATIO_CHECKED_FROM && e.originalSize > MAX_RATIO * Math.max(e.size, 1))
  if (total > maxUnpackedBytes) throw zipBomb(maxUnpackedBytes)
  if (bomb) {
    const ratio = Math.round(bomb.originalSize / Math.max(bomb.size, 1))
    throw new UnreadableFile(`its part ${bomb.name} unpacks to ${ratio} times its size: a zip bomb is not read`)
  }
}

export const zipBomb = (maxUnpackedBytes: number) =>
  new UnreadableFile(`unpacks to more than ${Math.max(1, Math.floor(maxUnpackedBytes / MiB))} MiB: a zip bomb is not read`)

const XML_PART = /\.(xml|rels|opf|ncx|xhtml|html?|svg)$/i
const ENTITY = /<!ENTITY/i
const DOCTYPE = /<!DOCTYPE/i

/**
 * Refuses XML parts that declare entities (a billion-laughs file expands a few kilobytes into gigabytes).
 * An EPUB chapter may carry `<!DOCTYPE html>` without an internal subset; an Office part never has a DOCTYPE.
 */
export function checkXmlDeclarations(bytes: Uint8Array, allowPlainDoctype: boolean): void {
  const parts = readZipEntries(bytes, (name) => XML_PART.test(name))
  const decoder = new TextDecoder()
  for (const [name, data] of Object.entries(parts)) {
    const text = decoder.decode(data)
    const doctype = DOCTYPE.exec(text)
    const declares = ENTITY.test(text) || (doctype && (!allowPlainDoctype || /^<!DOCTYPE[^>[]*\[/i.test(text.slice(doctype.index))))
    if (declares) throw new UnreadableFile(`its part ${name} declares XML entities (a "billion laughs" file): it is not read`)
  }
}
