// The extension's build (manifest, bundles, zip) and the pure parts of saving: service addresses, selection notes, text fragments.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inflateRawSync } from 'node:zlib'
import { buildExtension, type BuiltExtension } from '../../src/extension/build'
import { pageInput, selectionInput, textFragment } from '../../src/extension/save'
import { dashboard, normalizeServiceUrl, originPattern } from '../../src/extension/settings'

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

  test('the zip holds exactly the unpacked folder, byte for byte', () => {
    const files = unzip(new Uint8Array(readFileSync(built.zipPath)))
    expect([...files.keys()]).toEqual([
      'background.js',
      'capture.js',
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
