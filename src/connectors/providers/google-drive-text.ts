// Which Drive files the connector can import, and how their exported or downloaded bytes become plain text: Docs
// by export, text files as they are, and PDFs, Office and OpenDocument files, EPUBs and HTML pages read by their
// bytes (src/files, as an upload is).
import { FOLDER_MIME } from './google-drive-query'

export const GOOGLE_DOC_MIME = 'application/vnd.google-apps.document'

/** Non-`text/*` types whose bytes are already readable text. */
const TEXTUAL_APPLICATION_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
])

/** Downloaded as they are (`alt=media`). HTML is left out: its markup is not plain text. */
export function isPlainType(mimeType: string): boolean {
  return (mimeType.startsWith('text/') && mimeType !== 'text/html') || TEXTUAL_APPLICATION_TYPES.has(mimeType)
}

/** Files read by their bytes, and the extension that names their format when a Drive name has none. */
export const FILE_TYPES: Record<string, string> = {
  'application/pdf': '.pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': '.docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': '.pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': '.xlsx',
  'application/vnd.oasis.opendocument.text': '.odt',
  'application/vnd.oasis.opendocument.presentation': '.odp',
  'application/vnd.oasis.opendocument.spreadsheet': '.ods',
  'application/epub+zip': '.epub',
  'text/html': '.html',
}

export const isFileType = (mimeType: string) => Object.hasOwn(FILE_TYPES, mimeType)

/** The name a file is read under: its Drive name, with the extension of its type when the name has another or none. */
export function readableName(name: string, mimeType: string): string {
  const extension = FILE_TYPES[mimeType]
  return extension && !name.toLowerCase().endsWith(extension) ? `${name}${extension}` : name
}

/**
 * Why a listed file is not imported, or undefined when it is: a text larger than the largest body, a file larger
 * than the owner's plan reads (`maxFileBytes`). Google-native files carry no `size`: a Doc's export is measured
 * while it is read instead.
 */
export function skipReasonOf(
  file: { mimeType: string; size?: string | number },
  maxBytes: number,
  maxFileBytes = maxBytes,
): string | undefined {
  if (file.mimeType === FOLDER_MIME) return 'folder'
  if (file.mimeType === GOOGLE_DOC_MIME) return undefined
  const limit = isFileType(file.mimeType) ? maxFileBytes : maxBytes
  if (!isPlainType(file.mimeType) && !isFileType(file.mimeType)) return `unsupported type ${file.mimeType}`
  const size = Number(file.size ?? 0)
  if (size > limit) return `larger than ${limit} bytes (${size} bytes)`
  return undefined
}

/** A NUL never occurs in text: such a "text" file is mislabelled binary. */
export const looksBinary = (raw: string) => raw.includes('\u0000')

/**
 * Drive's text/plain export of a Doc starts with a byte-order mark and ends lines with CRLF; uploaded files may
 * too. Both are dropped, trailing spaces cut and runs of blank lines kept to one, so the stored text (and its
 * hash) does not change with line-ending style.
 */
export function toPlainText(raw: string): string {
  return raw
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}
