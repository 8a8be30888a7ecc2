// Which Drive files the connector can import, and how their exported or downloaded bytes become plain text.
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

/**
 * Why a listed file is not imported, or undefined when it is. Google-native files carry no `size`: a Doc's
 * export is measured while it is read instead.
 */
export function skipReasonOf(file: { mimeType: string; size?: string | number }, maxBytes: number): string | undefined {
  if (file.mimeType === FOLDER_MIME) return 'folder'
  if (file.mimeType === GOOGLE_DOC_MIME) return undefined
  if (!isPlainType(file.mimeType)) return `unsupported type ${file.mimeType}`
  const size = Number(file.size ?? 0)
  if (size > maxBytes) return `larger than ${maxBytes} bytes (${size} bytes)`
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
