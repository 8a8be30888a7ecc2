// DOCX, PPTX, XLSX, CSV, ODF and EPUB through officeparser, after the zip and XML guards; its AST becomes sections.
import { type OfficeParserAST, parseOffice } from 'officeparser'
import { type Extracted, keepNonEmpty, overPages, reasonOf, type Section, UnreadableFile } from './extracted'
import type { FileFormat } from './file-format'
import type { ExtractLimits } from './limits'
import { documentSections, sheetSections, slideSections } from './office-sections'
import { checkXmlDeclarations, checkZipBomb, listZipEntries, zipBomb } from './zip-entries'

export type OfficeFormat = Exclude<FileFormat, 'pdf' | 'html' | 'markdown' | 'text'>

const SLIDE_PART = /^ppt\/slides\/slide\d+\.xml$/

/** Parses with OCR, attachments and running headers off: nothing is fetched, only the text is read. */
export async function parseWithOfficeparser(bytes: Uint8Array, fileType: OfficeFormat | 'html', limits: ExtractLimits) {
  return parseOffice(bytes, {
    fileType,
    ocr: false,
    extractAttachments: false,
    includeRawContent: false,
    ignoreHeadersAndFooters: true,
    ignoreSlideMasters: true,
    ignoreComments: true,
    decompressionLimits: { maxUncompressedBytes: limits.maxUnpackedBytes },
  })
}

/** The zip guards, then the slide count against the page limit before anything is parsed. */
function guardContainer(bytes: Uint8Array, format: OfficeFormat, limits: ExtractLimits): void {
  if (format === 'csv') return
  const entries = listZipEntries(bytes)
  if (!entries) throw new UnreadableFile(`the file is damaged: its zip archive cannot be read`)
  checkZipBomb(entries, limits.maxUnpackedBytes)
  const slides = entries.filter((e) => SLIDE_PART.test(e.name)).length
  if (slides > limits.maxPages) throw overPages(slides, limits.maxPages, 'slides')
  checkXmlDeclarations(bytes, format === 'epub')
}

export async function extractOffice(bytes: Uint8Array, format: OfficeFormat, limits: ExtractLimits): Promise<Extracted> {
  guardContainer(bytes, format, limits)
  let ast: OfficeParserAST
  try {
    ast = await parseWithOfficeparser(bytes, format, limits)
  } catch (error) {
    throw unreadableOf(error, format, limits)
  }
  const sections = sectionsOf(ast, format)
  const counted = format === 'pptx' || format === 'odp' ? 'slide' : format === 'xlsx' || format === 'ods' ? 'sheet' : undefined
  const pages = counted ? ast.content.filter((n) => n.type === counted).length : undefined
  if (pages !== undefined && pages > limits.maxPages) throw overPages(pages, limits.maxPages, `${counted}s`)
  // A CSV has no title of its own (the parser names its one sheet "Sheet1"): its file name stays the title.
  const title = format !== 'csv' && typeof ast.metadata?.title === 'string' ? ast.metadata.title.trim() : ''
  return { format, ...(title ? { title } : {}), sections: keepNonEmpty(sections), ...(pages !== undefined ? { pages } : {}) }
}

/** officeparser's refusals in words a person can act on; anything else is a damaged file, its reason given. */
function unreadableOf(error: unknown, format: OfficeFormat, limits: ExtractLimits): UnreadableFile {
  const code = (error as { officeIssue?: { code?: string } } | undefined)?.officeIssue?.code
  if (code === 'ZIP_SIZE_LIMIT_EXCEEDED') return zipBomb(limits.maxUnpackedBytes)
  if (code === 'PASSWORD_REQUIRED' || code === 'PASSWORD_INCORRECT' || code === 'DOCUMENT_DECRYPTION_FAILED') {
    return new UnreadableFile('encrypted file: remove the password and upload it again')
  }
  if (code === 'XML_ELEMENT_LIMIT_EXCEEDED' || code === 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED') {
    return new UnreadableFile(`the file holds more parts than a document has: it is not read (${reasonOf(error)})`)
  }
  return new UnreadableFile(`the file is damaged or not a valid ${format.toUpperCase()}: ${reasonOf(error)}`)
}

function sectionsOf(ast: OfficeParserAST, format: OfficeFormat): Section[] {
  if (format === 'pptx' || format === 'odp') return slideSections(ast.content)
  if (format === 'xlsx' || format === 'ods' || format === 'csv') return sheetSections(ast.content)
  return documentSections(ast.content)
}
