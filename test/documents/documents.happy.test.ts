// Documents, happy paths: ingest (derived fields, sources, deduplication, default workspace), the dry-run
// check against plan caps, listing with filters and pagination, and fetching one document.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'
import { createWorkspace, defaultWorkspaceId, ingest, listIds, storedCount, uniqueBody } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('ingesting a document', () => {
  test('an API client ingests a page and gets it back at the top level, with a derived title and excerpt', async () => {
    const u = await t.signUp()
    const body = `Release checklist\n\n${'Run the migrations, then deploy the workers before the API. '.repeat(10)}`
    const res = await t.json('POST', '/api/documents', { key: u.key, body: { body, tags: ['ops', 'release'] } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      title: 'Release checklist',
      body,
      tags: ['ops', 'release'],
      kind: 'document',
      status: 'active',
      source: 'api',
      index_status: 'pending',
      deduplicated: false,
      rating: 0,
      pinned: false,
    })
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(res.body.excerpt.startsWith('Release checklist Run the migrations')).toBe(true)
    expect(res.body.excerpt.length).toBeLessThanOrEqual(281)
    expect(res.body.excerpt.length).toBeLessThan(body.length)
  })

  test('a page with a URL is a webpage; given title, excerpt and kind are kept', async () => {
    const u = await t.signUp()
    const page = await ingest(t, u, { url: 'https://example.com/a', title: 'A page' })
    expect(page).toMatchObject({ kind: 'webpage', url: 'https://example.com/a', title: 'A page' })
    const note = await ingest(t, u, { kind: 'note', excerpt: 'my summary' })
    expect(note).toMatchObject({ kind: 'note', excerpt: 'my summary' })
  })

  test('the browser extension (session cookie) ingests with source extension', async () => {
    const u = await t.signUp()
    const res = await t.json('POST', '/api/documents', {
      cookie: u.cookie,
      body: { body: uniqueBody('clip'), url: 'https://example.com/clip' },
    })
    expect(res.status).toBe(201)
    expect(res.body.source).toBe('extension')
  })

  test('with no workspace_id the document lands in the default workspace', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    const doc = await ingest(t, u)
    expect(doc.workspace_id).toBe(ws)
  })

  test('ingesting the same URL again updates the existing document (200, deduplicated) instead of adding one', async () => {
    const u = await t.signUp()
    const first = await ingest(t, u, { url: 'https://example.com/same', body: 'first version' })
    const again = await t.json('POST', '/api/documents', { key: u.key, body: { url: 'https://example.com/same', body: 'second version' } })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: first.id, deduplicated: true, body: 'second version' })
    expect(await storedCount(t, u)).toBe(1)
    expect((await t.json('GET', `/api/documents/${first.id}`, { key: u.key })).body.body).toBe('second version')
  })

  test('ingesting the same content again in the same workspace answers the same document', async () => {
    const u = await t.signUp()
    const body = uniqueBody('same content')
    const first = await ingest(t, u, { body })
    const again = await t.json('POST', '/api/documents', { key: u.key, body: { body } })
    expect(again.status).toBe(200)
    expect(again.body.deduplicated).toBe(true)
    expect(again.body.id).toBe(first.id)
    expect(await storedCount(t, u)).toBe(1)
  })

  test('the same content in another workspace is a separate document', async () => {
    const u = await t.signUp()
    const other = await createWorkspace(t, u)
    const body = uniqueBody('shared')
    const first = await ingest(t, u, { body })
    const second = await ingest(t, u, { body, workspace_id: other })
    expect(second.id).not.toBe(first.id)
    expect(second.workspace_id).toBe(other)
    expect(await storedCount(t, u)).toBe(2)
  })

  test("another user's identical content never deduplicates against mine", async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    const body = uniqueBody('common')
    const mine = await ingest(t, a, { body })
    const theirs = await ingest(t, b, { body })
    expect(theirs.id).not.toBe(mine.id)
  })
})

describe('checking an ingest before sending it', () => {
  test('check allows an ingest under the caps and reports usage', async () => {
    const u = await t.signUp()
    const res = await t.json('GET', '/api/documents/check?size_bytes=100', { key: u.key })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ allowed: true, deduplicated: false, usage: { documents: { used: 0, limit: 1000 } } })
    expect(res.body.reason).toBeUndefined()
  })

  test('at the document cap, check says no with a reason and ingest answers 402 with nothing stored', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_DOCUMENTS: '2' } })
    try {
      const u = await capped.signUp()
      await ingest(capped, u)
      expect((await capped.json('GET', '/api/documents/check', { key: u.key })).body.allowed).toBe(true)
      const second = await ingest(capped, u, { url: 'https://example.com/kept' })

      const check = await capped.json('GET', '/api/documents/check', { key: u.key })
      expect(check.status).toBe(200)
      expect(check.body.allowed).toBe(false)
      expect(check.body.reason).toContain('document')
      expect(check.body.usage.documents).toEqual({ used: 2, limit: 2 })

      const refused = await capped.json('POST', '/api/documents', { key: u.key, body: { body: uniqueBody() } })
      expect(refused.status).toBe(402)
      expect(refused.body.error).toContain('document')
      expect(await storedCount(capped, u)).toBe(2)

      // Updating what is already stored is still allowed at the cap, and check says so.
      const dupCheck = await capped.json('GET', `/api/documents/check?url=${encodeURIComponent('https://example.com/kept')}`, {
        key: u.key,
      })
      expect(dupCheck.body).toMatchObject({ allowed: true, deduplicated: true })
      const update = await capped.json('POST', '/api/documents', {
        key: u.key,
        body: { url: 'https://example.com/kept', body: 'new text' },
      })
      expect(update.status).toBe(200)
      expect(update.body.id).toBe(second.id)
    } finally {
      await capped.close()
    }
  })

  test('over the storage cap, check and ingest agree: not allowed, 402, nothing stored', async () => {
    const capped = await createTestApp({ env: { PLAN_FREE_STORAGE_BYTES: '1000' } })
    try {
      const u = await capped.signUp()
      expect((await capped.json('GET', '/api/documents/check?size_bytes=500', { key: u.key })).body.allowed).toBe(true)
      const check = await capped.json('GET', '/api/documents/check?size_bytes=2000', { key: u.key })
      expect(check.body.allowed).toBe(false)
      expect(check.body.reason).toContain('storage')
      const refused = await capped.json('POST', '/api/documents', { key: u.key, body: { body: 'x'.repeat(2000) } })
      expect(refused.status).toBe(402)
      expect(refused.body.error).toContain('storage')
      expect(await storedCount(capped, u)).toBe(0)
    } finally {
      await capped.close()
    }
  })
})

describe('listing documents', () => {
  test('each filter narrows the list: workspace, tag, source, kind, status', async () => {
    const u = await t.signUp()
    const other = await createWorkspace(t, u)
    const plain = await ingest(t, u, { tags: ['alpha'] })
    const note = await ingest(t, u, { kind: 'note', tags: ['beta'] })
    const elsewhere = await ingest(t, u, { workspace_id: other, tags: ['alpha'] })
    const viaMcp = await ingest(t, u, { source: 'mcp' })
    const clipped = await t.json('POST', '/api/documents', { cookie: u.cookie, body: { body: uniqueBody(), url: 'https://example.com/x' } })
    const archived = await ingest(t, u)
    expect((await t.json('POST', `/api/documents/${archived.id}/archive`, { key: u.key })).status).toBe(200)

    const list = (q: string) => listIds(t, u, `/api/documents?limit=100${q}`).then((ids) => new Set(ids))
    expect(await list('')).toEqual(new Set([plain.id, note.id, elsewhere.id, viaMcp.id, clipped.body.id]))
    expect(await list(`&workspace_id=${other}`)).toEqual(new Set([elsewhere.id]))
    expect(await list('&tag=alpha')).toEqual(new Set([plain.id, elsewhere.id]))
    expect(await list('&source=mcp')).toEqual(new Set([viaMcp.id]))
    expect(await list('&source=extension')).toEqual(new Set([clipped.body.id]))
    expect(await list('&kind=note')).toEqual(new Set([note.id]))
    expect(await list('&kind=webpage')).toEqual(new Set([clipped.body.id]))
    expect(await list('&status=archived')).toEqual(new Set([archived.id]))
    expect(await list(`&tag=alpha&workspace_id=${other}`)).toEqual(new Set([elsewhere.id]))
  })

  test('paging through with the cursor visits every document once, newest first', async () => {
    const u = await t.signUp()
    const created: string[] = []
    for (let i = 0; i < 7; i++) created.push((await ingest(t, u)).id)

    const seen: string[] = []
    let cursor: string | null = null
    const sizes: number[] = []
    do {
      const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      const page = await t.json('GET', `/api/documents?limit=3${q}`, { key: u.key })
      expect(page.status).toBe(200)
      sizes.push(page.body.data.length)
      seen.push(...page.body.data.map((d: { id: string }) => d.id))
      cursor = page.body.next_cursor
    } while (cursor)

    expect(sizes).toEqual([3, 3, 1])
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toEqual([...created].reverse())
  })

  test('a user sees only their own documents', async () => {
    const a = await t.signUp()
    const b = await t.signUp()
    await ingest(t, a)
    const mine = await ingest(t, b)
    expect(await listIds(t, b, '/api/documents')).toEqual([mine.id])
  })
})

describe('fetching a document', () => {
  test('fetch returns body and metadata; list items carry neither', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u, { body: 'the full text', title: 'Full', metadata: { author: 'Ada', pages: 3 } })
    const one = await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })
    expect(one.status).toBe(200)
    expect(one.body).toMatchObject({ id: doc.id, title: 'Full', body: 'the full text', metadata: { author: 'Ada', pages: 3 } })

    const list = await t.json('GET', '/api/documents', { key: u.key })
    const item = list.body.data.find((d: { id: string }) => d.id === doc.id)
    expect(item).toMatchObject({ id: doc.id, title: 'Full', excerpt: 'the full text' })
    expect(item).not.toHaveProperty('body')
    expect(item).not.toHaveProperty('metadata')
  })
})

describe('ingesting what is already there', () => {
  test('saving an archived page again updates it and brings it back to the list', async () => {
    const u = await t.signUp()
    const page = await ingest(t, u, { url: 'https://example.com/archived', body: uniqueBody('first') })
    await t.json('POST', `/api/documents/${page.id}/archive`, { key: u.key })
    const again = await t.json('POST', '/api/documents', {
      key: u.key,
      body: { url: 'https://example.com/archived', body: uniqueBody('second') },
    })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: page.id, status: 'active', deduplicated: true })
    expect(await listIds(t, u, '/api/documents')).toContain(page.id)
  })

  test('a pending draft with the same body does not absorb the ingest: the user gets a document of their own', async () => {
    const u = await t.signUp()
    const workspace_id = await defaultWorkspaceId(t, u)
    const body = uniqueBody('shared')
    const draft = await t.json('POST', '/api/memories/batch-draft', {
      key: u.key,
      body: { workspace_id, learnings: [{ kind: 'fact', title: 'Draft', body }] },
    })
    expect(draft.status).toBe(201)
    const doc = await t.json('POST', '/api/documents', { key: u.key, body: { workspace_id, body } })
    expect(doc.status).toBe(201)
    expect(doc.body.id).not.toBe(draft.body.data[0].id)
    expect(doc.body.status).toBe('active')
  })
})
