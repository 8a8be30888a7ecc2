// Hostile files end as a clear UnreadableFile, with memory and time bounded, while the service keeps answering.
import { describe, expect, test } from 'bun:test'
import { zipSync } from 'fflate'
import { extractFile, extractInProcess } from '../../src/files/extract-file'
import { docxWithPart, LIMITS, makeDocx, makePdf, makePptx, makeXlsx, text } from './fixtures'

const MiB = 1024 * 1024
const WORD_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
const wordDocument = (body: string, prolog = '') =>
  `<?xml version="1.0"?>${prolog}<w:document ${WORD_NS}><w:body>${body}</w:body></w:document>`

/** A PDF whose cross-reference table lists a million objects (20 MB of xref) around one empty page. */
function millionObjectXref(): Uint8Array {
  const objects = [
    '1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n',
    '2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj\n',
    '3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>> endobj\n',
  ]
  let pdf = '%PDF-1.4\n'
  const offsets = objects.map((o) => {
    const at = pdf.length
    pdf += o
    return at
  })
  const xrefAt = pdf.length
  const size = 1_000_000
  const rows = ['0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)]
  pdf += `xref\n0 ${size}\n${rows.join('')}${'0000000000 00000 f \n'.repeat(size - rows.length)}`
  pdf += `trailer <</Size ${size}/Root 1 0 R>>\nstartxref\n${xrefAt}\n%%EOF\n`
  return text(pdf)
}

/** A thousand empty pages in a PDF written by hand, its page count claiming a million (PDF.js counts the pages). */
function thousandPages(): Uint8Array {
  const ids = Array.from({ length: 1000 }, (_, i) => i + 3)
  const pages = ids.map((id) => `${id} 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]>> endobj\n`).join('')
  return text(
    `%PDF-1.4\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n` +
      `2 0 obj <</Type/Pages/Kids[${ids.map((id) => `${id} 0 R`).join(' ')}]/Count 1000000>> endobj\n${pages}` +
      'trailer <</Root 1 0 R>>\n%%EOF\n',
  )
}

describe('zip bombs', () => {
  test('a DOCX whose parts unpack past the limit is refused before anything is inflated', async () => {
    const bomb = docxWithPart(wordDocument('<w:p/>'), { 'word/media/padding.bin': new Uint8Array(20 * MiB) })
    expect(bomb.length).toBeLessThan(100 * 1024)
    await expect(extractInProcess(bomb, 'big.docx', { ...LIMITS, maxUnpackedBytes: 10 * MiB })).rejects.toThrow(
      'unpacks to more than 10 MiB: a zip bomb is not read',
    )
  })

  test('an XLSX part that inflates a thousand times its size is refused even under the total limit', async () => {
    const xlsx = await makeXlsx({ A: [['x']] })
    const { unzipSync } = await import('fflate')
    const bomb = zipSync({ ...unzipSync(xlsx), 'xl/media/zeros.bin': new Uint8Array(5 * MiB) })
    await expect(extractInProcess(bomb, 'book.xlsx', LIMITS)).rejects.toThrow(
      /^its part xl\/media\/zeros.bin unpacks to \d+ times its size: a zip bomb is not read$/,
    )
  })

  test('a zip whose directory lies about sizes is still stopped at the limit while inflating', async () => {
    const bomb = docxWithPart(wordDocument('<w:p><w:r><w:t>bomb bomb bomb</w:t></w:r></w:p>'.repeat(400_000)))
    // Both headers of each entry are made to claim it inflates to its compressed size: ratio 1, small total.
    const view = new DataView(bomb.buffer, bomb.byteOffset, bomb.byteLength)
    for (let i = 0; i < bomb.length - 30; i++) {
      const signature = view.getUint32(i, true)
      if (signature === 0x04034b50) view.setUint32(i + 22, view.getUint32(i + 18, true), true)
      if (signature === 0x02014b50) view.setUint32(i + 24, view.getUint32(i + 20, true), true)
    }
    await expect(extractInProcess(bomb, 'liar.docx', { ...LIMITS, maxUnpackedBytes: 10 * MiB })).rejects.toThrow(
      'unpacks to more than 10 MiB: a zip bomb is not read',
    )
  })
})

describe('XML entity bombs', () => {
  test('a DOCX declaring entities (billion laughs) is refused', async () => {
    const laughs =
      '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
      '<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]>'
    const bomb = docxWithPart(wordDocument('<w:p><w:r><w:t>&lol2;</w:t></w:r></w:p>', laughs))
    await expect(extractInProcess(bomb, 'laughs.docx', LIMITS)).rejects.toThrow(
      'its part word/document.xml declares XML entities (a "billion laughs" file): it is not read',
    )
  })

  test('any DOCTYPE in an Office part is refused (external entities included)', async () => {
    const external = docxWithPart(wordDocument('<w:p/>', '<!DOCTYPE w:document SYSTEM "file:///etc/passwd">'))
    await expect(extractInProcess(external, 'xxe.docx', LIMITS)).rejects.toThrow('declares XML entities')
  })
})

describe('PDFs that cannot be read', () => {
  test('an encrypted PDF asks for the password to be removed', async () => {
    const locked = await makePdf(2, { password: 'secret' })
    await expect(extractInProcess(locked, 'locked.pdf', LIMITS)).rejects.toThrow('encrypted PDF: remove the password and upload it again')
  })

  test('a PDF of scanned pages (no text layer) says so', async () => {
    await expect(extractInProcess(await makePdf(3, { text: false }), 'scan.pdf', LIMITS)).rejects.toThrow(
      'no text layer: scanned pages are not read',
    )
  })

  test('a PDF past the page limit is refused with the count and the limit', async () => {
    await expect(extractInProcess(await makePdf(5), 'long.pdf', { ...LIMITS, maxPages: 3 })).rejects.toThrow(
      'over 3 pages (it has 5): this plan reads up to 3',
    )
  })

  test('a PDF of a thousand pages is refused by its page count before any page is read', async () => {
    await expect(extractFile(thousandPages(), 'pages.pdf', LIMITS)).rejects.toThrow(
      'over 500 pages (it has 1000): this plan reads up to 500',
    )
  })

  test('a million-object cross-reference table is read within the limits and ends as a clear error', async () => {
    await expect(extractFile(millionObjectXref(), 'xref.pdf', { ...LIMITS, maxMemoryBytes: 512 * MiB })).rejects.toThrow(
      'no text layer: scanned pages are not read',
    )
  })

  test('garbage after a PDF header is a damaged file, not a crash', async () => {
    await expect(extractInProcess(text('%PDF-1.7\n\u0001garbage'), 'broken.pdf', LIMITS)).rejects.toThrow(
      /^the file is damaged or not a valid PDF/,
    )
  })
})

describe('other limits', () => {
  test('a presentation past the page limit is refused by its slide count', async () => {
    await expect(extractInProcess(await makePptx(4), 'deck.pptx', { ...LIMITS, maxPages: 3 })).rejects.toThrow(
      'over 3 slides (it has 4): this plan reads up to 3',
    )
  })

  test('a file with no text says so', async () => {
    await expect(extractInProcess(text(' \n\n\t '), 'blank.txt', LIMITS)).rejects.toThrow('the file holds no text')
    await expect(extractInProcess(docxWithPart(wordDocument('<w:p/>')), 'blank.docx', LIMITS)).rejects.toThrow('the file holds no text')
  })
})

describe('the extracting subprocess', () => {
  test('returns what extracting in this process returns', async () => {
    const docx = await makeDocx(3)
    expect(await extractFile(docx, 'review.docx', LIMITS)).toEqual(await extractInProcess(docx, 'review.docx', LIMITS))
    const pdf = await makePdf(4)
    expect(await extractFile(pdf, 'guide.pdf', LIMITS)).toEqual(await extractInProcess(pdf, 'guide.pdf', LIMITS))
  })

  test('passes on the reason a file is unreadable', async () => {
    await expect(extractFile(await makePdf(1, { password: 'x' }), 'locked.pdf', LIMITS)).rejects.toThrow(
      'encrypted PDF: remove the password and upload it again',
    )
  })

  test('is killed past its time limit, and the service answers meanwhile', async () => {
    const server = Bun.serve({ port: 0, fetch: () => new Response('still here') })
    try {
      // Starting the subprocess alone takes longer than this; reading 500 pages, several times longer.
      const pdf = await makePdf(500)
      const extraction = extractFile(pdf, 'long.pdf', { ...LIMITS, timeoutMs: 200 }).then(
        () => 'extracted',
        (error: Error) => error.message,
      )
      const answer = await fetch(server.url).then((r) => r.text())
      const settled = await Promise.race([extraction, Promise.resolve('still extracting')])
      expect([answer, settled]).toEqual(['still here', 'still extracting'])
      expect(await extraction).toBe('the file took longer than 0.2 s: it is not read')
    } finally {
      server.stop(true)
    }
  })

  test('is killed past its memory limit', async () => {
    const rows: (string | number)[][] = [['id', 'name', 'amount']]
    for (let i = 0; i < 40_000; i++) rows.push([i, `customer number ${i}`, i * 3])
    const xlsx = await makeXlsx({ Ledger: rows })
    await expect(extractFile(xlsx, 'ledger.xlsx', { ...LIMITS, maxMemoryBytes: 128 * MiB })).rejects.toThrow(
      'the file needed more than 128 MiB: it is not read',
    )
  })
})
