// The formats an uploaded file can be read as, and how each is served and named.

export type FileFormat = 'pdf' | 'docx' | 'pptx' | 'xlsx' | 'csv' | 'html' | 'markdown' | 'text' | 'epub' | 'odt' | 'odp' | 'ods'

/** The content type to serve the original with. */
export const FORMAT_CONTENT_TYPES: Record<FileFormat, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  epub: 'application/epub+zip',
  odt: 'application/vnd.oasis.opendocument.text',
  odp: 'application/vnd.oasis.opendocument.presentation',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
}

/** How a format is named to a person. */
export const FORMAT_NAMES: Record<FileFormat, string> = {
  pdf: 'PDF',
  docx: 'DOCX',
  pptx: 'PPTX',
  xlsx: 'XLSX',
  csv: 'CSV',
  html: 'HTML',
  markdown: 'Markdown',
  text: 'text',
  epub: 'EPUB',
  odt: 'ODT',
  odp: 'ODP',
  ods: 'ODS',
}
