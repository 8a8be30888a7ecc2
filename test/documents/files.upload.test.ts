// Files in: a person uploads a PDF, a Word document, a slide deck, a sheet or a Markdown note; the upload answers
// at once with the document processing, the extract-file job reads it, and the document is searchable with each
// passage's page, slide or sheet — in search results and in an answer's sources. The original comes back as a
// download; the same file again is the same document, a new version replaces its text; an unreadable file ends
// `failed` with the reason; plan limits are checked before anything is stored, and the file counts as storage.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { drainJobs } from '../../src/jobs/worker'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { makeDocx, makePdf, makePptx, makeXlsx, text } from '../files/fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { PLAN_FREE_FILE_BYTES: String(2 * 1024 * 1024), PLAN_FREE_FILE_PAGES: '20' } })
})
afterAll(() => t.close())

const upload = (u: TestUser, name: string, bytes: Uint8Array, fields: Record<string, string> = {}) => {
  const form = new FormData()
  form.set('file', new File([bytes as Uint8Array<ArrayBuffer>], name))
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  return t.json('POST', '/api/documents/files', { key: u.key, body: form })
}
const read = () => drainJobs(t.deps, 'files-test', ['extract-file'])
const documentOf = async (u: TestUser, id: string) => (await t.json('GET', `/api/documents/${id}`, { key: u.key })).body
const search = async (u: TestUser, q: string) =>
  (await t.json('GET', `/api/search?mode=keyword&q=${encodeURIComponent(q)}`, { key: u.key })).body
const storageUsed = async (u: TestUser) => (await t.json('GET', '/api/usage', { key: u.key })).body.storage_bytes.used as number

describe('a PDF becomes a searchable document whose passages know their page', () => {
  test('202 processing at once; once read, search says the page of the passage it found', async () => {
    const u = await t.signUp()
    const pdf = await makePdf(3, { title: 'Field report' })
    const res = await upload(u, 'field-report.pdf', pdf)
    expect(res.status).toBe(202)
    expect(res.headers.get('location')).toBe(`/api/documents/${res.body.id}`)
    expect(res.body).toMatchObject({
      title: 'field-report',
      index_status: 'processing',
      deduplicated: false,
      file: {
        name: 'field-report.pdf',
        format: 'pdf',
        content_type: 'application/pdf',
        size_bytes: pdf.byteLength,
        status: 'processing',
        error: null,
      },
    })
    // Not read yet: nothing to find.
    expect((await search(u, 'quick brown fox')).results).toEqual([])

    expect(await read()).toBe(1)
    const doc = await documentOf(u, res.body.id)
    expect(doc).toMatchObject({ title: 'Field report', index_status: 'pending', file: { status: 'done', pages: 3, error: null } })
    expect(doc.body).toContain('Page 2 heading')

    const found = await search(u, '"Line 1 of page 3"')
    expect(found.results[0].document.id).toBe(res.body.id)
    expect(found.results[0].location).toEqual({ page: 3, label: 'p. 3' })
  })

  test('the document says where each page starts in its body, so a reader can open it at a page; an edit by hand drops that', async () => {
    const u = await t.signUp()
    const res = await upload(u, 'pages.pdf', await makePdf(3))
    expect((await documentOf(u, res.body.id)).sections).toBeUndefined() // not read yet
    await read()
    const doc = await documentOf(u, res.body.id)
    expect(doc.sections.map((s: { page: number }) => s.page)).toEqual([1, 2, 3])
    for (const s of doc.sections) expect(doc.body.slice(s.start)).toStartWith(`Page ${s.page} heading`)

    const edited = await t.json('PATCH', `/api/documents/${res.body.id}`, { key: u.key, body: { body: 'Rewritten by hand.' } })
    expect(edited.status).toBe(200)
    expect((await documentOf(u, res.body.id)).sections).toBeUndefined()
  })

  test('the original downloads as sent, as an attachment that never renders as a page', async () => {
    const u = await t.signUp()
    const pdf = await makePdf(1)
    const { body } = await upload(u, 'Ünïcode report; final.pdf', pdf)
    const res = await t.request('GET', `/api/documents/${body.id}/file`, { key: u.key })
    expect(res.status).toBe(200)
    expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true)
    expect(res.headers.get('content-type')).toBe('application/pdf')
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="_n_code report; final.pdf"; filename*=UTF-8''${encodeURIComponent('Ünïcode report; final.pdf')}`,
    )
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
  })

  test('an HTML file is read as text and downloads as an attachment in a sandbox', async () => {
    const u = await t.signUp()
    const page =
      '<html><head><title>Tide tables</title></head><body><nav>Home · About</nav><article><h1>Tide tables</h1><p>High water at the harbour is at noon on Sundays, the harbour master says, and the ferry waits for it.</p><p>Low water follows six hours later.</p></article><script>alert(1)</script></body></html>'
    const { body } = await upload(u, 'tides.html', text(page))
    await read()
    const doc = await documentOf(u, body.id)
    expect(doc.file.status).toBe('done')
    expect(doc.body).toContain('High water at the harbour')
    expect(doc.body).not.toContain('alert(1)')
    const res = await t.request('GET', `/api/documents/${body.id}/file`, { key: u.key })
    expect(res.headers.get('content-disposition')).toStartWith('attachment;')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
  })
})

describe('every format keeps its structure', () => {
  test('a Word document by heading, a deck by slide, a workbook by sheet — in results and in sources', async () => {
    const u = await t.signUp()
    const docx = await upload(u, 'minutes.docx', await makeDocx(3))
    const pptx = await upload(u, 'deck.pptx', await makePptx(4))
    const xlsx = await upload(
      u,
      'budget.xlsx',
      await makeXlsx({
        Sales: [
          ['Region', 'Revenue'],
          ['Northumbria', 120],
        ],
        Costs: [
          ['Item', 'Cost'],
          ['Zeppelins', 7],
        ],
      }),
    )
    expect([docx.status, pptx.status, xlsx.status]).toEqual([202, 202, 202])
    expect(await read()).toBe(3)
    for (const id of [docx.body.id, pptx.body.id, xlsx.body.id]) expect((await documentOf(u, id)).file.status).toBe('done')

    const chapter = (await search(u, '"chapter 2"')).results.find((r: { document: { id: string } }) => r.document.id === docx.body.id)
    expect(chapter.location.heading).toBe('Chapter 2')
    const zeppelins = (await search(u, 'zeppelins')).results[0]
    expect(zeppelins.document.id).toBe(xlsx.body.id)
    expect(zeppelins.location).toMatchObject({ sheet: 'Costs', label: 'sheet Costs' })
    expect((await documentOf(u, xlsx.body.id)).body).toContain('| Item | Cost |')
    const deck = (await documentOf(u, pptx.body.id)).file
    expect(deck.pages).toBe(4)
    const beta = (await search(u, 'quarter beta')).results[0]
    expect(beta.document.id).toBe(pptx.body.id)
    expect(beta.location).toMatchObject({ slide: 2, label: 'slide 2' })

    // An answer's sources say where each passage was.
    const ask = await t.json('POST', '/api/ask', { key: u.key, body: { question: 'What do the zeppelins cost?', stream: false } })
    expect(ask.status).toBe(200)
    const source = ask.body.sources.find((s: { document_id: string }) => s.document_id === xlsx.body.id)
    expect(source.location).toMatchObject({ sheet: 'Costs', label: 'sheet Costs' })
  })

  test("a Markdown note's front matter gives its title and tags", async () => {
    const u = await t.signUp()
    const note = '---\ntitle: Sourdough notes\ntags: [baking, bread]\n---\n\n# Starter\n\nFeed the starter twice a day with rye flour.\n'
    const { body } = await upload(u, 'sourdough.md', text(note), { tags: 'kitchen' })
    await read()
    const doc = await documentOf(u, body.id)
    expect(doc.title).toBe('Sourdough notes')
    expect(doc.tags.sort()).toEqual(['baking', 'bread', 'kitchen'])
    expect(doc.body).toContain('Feed the starter twice a day')
  })
})

describe('the same file, and a new version of it', () => {
  test('the same bytes again change nothing; other bytes under the same name replace the text once read', async () => {
    const u = await t.signUp()
    const first = await upload(u, 'plan.md', text('# Plan\n\nWe ship the lighthouse on Friday.'))
    await read()
    const again = await upload(u, 'plan.md', text('# Plan\n\nWe ship the lighthouse on Friday.'))
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: first.body.id, deduplicated: true })

    const next = await upload(u, 'plan.md', text('# Plan\n\nWe ship the windmill on Monday.'))
    expect(next.status).toBe(202)
    expect(next.body.id).toBe(first.body.id)
    // Until the new version is read, the old text is still what is found.
    expect((await search(u, 'lighthouse')).results.map((r: { document: { id: string } }) => r.document.id)).toEqual([first.body.id])
    await read()
    expect((await search(u, 'lighthouse')).results).toEqual([])
    expect((await search(u, 'windmill')).results.map((r: { document: { id: string } }) => r.document.id)).toEqual([first.body.id])
    const listed = await t.json('GET', '/api/documents', { key: u.key })
    expect(listed.body.data).toHaveLength(1)
  })
})

describe('a file that cannot be read says why, and nothing is lost', () => {
  test('an encrypted PDF, or one without a text layer, ends failed with a reason a person can act on', async () => {
    const u = await t.signUp()
    const locked = await upload(u, 'locked.pdf', await makePdf(2, { password: 'secret' }))
    const scanned = await upload(u, 'scan.pdf', await makePdf(2, { text: false }))
    await read()
    const a = await documentOf(u, locked.body.id)
    expect(a.index_status).toBe('failed')
    expect(a.file).toMatchObject({ status: 'failed', error: expect.stringContaining('encrypted PDF') })
    const b = await documentOf(u, scanned.body.id)
    expect(b.file).toMatchObject({ status: 'failed', error: expect.stringContaining('no text layer') })
  })

  test("past the plan's pages the file fails naming the limit", async () => {
    const u = await t.signUp()
    const { body } = await upload(u, 'long.pdf', await makePdf(25))
    await read()
    expect((await documentOf(u, body.id)).file.error).toContain('20')
  })

  test('a file whose bytes are not what its name says, an empty file, or a kind not read: 4xx, nothing stored', async () => {
    const u = await t.signUp()
    const lying = await upload(u, 'report.docx', await makePdf(1))
    expect(lying.status).toBe(415)
    expect(lying.body.error).toContain('not a DOCX file')
    const empty = await upload(u, 'empty.pdf', new Uint8Array())
    expect(empty.status).toBe(400)
    expect(empty.body.error).toContain('empty')
    const image = await upload(u, 'photo.png', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))
    expect(image.status).toBe(415)
    const missing = await t.json('POST', '/api/documents/files', { key: u.key, body: new FormData() })
    expect(missing.status).toBe(400)
    expect((await t.json('GET', '/api/documents', { key: u.key })).body.data).toEqual([])
    expect(await storageUsed(u)).toBe(0)
  })
})

describe('plan limits and storage', () => {
  test("a file over the plan's file size is a 413 naming the limit; the bytes count as storage until deleted", async () => {
    const u = await t.signUp()
    const big = new Uint8Array(2 * 1024 * 1024 + 1).fill(0x61)
    const res = await upload(u, 'big.txt', big)
    expect(res.status).toBe(413)
    expect(res.body.error).toContain('file size limit reached: the free plan allows 2097152 bytes')

    const pdf = await makePdf(1)
    const { body } = await upload(u, 'one.pdf', pdf)
    expect(await storageUsed(u)).toBeGreaterThanOrEqual(pdf.byteLength)
    await read()
    const used = await storageUsed(u)
    expect(used).toBeGreaterThan(pdf.byteLength)
    expect((await t.json('DELETE', `/api/documents/${body.id}`, { key: u.key })).status).toBe(204)
    expect(await storageUsed(u)).toBe(0)
  })

  test('a file that would pass the storage cap is a 402 before anything is stored', async () => {
    const small = await createTestApp({ env: { PLAN_FREE_STORAGE_BYTES: '3000' } })
    try {
      const u = await small.signUp()
      const form = new FormData()
      form.set('file', new File([new Uint8Array(4000).fill(0x62)], 'notes.txt'))
      const res = await small.json('POST', '/api/documents/files', { key: u.key, body: form })
      expect(res.status).toBe(402)
      expect(res.body.error).toContain('storage limit reached')
      expect((await small.json('GET', '/api/documents', { key: u.key })).body.data).toEqual([])
    } finally {
      await small.close()
    }
  })
})

describe('another user', () => {
  test("another user's file is a 404, like a document that is not a file", async () => {
    const [owner, other] = [await t.signUp(), await t.signUp()]
    const { body } = await upload(owner, 'mine.md', text('# Mine\n\nPrivate words.'))
    expect((await t.json('GET', `/api/documents/${body.id}/file`, { key: other.key })).status).toBe(404)
    const plain = await t.json('POST', '/api/documents', { key: owner.key, body: { title: 'Plain', body: 'No file here.' } })
    expect((await t.json('GET', `/api/documents/${plain.body.id}/file`, { key: owner.key })).status).toBe(404)
  })
})
