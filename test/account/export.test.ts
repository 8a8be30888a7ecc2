// Exporting an account: a person downloads one zip of everything they keep — readable Markdown beside the JSON Lines
// records — and importing it into a fresh account gives the same records back, links, supersedes, evidence and
// thread order included. The download is a stream read from the database a page at a time as the client takes it,
// and it holds the caller's records only.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { exportAccount } from '../../src/modules/account/export.service'
import { createTestApp, type TestApp } from '../harness'
import { canonical, exportZip, fillAccount, importZip, lines, text, zipOf } from './archive.fixtures'

setDefaultTimeout(60_000)

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

describe('export → import → export', () => {
  test('a fresh account importing the archive holds the same records, ids aside', async () => {
    const ada = await t.signUp()
    const made = await fillAccount(t, ada)
    const first = await exportZip(t, ada)

    // What the archive holds, as documented (docs/export-format.md).
    const manifest = JSON.parse(text(first['manifest.json']))
    expect(manifest).toMatchObject({
      format: 'memory-service-archive',
      version: 1,
      counts: { workspaces: 2, threads: 1, documents: 11, links: 2, originals: 1 },
    })
    const docs = lines(first['documents.jsonl'])
    const draft = docs.find((d) => d.id === made.draft.id)
    expect(draft).toMatchObject({
      status: 'pending_approval',
      metadata: { supersedes: made.fact.id, evidence: [made.messages[0], made.messages[2]] },
    })
    expect(docs.filter((d) => d.kind === 'message').map((d) => [d.position, d.speaker])).toEqual([
      [0, 'Ada'],
      [1, 'Bob'],
      [2, 'Ada'],
    ])
    const page = docs.find((d) => d.id === made.page.id)
    const markdown = text(first[page.file])
    expect(page.file).toMatch(/^documents\/default\/cooking-page-[0-9a-f]{12}\.md$/)
    expect(markdown).toStartWith('---\ntitle: "Cooking page"\n')
    expect(markdown).toContain('url: "https://example.com/roast"')
    expect(markdown).toEndWith('\n---\n\nSlow roast at 120 degrees.\n')

    const bob = await t.signUp()
    const imported = await importZip(t, bob, zipOf(first))
    expect(imported.status).toBe(200)
    expect(imported.body).toEqual({
      format: 'archive',
      workspaces: { created: 1, existing: 1 }, // Bob's own "Default" takes Ada's
      threads: { created: 1, existing: 0 },
      documents: { created: 4, skipped: 0 },
      memories: { created: 4, skipped: 0, drafted: 0 },
      messages: { created: 3, skipped: 0 },
      links: { created: 2, skipped: 0 },
      originals: { stored: 1 },
      settings: { applied: true },
      skipped_entries: 0,
    })
    const second = await exportZip(t, bob)
    expect(canonical(second)).toEqual(canonical(first))
    // The activity record goes with each account, counted, and names what happened: bob's is his import.
    const history = (files: Record<string, Uint8Array>) => lines(files['activity.jsonl']).map((e) => e.action)
    expect(history(first).length).toBe(JSON.parse(text(first['manifest.json'])).counts.activity)
    expect(history(first)).toContain('document.create')
    expect(history(second)).toContain('account.import')
    expect(history(second)).not.toContain('document.create')

    // The records work as records: the draft's supersedes names Bob's own memory, and approving it archives that one.
    const bobDocs = lines(second['documents.jsonl'])
    const bobDraft = bobDocs.find((d) => d.status === 'pending_approval' && d.kind === 'fact')
    const bobFact = bobDocs.find((d) => d.status === 'active' && d.kind === 'fact')
    expect(bobDraft.metadata.supersedes).toBe(bobFact.id)
    expect((await t.json('POST', `/api/documents/${bobDraft.id}/approve`, { cookie: bob.cookie })).status).toBe(200)
    expect((await t.json('GET', `/api/documents/${bobFact.id}`, { cookie: bob.cookie })).body.status).toBe('archived')
    // Imported documents are keyword-searchable at once, as ingest's are.
    const found = await t.json('GET', '/api/search?q=transformers%20attention&mode=keyword', { cookie: bob.cookie })
    expect(found.body.results.map((r: { document: { title: string } }) => r.document.title)).toContain('Attention paper')
    // The uploaded PDF came with its original and its pages: found at its page, downloaded as it was sent.
    const survey = await t.json('GET', `/api/search?mode=keyword&q=${encodeURIComponent('"page 2 heading"')}`, { cookie: bob.cookie })
    expect(survey.body.results[0]).toMatchObject({ document: { title: 'Tide survey' }, location: { page: 2, label: 'p. 2' } })
    const original = await t.request('GET', `/api/documents/${survey.body.results[0].document.id}/file`, { cookie: bob.cookie })
    const adaOriginal = await t.request('GET', `/api/documents/${made.upload.id}/file`, { cookie: ada.cookie })
    const [bobBytes, adaBytes] = [Buffer.from(await original.arrayBuffer()), Buffer.from(await adaOriginal.arrayBuffer())]
    expect(bobBytes.equals(adaBytes)).toBe(true)
    // Its bytes count towards Bob's storage, as an upload's do.
    expect((await t.json('GET', '/api/usage', { cookie: bob.cookie })).body.storage_bytes.used).toBeGreaterThan(bobBytes.byteLength)
  })

  test('importing the same archive again adds nothing: every record is a duplicate of what the account holds', async () => {
    const u = await t.signUp()
    await fillAccount(t, u)
    const archive = zipOf(await exportZip(t, u))
    const again = await importZip(t, u, archive)
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({
      workspaces: { created: 0, existing: 2 },
      threads: { created: 0, existing: 1 },
      documents: { created: 0, skipped: 4 },
      memories: { created: 0, skipped: 4 },
      messages: { created: 0, skipped: 3 },
      links: { created: 0, skipped: 2 },
    })
  })
})

describe('the download', () => {
  test('is a zip attachment with a safe file name, and holds none of another account’s records', async () => {
    const mine = await t.signUp()
    const other = await t.signUp()
    await fillAccount(t, other)
    await t.json('POST', '/api/documents', { key: mine.key, body: { title: 'Mine', body: 'Only mine.' } })
    const res = await t.request('GET', '/api/account/export', { key: mine.key })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="memory-export-[0-9-]+\.zip"$/)
    expect(res.body).toBeInstanceOf(ReadableStream)
    expect(res.headers.get('content-length')).toBeNull()
    const { unzipSync } = await import('fflate')
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()))
    expect(lines(files['documents.jsonl']).map((d) => d.title)).toEqual(['Mine'])
    expect(lines(files['workspaces.jsonl'])).toHaveLength(1)
    expect(lines(files['threads.jsonl'])).toEqual([])
    expect(lines(files['links.jsonl'])).toEqual([])
  })

  test('needs credentials; a read-only key may export (it reads all of this already)', async () => {
    expect((await t.request('GET', '/api/account/export')).status).toBe(401)
    const reader = await t.signUp({ scopes: ['read'] })
    expect((await t.request('GET', '/api/account/export', { key: reader.key })).status).toBe(200)
  })

  test('is read a page at a time as the client takes it: memory bounded by the page size, not the account', async () => {
    const u = await t.signUp()
    // Text that does not compress to nothing, so the download grows with what was read.
    const word = (n: number) => (n * 2654435761).toString(36).slice(-6)
    const documents = Array.from({ length: 600 }, (_, i) => ({
      title: `Doc ${i}`,
      body: Array.from({ length: 300 }, (_, w) => word(i * 1000 + w)).join(' '),
    }))
    for (let i = 0; i < documents.length; i += 300)
      expect((await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents: documents.slice(i, i + 300) } })).status).toBe(
        200,
      )
    const pages: number[] = []
    const user = { id: u.id, email: u.email, name: null, plan: 'pro' }
    const { stream } = exportAccount(t.deps, user, { pageSize: 50, onPage: (table, rows) => table === 'documents' && pages.push(rows) })
    const reader = stream.getReader()
    // Reading the first part of the download reads workspaces, threads and a page or two of documents — not 600.
    let read = 0
    while (read < 64 * 1024) {
      const { value, done } = await reader.read()
      if (done) break
      read += value.byteLength
    }
    const early = pages.reduce((a, b) => a + b, 0)
    expect(early).toBeGreaterThan(0)
    expect(early).toBeLessThanOrEqual(300)
    // The rest: every document read three times (records, links by source, Markdown copies), a page at a time.
    while (!(await reader.read()).done) {}
    expect(pages.filter((n) => n > 0).every((n) => n <= 200)).toBe(true)
    expect(pages.reduce((a, b) => a + b, 0)).toBe(600 * 3)
  })
})
