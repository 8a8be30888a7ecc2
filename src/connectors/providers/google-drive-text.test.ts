// Drive file classification and text clean-up for the Google Drive connector.
import { describe, expect, test } from 'bun:test'
import { isPlainType, looksBinary, skipReasonOf, toPlainText } from './google-drive-text'

describe('google drive text', () => {
  test('text types are downloaded, HTML and binaries are not', () => {
    for (const t of ['text/plain', 'text/markdown', 'text/csv', 'application/json', 'application/x-yaml']) expect(isPlainType(t)).toBe(true)
    for (const t of ['text/html', 'application/pdf', 'image/png', 'application/vnd.google-apps.spreadsheet'])
      expect(isPlainType(t)).toBe(false)
  })

  test('skip reasons name the type or the size', () => {
    expect(skipReasonOf({ mimeType: 'application/vnd.google-apps.document' }, 10)).toBeUndefined()
    expect(skipReasonOf({ mimeType: 'text/plain', size: '10' }, 10)).toBeUndefined()
    expect(skipReasonOf({ mimeType: 'text/plain', size: '11' }, 10)).toBe('larger than 10 bytes (11 bytes)')
    expect(skipReasonOf({ mimeType: 'image/png', size: '5' }, 10)).toBe('unsupported type image/png')
    // A file read by its bytes (a PDF) is bounded by the plan's file size, not the body's.
    expect(skipReasonOf({ mimeType: 'application/pdf', size: '50' }, 10, 100)).toBeUndefined()
    expect(skipReasonOf({ mimeType: 'application/pdf', size: '101' }, 10, 100)).toBe('larger than 100 bytes (101 bytes)')
    expect(skipReasonOf({ mimeType: 'application/vnd.google-apps.spreadsheet' }, 10)).toBe(
      'unsupported type application/vnd.google-apps.spreadsheet',
    )
    expect(skipReasonOf({ mimeType: 'application/vnd.google-apps.folder' }, 10)).toBe('folder')
  })

  test('a Doc export loses its BOM, CRLFs, trailing spaces and extra blank lines', () => {
    const exported = '\uFEFFRoadmap\r\n\r\n\r\n\r\nQ1: ship  \r\n* item one\r\n* item two\r\n'
    expect(toPlainText(exported)).toBe('Roadmap\n\nQ1: ship\n* item one\n* item two')
  })

  test('text without any of that is kept as it is', () => {
    expect(toPlainText('# Title\n\nbody ünïcode — ok')).toBe('# Title\n\nbody ünïcode — ok')
  })

  test('NUL bytes mark binary content', () => {
    expect(looksBinary('PK\u0003\u0004\u0000\u0000')).toBe(true)
    expect(looksBinary('plain')).toBe(false)
  })
})
