// The extension's build (manifest, bundles, zip) and the pure parts of saving: service addresses, selection notes, text
// fragments, and a PDF in the tab (what it is, its bytes and name, the message for each way it cannot be taken).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inflateRawSync, inflateSync } from 'node:zlib'
import { buildExtension, type BuiltExtension } from '../../src/extension/build'
import { headKind, isPdfBytes, MAX_PDF_BYTES, pdfFileName, pdfMessages, sitePattern, tabKind } from '../../src/extension/pdf'
import { pageInput, savedWord, selectionInput, textFragment } from '../../src/extension/save'
import { dashboard, normalizeServiceUrl, originPattern } from '../../src/extension/settings'
import { makePdf } from '../files/fixtures'

let built: BuiltExtension
beforeAll(async () => {
  built = await buildExtension(join(tmpdir(), `extension-unit-${process.pid}`))
})
afterAll(() => {
  rmSync(built.dir, { recursive: true, force: true })
  rmSync(built.zipPath, { force: true })
})

/** The entries of a ZIP archive, read from its central directory and inflated (CRC checked). */
function unzip(bytes: Uint8Array): Map<string, Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const end = bytes.byteLength - 22
  expect(view.getUint32(end, true)).toBe(0x06054b50)
  const count = view.getUint16(end + 10, true)
  let at = view.getUint32(end + 16, true)
  const files = new Map<string, Uint8Array>()
  for (let i = 0; i < count; i++) {
    expect(view.getUint32(at, true)).toBe(0x02014b50)
    const crc = view.getUint32(at + 16, true)
    const packedSize = view.getUint32(at + 20, true)
    const nameLength = view.getUint16(at + 28, true)
    const local = view.getUint32(at + 42, true)
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength))
    expect(view.getUint32(local, true)).toBe(0x04034b50)
    const dataStart = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true)
    const data = new Uint8Array(inflateRawSync(bytes.subarray(dataStart, dataStart + packedSize)))
    expect(Bun.hash.crc32(data)).toBe(crc)
    files.set(name, data)
    at += 46 + nameLength
  }
  return files
}

describe('build', () => {
  test('the manifest is Manifest V3 for both browsers, versioned like the package, with a strict CSP and no stored key', () => {
    const manifest = JSON.parse(readFileSync(join(built.dir, 'manifest.json'), 'utf8'))
    const pkg = JSON.parse(readFileSync(join(import.meta.dir, '../../package.json'), 'utf8'))
    expect(manifest.manifest_version).toBe(3)
    expect(manifest.version).toBe(pkg.version)
    // Chromium runs the service worker; Firefox the same file as an event page script.
    expect(manifest.background).toEqual({ service_worker: 'background.js', scripts: ['background.js'] })
    expect(manifest.browser_specific_settings.gecko.id).toBeString()
    const csp: string = manifest.content_security_policy.extension_pages
    expect(csp).toContain("script-src 'self';")
    expect(csp).toContain("object-src 'none'")
    expect(csp).not.toMatch(/unsafe-(inline|eval)/)
    expect(manifest.permissions).not.toContain('cookies')
    expect(manifest.commands['save-page'].suggested_key.default).toBe('Alt+Shift+S')
  })

  test('the popup and options bundles never write HTML: every page or user string goes in as text', () => {
    for (const file of ['popup.js', 'options.js', 'background.js']) {
      const code = readFileSync(join(built.dir, file), 'utf8')
      expect(code).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/)
    }
    for (const file of ['popup.html', 'options.html'])
      expect(readFileSync(join(built.dir, file), 'utf8')).not.toMatch(/<script(?![^>]*\bsrc=)/)
  })

  test('the manifest names its icons (16, 32, 48, 128 and the toolbar 16, 32), each a PNG of that size', () => {
    const manifest = JSON.parse(readFileSync(join(built.dir, 'manifest.json'), 'utf8'))
    const sizes = ['16', '32', '48', '128']
    expect(manifest.icons).toEqual(Object.fromEntries(sizes.map((size) => [size, `icon-${size}.png`])))
    expect(manifest.action.default_icon).toEqual({ '16': 'icon-16.png', '32': 'icon-32.png' })
    for (const size of sizes) {
      const png = readFileSync(join(built.dir, `icon-${size}.png`))
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
      expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR')
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([Number(size), Number(size)])
      // Every chunk's CRC holds, and the pixels inflate to size rows of a filter byte and size RGBA pixels.
      let at = 8
      const data: Buffer[] = []
      while (at < png.length) {
        const length = png.readUInt32BE(at)
        const type = png.subarray(at + 4, at + 8).toString('latin1')
        expect(Bun.hash.crc32(png.subarray(at + 4, at + 8 + length))).toBe(png.readUInt32BE(at + 8 + length))
        if (type === 'IDAT') data.push(png.subarray(at + 8, at + 8 + length))
        at += 12 + length
      }
      const rows = inflateSync(Buffer.concat(data))
      expect(rows.length).toBe(Number(size) * (Number(size) * 4 + 1))
      // Opaque blue in the middle of an edge, transparent in the rounded corner.
      const alpha = (x: number, y: number) => rows[y * (Number(size) * 4 + 1) + 1 + x * 4 + 3]
      expect(alpha(0, 0)).toBeLessThan(128)
      expect(alpha(Number(size) / 2, 0)).toBe(255)
    }
  })

  test('the zip holds exactly the unpacked folder, byte for byte', () => {
    const files = unzip(new Uint8Array(readFileSync(built.zipPath)))
    expect([...files.keys()]).toEqual([
      'background.js',
      'capture.js',
      'icon-128.png',
      'icon-16.png',
      'icon-32.png',
      'icon-48.png',
      'manifest.json',
      'options.html',
      'options.js',
      'popup.html',
      'popup.js',
      'styles.css',
    ])
    for (const [name, data] of files) expect(Buffer.from(data).equals(readFileSync(join(built.dir, name)))).toBe(true)
  })
})

describe('service address', () => {
  test.each([
    ['http://localhost:3000/', 'http://localhost:3000'],
    ['  https://memory.example.com/base/ ', 'https://memory.example.com/base'],
    ['http://127.0.0.1:8080/?x=1#y', 'http://127.0.0.1:8080'],
  ])('%p is stored as %p', (input, url) => {
    expect(normalizeServiceUrl(input)).toEqual({ url })
  })

  test.each([
    ['localhost:3000', 'Enter a full address, such as http://localhost:3000'],
    ['javascript:alert(1)', 'Enter a full address, such as http://localhost:3000'],
    ['ftp://files.example.com', 'The address must start with http:// or https://'],
    ['https://user:pw@memory.example.com', 'The address must not contain a user name or password'],
  ])('%p is refused', (input, error) => {
    expect(normalizeServiceUrl(input)).toEqual({ error })
  })

  test('host permission covers the host on any port; dashboard links are exactly /app/sign-in, /app/documents/<id>, /app/search?q=', () => {
    expect(originPattern('https://memory.example.com:8443/base')).toBe('https://memory.example.com/*')
    expect(dashboard.signIn('http://localhost:3000')).toBe('http://localhost:3000/app/sign-in')
    expect(dashboard.document('http://localhost:3000', 'a/b')).toBe('http://localhost:3000/app/documents/a%2Fb')
    expect(dashboard.search('http://localhost:3000', 'io & europa')).toBe('http://localhost:3000/app/search?q=io%20%26%20europa')
  })
})

describe('what is sent', () => {
  test('a text fragment quotes short selections whole and long ones by their first and last four words, hyphens escaped', () => {
    expect(textFragment(['well-known', 'fact'])).toBe('#:~:text=well%2Dknown%20fact')
    expect(textFragment('one two three four five six seven eight nine, ten'.split(' '))).toBe(
      '#:~:text=one%20two%20three%20four,seven%20eight%20nine%2C%20ten',
    )
  })

  test('a selection becomes a note titled by its first words and page, pointing at the passage', () => {
    const input = selectionInput({ title: 'Page', pageTitle: 'Page', url: 'https://example.com/a', body: 'Short quoted passage' })
    expect(input).toEqual({
      title: '“Short quoted passage” — Page',
      body: 'Short quoted passage',
      kind: 'note',
      url: 'https://example.com/a#:~:text=Short%20quoted%20passage',
      metadata: { page_url: 'https://example.com/a', page_title: 'Page' },
    })
  })

  test('over-long titles, bodies and URLs are cut to what the service accepts instead of refused', () => {
    const input = pageInput({
      title: 't'.repeat(600),
      url: `https://example.com/${'x'.repeat(2100)}`,
      body: 'é'.repeat(600_000),
      excerpt: 'e'.repeat(1200),
    })
    expect(input.title).toHaveLength(500)
    expect(input.url).toBeUndefined()
    expect(new TextEncoder().encode(input.body).length).toBeLessThanOrEqual(1024 * 1024)
    expect(input.body.endsWith('é')).toBe(true)
    expect(input.excerpt).toHaveLength(1000)
  })
})

describe('a PDF in the tab', () => {
  test.each([
    // Chromium's viewer keeps the PDF's URL and lets the probe run: its document says application/pdf, whatever the path.
    ['https://arxiv.org/pdf/2301.00001', { scriptable: true, contentType: 'application/pdf' }, 'pdf'],
    ['https://example.com/paper.pdf', { scriptable: true, contentType: 'application/pdf' }, 'pdf'],
    // An HTML page whose address ends in .pdf is a page.
    ['https://example.com/paper.pdf', { scriptable: true, contentType: 'text/html' }, 'page'],
    ['https://example.com/article', { scriptable: true, contentType: 'text/html' }, 'page'],
    // Firefox's viewer refuses scripts: the path says it.
    ['https://example.com/Paper.PDF?download=1#page=2', { scriptable: false }, 'pdf'],
    ['https://arxiv.org/pdf/2301.00001', { scriptable: false }, 'maybe-pdf'],
    ['file:///home/me/paper.pdf', { scriptable: false }, 'file-pdf'],
    ['file:///home/me/paper.pdf', { scriptable: true, contentType: 'application/pdf' }, 'file-pdf'],
    ['file:///home/me/notes.txt', { scriptable: false }, 'unreadable'],
    ['chrome://extensions/', { scriptable: false }, 'unreadable'],
    ['about:addons', { scriptable: false }, 'unreadable'],
    [undefined, { scriptable: false }, 'unreadable'],
  ] as const)('%p probed as %p is %p', (url, probe, kind) => {
    expect(tabKind(url, probe)).toBe(kind)
  })

  test('a HEAD says PDF only by a successful answer of type application/pdf; refused or typeless answers say nothing', () => {
    expect(headKind(200, 'application/pdf')).toBe('pdf')
    expect(headKind(200, 'Application/PDF; qs=0.9')).toBe('pdf')
    expect(headKind(200, 'text/html; charset=utf-8')).toBe('not-pdf')
    expect(headKind(405, null)).toBe('unknown')
    expect(headKind(403, 'text/html')).toBe('unknown')
    expect(headKind(200, null)).toBe('unknown')
  })

  test('bytes are a PDF when %PDF- comes within the first 1,024 bytes, as the service reads them', async () => {
    const text = (s: string) => new TextEncoder().encode(s)
    expect(isPdfBytes(await makePdf(1))).toBe(true)
    expect(isPdfBytes(text('\r\n%PDF-1.4\n'))).toBe(true)
    expect(isPdfBytes(text('<!doctype html><title>Sign in</title>'))).toBe(false)
    expect(isPdfBytes(text(`${' '.repeat(1100)}%PDF-1.7`))).toBe(false)
    expect(isPdfBytes(new Uint8Array())).toBe(false)
  })

  test('the uploaded name is the Content-Disposition filename, else the last path segment, without folders and ending .pdf', () => {
    expect(pdfFileName('https://journal.example/papers/On%20Tides.pdf?x=1', null)).toBe('On Tides.pdf')
    expect(pdfFileName('https://arxiv.org/pdf/2301.00001', null)).toBe('2301.00001.pdf')
    expect(pdfFileName('https://journal.example/', null)).toBe('journal.example.pdf')
    expect(pdfFileName('https://x.example/get?id=7', 'attachment; filename="report 2024.pdf"')).toBe('report 2024.pdf')
    expect(pdfFileName('https://x.example/get', `inline; filename="a.pdf"; filename*=UTF-8''%C3%89t%C3%A9.pdf`)).toBe('Été.pdf')
    expect(pdfFileName('https://x.example/get', 'attachment; filename="../../etc/passwd"')).toBe('passwd.pdf')
  })

  test('each way a PDF cannot be taken says what happened and what to do instead', () => {
    expect(pdfMessages.refused(403)).toBe(
      'The site did not give the PDF to the extension (status 403): download it and upload it in the dashboard.',
    )
    const signIn = new TextEncoder().encode('<html><head><title>\n  Sign in — Journal </title></head><body>…</body></html>')
    expect(pdfMessages.notPdf('text/html; charset=utf-8', signIn, false)).toBe(
      'The address did not give a PDF but text/html, a page titled “Sign in — Journal”: perhaps the site wants you to sign in. ' +
        'Open the PDF in the browser, download it and upload it in the dashboard.',
    )
    expect(pdfMessages.notPdf('text/html', signIn, true)).toBe(
      'This page cannot be read by the extension (browser pages and extension stores are off limits), and it is not a PDF ' +
        '(its address answers text/html, a page titled “Sign in — Journal”).',
    )
    expect(pdfMessages.notPdf(null, new Uint8Array([1, 2]), false)).toStartWith('The address did not give a PDF but no content type:')
    expect(pdfMessages.tooLarge(150 * 1024 ** 2)).toBe('The PDF is 150 MiB; the extension uploads 100 MiB at most.')
    expect(pdfMessages.tooLarge(null)).toBe('The PDF is over 100 MiB; the extension uploads 100 MiB at most.')
    expect(MAX_PDF_BYTES).toBe(100 * 1024 * 1024)
    expect(pdfMessages.fileUrl(false)).toContain('turn on “Allow access to file URLs”')
    expect(pdfMessages.fileUrl(true)).toBe(
      'This PDF is a file on your computer, and Firefox does not let extensions read files: upload it in the dashboard.',
    )
    expect(pdfMessages.notAllowed('https://journal.example')).toBe(
      'The extension may not read https://journal.example yet: open its popup on this tab and click Save PDF, which asks for access to the site.',
    )
    expect(pdfMessages.network('https://journal.example', 'Failed to fetch')).toStartWith(
      'Could not fetch the PDF from https://journal.example (Failed to fetch).',
    )
    expect(sitePattern('https://journal.example:8443/papers/a.pdf')).toBe('https://journal.example/*')
  })

  test('a file sent again is "Already saved", a page sent again "Updated"', () => {
    expect(savedWord({ deduplicated: false, file: { status: 'processing' } })).toBe('Saved')
    expect(savedWord({ deduplicated: true, file: { status: 'done' } })).toBe('Already saved')
    expect(savedWord({ deduplicated: true })).toBe('Updated')
    expect(savedWord({ deduplicated: false })).toBe('Saved')
  })
})
