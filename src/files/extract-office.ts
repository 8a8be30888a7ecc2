// DOCX, PPTX, XLSX, CSV, ODF and EPUB through officeparser, after the zip and XML guards; its AST becomes sections.
import { type OfficeParserAST, parseOffice } from 'officeparser'
import { type Extracted, keepNonEmpty, overPages, reasonOf, type Section, UnreadableFile } from './extracted'
import type { FileFormat } from './file-format'
import type { ExtractLimits } from './limits'
import { documentSections, sheetSections, slideSections } from './office-sections'
import { checkXmlDeclarations, checkZipBomb, listZipEntries } from './zip-entries'

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
    throw new UnreadableFile(`the file is damaged or not a valid ${format.toUpperCase()}: ${reasonOf(error)}`)
  }
  const sections = sectionsOf(ast, format)
  const counted = format === 'pptx' || format === 'odp' ? 'slide' : format === 'xlsx' || format === 'ods' ? 'sheet' : undefined
  const pages = counted ? ast.content.filter((n) => n.type === counted).length : undefined
  if (pages !== undefined && pages > limits.maxPages) throw overPages(pages, limits.maxPages, `${counted}s`)
  const title = typeof ast.metadata?.title === 'string' ? ast.metadata.title.trim() : ''
  return { format, ...(title ? { title } : {}), sections: keepNonEmpty(sections), ...(pages !== undefined ? { pages } : {}) }
}

function sectionsOf(ast: OfficeParserAST, format: OfficeFormat): Section[] {
  if (format === 'pptx' || format === 'odp') return slideSections(ast.content)
  if (format === 'xlsx' || format === 'ods' || format === 'csv') return sheetSections(ast.content)
  return documentSections(ast.content)
}
