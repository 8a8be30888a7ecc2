// Which format an uploaded file is, decided by its bytes (magic numbers, a zip's entries) and checked against its name.
import { UnreadableFile } from './extracted'
import { FORMAT_CONTENT_TYPES, FORMAT_NAMES, type FileFormat } from './formats'
import { isZip, listZipEntries, readZipEntries } from './zip-entries'

export type { FileFormat } from './formats'
export { FORMAT_CONTENT_TYPES } from './formats'

export const ACCEPTED_FORMATS = 'PDF, DOCX, PPTX, XLSX, CSV, HTML, Markdown, plain text, EPUB, ODT, ODP, ODS'

const TEXT_FORMATS = new Set<FileFormat>(['csv', 'html', 'markdown', 'text'])

const EXTENSIONS: Record<string, FileFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  pptx: 'pptx',
  xlsx: 'xlsx',
  csv: 'csv',
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  text: 'text',
  epub: 'epub',
  odt: 'odt',
  odp: 'odp',
  ods: 'ods',
}

const CONTENT_TYPES: Record<string, FileFormat> = {
  'text/csv': 'csv',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
}

/** A binary kind this library does not read, recognized by its first bytes, and what to tell the person. */
const REFUSED: { kind: string; test: (b: Uint8Array) => boolean; advice?: string }[] = [
  { kind: 'an image', test: (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47]) },
  { kind: 'an image', test: (b) => startsWith(b, [0xff, 0xd8, 0xff]) },
  { kind: 'an image', test: (b) => ascii(b, 0, 4) === 'GIF8' },
  { kind: 'an image', test: (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP' },
  { kind: 'an image', test: (b) => ascii(b, 4, 8) === 'ftyp' && /^(heic|heix|mif1|avif)/.test(ascii(b, 8, 12)) },
  { kind: 'an image', test: (b) => startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a]) },
  { kind: 'an image', test: (b) => ascii(b, 0, 2) === 'BM' && b.length > 26 && b[14] !== undefined && b[14] >= 12 },
  {
    kind: 'an old-format or password-protected Office file',
    test: (b) => startsWith(b, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
    advice: 'remove its password, or save it as DOCX, XLSX or PPTX, and upload it again',
  },
  {
    kind: 'a compressed archive',
    test: (b) => startsWith(b, [0x1f, 0x8b]) || ascii(b, 0, 4) === '7z\xbc\xaf' || ascii(b, 0, 4) === 'Rar!',
  },
  { kind: 'audio or video', test: (b) => ascii(b, 4, 8) === 'ftyp' || ascii(b, 0, 3) === 'ID3' || ascii(b, 0, 4) === 'OggS' },
  { kind: 'a program', test: (b) => ascii(b, 0, 2) === 'MZ' || ascii(b, 0, 4) === '\x7fELF' },
]

const startsWith = (b: Uint8Array, magic: number[]) => magic.every((byte, i) => b[i] === byte)
const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to))

/** What the bytes are, without the name; a string naming them when they are nothing this library reads. */
function formatOfBytes(bytes: Uint8Array): FileFormat | { kind: string; advice?: string } {
  if (ascii(bytes, 0, 1024).includes('%PDF-')) return 'pdf'
  if (isZip(bytes)) return formatOfZip(bytes)
  const refused = REFUSED.find((r) => r.test(bytes))
  if (refused) return refused
  const text = decodeUtf8(bytes)
  if (text === undefined) return { kind: 'binary data, not UTF-8 text' }
  return looksLikeHtml(text) ? 'html' : 'text'
}

function formatOfZip(bytes: Uint8Array): FileFormat | { kind: string } {
  const entries = listZipEntries(bytes)
  if (!entries) return { kind: 'a damaged zip archive' }
  const names = new Set(entries.map((e) => e.name))
  if (names.has('word/document.xml')) return 'docx'
  if (names.has('ppt/presentation.xml')) return 'pptx'
  if (names.has('xl/workbook.xml')) return 'xlsx'
  const mimetype = entries.find((e) => e.name === 'mimetype' && e.originalSize < 200)
  if (mimetype) {
    const declared = new TextDecoder().decode(readZipEntries(bytes, (name) => name === 'mimetype').mimetype).trim()
    if (declared === 'application/epub+zip') return 'epub'
    if (declared === FORMAT_CONTENT_TYPES.odt) return 'odt'
    if (declared === FORMAT_CONTENT_TYPES.odp) return 'odp'
    if (declared === FORMAT_CONTENT_TYPES.ods) return 'ods'
  }
  return { kind: 'a zip archive' }
}

/** Valid UTF-8 without NUL bytes, its byte-order mark dropped; undefined otherwise. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
    return text.includes('\u0000') ? undefined : text
  } catch {
    return undefined
  }
}

const looksLikeHtml = (text: string) => /^\s*(<!--[\s\S]*?-->\s*)*(<!doctype html|<html[\s>])/i.test(text.slice(0, 4096))

const extensionOf = (filename: string) => /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase()

/** "a PDF", "an XLSX": an acronym takes the article of its first letter's sound. */
const withArticle = (name: string) => (/^[AEFHILMNORSX][A-Z]/.test(name) ? `an ${name}` : `a ${name}`)
const describe = (found: FileFormat) => (TEXT_FORMATS.has(found) ? 'text' : withArticle(FORMAT_NAMES[found]))
const notA = (filename: string, format: FileFormat) => `${filename} is not ${withArticle(FORMAT_NAMES[format])} file`

/**
 * Reads the bytes (magic numbers; for zip containers the entries, e.g. word/document.xml) and the file name;
 * throws UnreadableFile naming a mismatch ("report.docx is not a DOCX file: its bytes are a PDF") or a type
 * that is not read. Text formats are valid UTF-8 (a BOM is fine), told apart by extension (then by content
 * type; an HTML-looking text without either is HTML).
 */
export function sniffFormat(bytes: Uint8Array, filename: string, contentType?: string): FileFormat {
  if (bytes.length === 0) throw new UnreadableFile(`${filename} is empty`)
  const found = formatOfBytes(bytes)
  const byName = EXTENSIONS[extensionOf(filename) ?? '']
  if (typeof found !== 'string') {
    const advice = 'advice' in found && found.advice ? `${found.advice}; ` : ''
    const what = byName
      ? `${notA(filename, byName)}: its bytes are ${found.kind}`
      : found.kind === 'an image'
        ? `images are not read (${filename} is one; scanned text is not recognized)`
        : `${filename} is ${found.kind}, which is not read`
    throw new UnreadableFile(`${what}: ${advice}accepted: ${ACCEPTED_FORMATS}`)
  }
  if (TEXT_FORMATS.has(found)) {
    if (byName && !TEXT_FORMATS.has(byName)) throw new UnreadableFile(`${notA(filename, byName)}: its bytes are text`)
    if (byName) return byName
    const byType = CONTENT_TYPES[(contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '']
    return byType ?? found
  }
  if (byName && byName !== found) throw new UnreadableFile(`${notA(filename, byName)}: its bytes are ${describe(found)}`)
  return found
}
