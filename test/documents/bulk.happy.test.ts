// POST /api/documents/bulk as its users rely on it: one result per item in order, created or deduplicated (also
// against an item earlier in the same batch), searchable at once, and ranked exactly as the same documents
// ingested one by one.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { ingest, storedCount, uniqueBody } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
})
afterAll(() => t.close())

const bulk = (u: TestUser, documents: unknown[], headers?: Record<string, string>) =>
  t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents }, headers })

describe('a batch', () => {
  test('writes every good item and answers each bad one with its own error, in order', async () => {
    const u = await t.signUp()
    const stranger = await t.signUp()
    const theirs = (await t.json('GET', '/api/workspaces', { key: stranger.key })).body.data[0].id
    const res = await bulk(u, [
      { title: 'First', body: uniqueBody('first'), tags: ['a'] },
      { title: '', body: uniqueBody() },
      { body: uniqueBody('third'), url: 'https://example.com/third' },
      { body: 'x'.repeat(1024 * 1024 + 1) },
      { body: uniqueBody(), workspace_id: theirs },
      'not a document',
      { body: uniqueBody(), metadata: { blob: 'y'.repeat(17 * 1024) } },
    ])
    expect(res.status).toBe(200)
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 400, 201, 413, 404, 400, 400])
    expect(res.body).toMatchObject({ created: 2, deduplicated: 0, failed: 5 })
    const [first, titled, third, big, foreign, junk, meta] = res.body.results
    expect(first.document).toMatchObject({ title: 'First', tags: ['a'], kind: 'document', source: 'api', deduplicated: false })
    expect(third.document).toMatchObject({ kind: 'webpage', url: 'https://example.com/third' })
    expect([titled, big, foreign, junk, meta].map((r) => r.code)).toEqual([
      'invalid_request',
      'payload_too_large',
      'not_found',
      'invalid_request',
      'invalid_request',
    ])
    expect(titled.error).toStartWith('documents[1].title:')
    expect(big.error).toContain('1 MiB')
    expect(foreign.error).toBe(`workspace ${theirs} not found`)
    expect(junk.error).toStartWith('documents[5]')
    expect(meta.error).toContain('16 KiB')
    for (const written of [first, third]) {
      const got = await t.json('GET', `/api/documents/${written.document.id}`, { key: u.key })
      expect(got.body).toMatchObject({ id: written.document.id, body: written.document.body })
    }
    expect(await storedCount(t, u)).toBe(2)
    expect(await storedCount(t, stranger)).toBe(0)
  })

  test('deduplicates inside the batch and against stored documents, as one-by-one ingest would', async () => {
    const u = await t.signUp()
    const stored = await ingest(t, u, { url: 'https://example.com/stored', title: 'Stored v1' })
    const text = uniqueBody('same text')
    const res = await bulk(u, [
      { url: 'https://example.com/page', body: 'Version one.' },
      { url: 'https://example.com/page', body: 'Version two.', tags: ['v2'] },
      { title: 'Minutes', body: text },
      { title: 'Minutes', body: text },
      { title: 'Other minutes', body: text },
      { url: 'https://example.com/stored', title: 'Stored v2', body: 'Updated.' },
    ])
    expect(res.status).toBe(200)
    const results = res.body.results
    expect(results.map((r: { status: number }) => r.status)).toEqual([201, 200, 201, 200, 201, 200])
    expect(results[1].document).toMatchObject({ id: results[0].document.id, body: 'Version two.', tags: ['v2'], deduplicated: true })
    expect(results[3].document.id).toBe(results[2].document.id)
    expect(results[4].document.id).not.toBe(results[2].document.id)
    expect(results[5].document).toMatchObject({ id: stored.id, title: 'Stored v2', body: 'Updated.', deduplicated: true })
    expect(res.body).toMatchObject({ created: 3, deduplicated: 3, failed: 0 })
    expect(await storedCount(t, u)).toBe(4)
    // What is stored is the last write of each document.
    const page = await t.json('GET', `/api/documents/${results[0].document.id}`, { key: u.key })
    expect(page.body).toMatchObject({ body: 'Version two.', tags: ['v2'] })
  })

  test('a memory kind sent with an API key becomes a draft, as with POST /api/documents', async () => {
    const u = await t.signUp()
    const res = await bulk(u, [{ kind: 'fact', title: 'Coffee', body: uniqueBody('likes coffee') }, { body: uniqueBody() }])
    expect(res.body.results.map((r: { status: number }) => r.status)).toEqual([201, 201])
    expect(res.body.results[0].document).toMatchObject({ kind: 'fact', status: 'pending_approval' })
    expect(res.body.results[0].document.notice).toContain('approval')
    expect(res.body.results[1].document.status).toBe('active')
  })

  test('documents are found by search at once, also through a cached keyword index', async () => {
    const app = await createTestApp({ env: { DEFAULT_PLAN: 'pro', KEYWORD_MEMORY_MIN_DOCUMENTS: '1' } })
    try {
      const u = await app.signUp()
      const first = await app.json('POST', '/api/documents/bulk', {
        key: u.key,
        body: { documents: [{ title: 'Zebra husbandry', body: 'Stripes and grazing habits of zebras.' }] },
      })
      expect(first.status).toBe(200)
      await app.deps.keywordCache.load(app.deps.db, u.id)
      expect(await app.deps.keywordCache.current(app.deps.db, u.id)).not.toBeNull()
      const more = await app.json('POST', '/api/documents/bulk', {
        key: u.key,
        body: {
          documents: [
            { title: 'Zebra migration', body: 'Zebras cross the Mara river every year.' },
            { title: 'Okapi', body: 'A forest relative of the giraffe.' },
          ],
        },
      })
      const found = await app.json('GET', '/api/search?q=zebra&mode=keyword', { key: u.key })
      expect(found.body.results.map((r: { document: { id: string } }) => r.document.id).sort()).toEqual(
        [first.body.results[0].document.id, more.body.results[0].document.id].sort(),
      )
    } finally {
      await app.close()
    }
  })
})
