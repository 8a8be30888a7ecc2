// A file is what its bytes say: a name that lies is refused with both named, a type that is not read says what is.
import { describe, expect, test } from 'bun:test'
import { extractInProcess } from '../../src/files/extract-file'
import { FORMAT_CONTENT_TYPES, type FileFormat, sniffFormat } from '../../src/files/file-format'
import { convertDocx, LIMITS, makeDocx, makeOdp, makeOds, makePdf, makePptx, makeXlsx, text } from './fixtures'

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
const OLE2 = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0])

describe('sniffing a format', () => {
  test('each container is told by its bytes, whatever it is called', async () => {
    const docx = await makeDocx(1)
    const cases: [Uint8Array, FileFormat][] = [
      [await makePdf(1), 'pdf'],
      [docx, 'docx'],
      [await makePptx(1), 'pptx'],
      [await makeXlsx({ A: [['x']] }), 'xlsx'],
      [await convertDocx(docx, 'odt'), 'odt'],
      [await convertDocx(docx, 'epub'), 'epub'],
      [makeOds('S', [['x']]), 'ods'],
      [makeOdp(['x']), 'odp'],
    ]
    for (const [bytes, format] of cases) expect(sniffFormat(bytes, 'upload')).toBe(format)
  })

  test('text is told apart by extension, then by content type; HTML-looking text without either is HTML', () => {
    expect(sniffFormat(text('# hi'), 'a.md')).toBe('markdown')
    expect(sniffFormat(text('# hi'), 'a.markdown')).toBe('markdown')
    expect(sniffFormat(text('<p>hi</p>'), 'a.htm')).toBe('html')
    expect(sniffFormat(text('a,b'), 'a.csv')).toBe('csv')
    expect(sniffFormat(text('<html><body>hi</body></html>'), 'a.txt')).toBe('text')
    expect(sniffFormat(text('a,b'), 'export', 'text/csv; charset=utf-8')).toBe('csv')
    expect(sniffFormat(text('<!DOCTYPE html><html><p>hi</p></html>'), 'saved-page')).toBe('html')
    expect(sniffFormat(text('\uFEFFplain words'), 'README')).toBe('text')
  })

  test('every format has a content type to serve its original with', () => {
    expect(FORMAT_CONTENT_TYPES.pdf).toBe('application/pdf')
    expect(FORMAT_CONTENT_TYPES.markdown).toStartWith('text/markdown')
    expect(Object.keys(FORMAT_CONTENT_TYPES)).toHaveLength(12)
  })
})

describe('a file whose name lies or whose type is not read', () => {
  test('a PDF named .docx is refused with both named', async () => {
    const pdf = await makePdf(1)
    expect(() => sniffFormat(pdf, 'report.docx')).toThrow('report.docx is not a DOCX file: its bytes are a PDF')
    await expect(extractInProcess(pdf, 'report.docx', LIMITS)).rejects.toThrow('report.docx is not a DOCX file: its bytes are a PDF')
  })

  test('a DOCX named .xlsx, text named .pdf and a PDF named .txt are refused', async () => {
    expect(() => sniffFormat(text('hello'), 'scan.pdf')).toThrow('scan.pdf is not a PDF file: its bytes are text')
    expect(() => sniffFormat(new Uint8Array(), 'empty.txt')).toThrow('empty.txt is empty')
    const docx = await makeDocx(1)
    expect(() => sniffFormat(docx, 'budget.xlsx')).toThrow('budget.xlsx is not an XLSX file: its bytes are a DOCX')
    const pdf = await makePdf(1)
    expect(() => sniffFormat(pdf, 'notes.txt')).toThrow('notes.txt is not a text file: its bytes are a PDF')
  })

  test('an image is refused with the accepted formats listed, under any name', () => {
    expect(() => sniffFormat(PNG, 'scan.png')).toThrow(
      /^images are not read \(scan.png is one; scanned text is not recognized\): accepted: PDF, DOCX/,
    )
    expect(() => sniffFormat(PNG, 'photo.pdf')).toThrow('photo.pdf is not a PDF file: its bytes are an image')
  })

  test('an old or password-protected Office file says what to do', () => {
    expect(() => sniffFormat(OLE2, 'plan.doc')).toThrow(
      'plan.doc is an old-format or password-protected Office file, which is not read: remove its password, or save it as DOCX, XLSX or PPTX, and upload it again',
    )
    expect(() => sniffFormat(OLE2, 'plan.docx')).toThrow(
      'plan.docx is not a DOCX file: its bytes are an old-format or password-protected Office file',
    )
  })

  test('a plain zip, binary data and non-UTF-8 text are refused', async () => {
    const { zipSync } = await import('fflate')
    expect(() => sniffFormat(zipSync({ 'a.txt': text('hi') }), 'bundle.zip')).toThrow('bundle.zip is a zip archive, which is not read')
    expect(() => sniffFormat(new Uint8Array([1, 2, 0, 3, 255]), 'blob.bin')).toThrow('blob.bin is binary data, not UTF-8 text')
    expect(() => sniffFormat(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'latin1.txt')).toThrow(
      'latin1.txt is not a text file: its bytes are binary data',
    )
  })
})
