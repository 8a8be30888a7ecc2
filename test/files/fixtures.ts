// Builds the files the extraction tests read, with the libraries that write them (nothing committed):
// PDFs with @cantoo/pdf-lib (pdf-lib with encryption), DOCX with docx, PPTX with pptxgenjs, XLSX with exceljs.
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib'
import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow } from 'docx'
import ExcelJS from 'exceljs'
import { zipSync } from 'fflate'
import PptxGenJS from 'pptxgenjs'
import type { ExtractLimits } from '../../src/files/extract-file'

export const LIMITS: ExtractLimits = {
  maxPages: 500,
  timeoutMs: 30_000,
  maxMemoryBytes: 1024 * 1024 * 1024,
  maxUnpackedBytes: 100 * 1024 * 1024,
}

export async function makePdf(
  pages: number,
  options: { lines?: number; text?: boolean; password?: string; title?: string } = {},
): Promise<Uint8Array> {
  const doc = await PDFDocument.create()
  if (options.title) doc.setTitle(options.title)
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (let p = 1; p <= pages; p++) {
    const page = doc.addPage([595, 842])
    if (options.text === false) {
      // A "scanned" page: ink and no text layer.
      page.drawRectangle({ x: 50, y: 50, width: 400, height: 600 })
      continue
    }
    page.drawText(`Page ${p} heading`, { x: 50, y: 780, size: 18, font })
    for (let l = 0; l < (options.lines ?? 3); l++) {
      page.drawText(`Line ${l} of page ${p}: the quick brown fox jumps over the lazy dog.`, { x: 50, y: 740 - l * 16, size: 11, font })
    }
  }
  if (options.password) await doc.encrypt({ userPassword: options.password, ownerPassword: `${options.password}-owner` })
  return doc.save()
}

export async function makeDocx(chapters: number, paragraphsPer = 3): Promise<Uint8Array> {
  const children: (Paragraph | Table)[] = [new Paragraph('An opening paragraph before any heading.')]
  for (let c = 1; c <= chapters; c++) {
    children.push(new Paragraph({ text: `Chapter ${c}`, heading: HeadingLevel.HEADING_1 }))
    for (let i = 0; i < paragraphsPer; i++) {
      children.push(new Paragraph(`Paragraph ${i} of chapter ${c}: the committee reviewed the quarterly figures.`))
    }
    if (c === 1) {
      const rows = [
        ['Region', 'Revenue'],
        ['North', '120'],
        ['South', '95'],
      ]
      children.push(
        new Table({ rows: rows.map((r) => new TableRow({ children: r.map((t) => new TableCell({ children: [new Paragraph(t)] })) })) }),
      )
    }
  }
  return new Uint8Array(await Packer.toBuffer(new Document({ title: 'Quarterly review', sections: [{ children }] })))
}

export async function makePptx(slides: number): Promise<Uint8Array> {
  const pptx = new PptxGenJS()
  pptx.title = 'Roadmap deck'
  for (let s = 1; s <= slides; s++) {
    const slide = pptx.addSlide()
    slide.addText(`Slide ${s} title`, { x: 0.5, y: 0.3, w: 9, h: 1, fontSize: 32 })
    slide.addText(`Body text of slide ${s} about the launch plan.`, { x: 0.5, y: 1.5, w: 9, h: 1 })
    if (s === 2)
      slide.addTable(
        [
          [{ text: 'Quarter' }, { text: 'Goal' }],
          [{ text: 'Q1' }, { text: 'Beta' }],
        ],
        { x: 0.5, y: 3, w: 6 },
      )
  }
  return (await pptx.write({ outputType: 'uint8array' })) as Uint8Array
}

export async function makeXlsx(sheets: Record<string, (string | number)[][]>): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook()
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = workbook.addWorksheet(name)
    for (const row of rows) sheet.addRow(row)
  }
  return new Uint8Array(await workbook.xlsx.writeBuffer())
}

/** A zip whose single XML part holds the given text, named so it sniffs as a DOCX. */
export function docxWithPart(documentXml: string, extra: Record<string, Uint8Array> = {}): Uint8Array {
  const enc = new TextEncoder()
  return zipSync({
    '[Content_Types].xml': enc.encode('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
    'word/document.xml': enc.encode(documentXml),
    ...extra,
  })
}

export const text = (s: string) => new TextEncoder().encode(s)

/** DOCX converted by officeparser's own writer, which makes ODT and EPUB (it writes no ODS or ODP). */
export async function convertDocx(docx: Uint8Array, to: 'odt' | 'epub'): Promise<Uint8Array> {
  // Bun's default import of officeparser's CommonJS build is its OfficeParser class: the converter is on require's object.
  const { OfficeConverter } = require('officeparser') as typeof import('officeparser')
  const converted = await OfficeConverter.convert(docx, to, { parseConfig: { fileType: 'docx' } })
  return converted.value as unknown as Uint8Array
}

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" office:version="1.3"'

/** An ODF package as the spec lays it out: the stored mimetype first, then content.xml and the manifest. */
function odfPackage(mimetype: string, body: string): Uint8Array {
  const manifest = `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`
  return zipSync({
    mimetype: [text(mimetype), { level: 0 }],
    'content.xml': text(
      `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS}><office:body>${body}</office:body></office:document-content>`,
    ),
    'META-INF/manifest.xml': text(manifest),
  })
}

/** A hand-written minimal ODS (no library writes ODS): one sheet of rows. */
export function makeOds(sheet: string, rows: string[][]): Uint8Array {
  const cells = (row: string[]) =>
    row.map((c) => `<table:table-cell office:value-type="string"><text:p>${c}</text:p></table:table-cell>`).join('')
  const table = `<table:table table:name="${sheet}">${rows.map((r) => `<table:table-row>${cells(r)}</table:table-row>`).join('')}</table:table>`
  return odfPackage('application/vnd.oasis.opendocument.spreadsheet', `<office:spreadsheet>${table}</office:spreadsheet>`)
}

/** A hand-written minimal ODP (no library writes ODP): one page per slide, each with a text frame. */
export function makeOdp(slides: string[]): Uint8Array {
  const pages = slides
    .map(
      (s, i) =>
        `<draw:page draw:name="page${i + 1}"><draw:frame><draw:text-box><text:p>${s}</text:p></draw:text-box></draw:frame></draw:page>`,
    )
    .join('')
  return odfPackage('application/vnd.oasis.opendocument.presentation', `<office:presentation>${pages}</office:presentation>`)
}
