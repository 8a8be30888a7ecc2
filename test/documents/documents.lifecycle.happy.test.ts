// Documents, happy paths after ingest: editing (re-indexed), deleting one or many, archive and restore,
// rating, and deleting a workspace with its documents.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { documents } from '../../db/schema'
import { createTestApp, type TestApp } from '../harness'
import { createWorkspace, ingest, listIds, storedCount } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

/** As if the background indexer had finished, so a re-index is visible. */
const markIndexed = (id: string) => t.deps.db.update(documents).set({ index_status: 'indexed' }).where(eq(documents.id, id))

describe('editing a document', () => {
  test('each field can be changed on its own and the change is kept', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u, { title: 'Old', tags: ['a'] })
    const patch = async (body: Record<string, unknown>) => {
      const res = await t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body })
      expect(res.status).toBe(200)
      return res.body
    }
    expect((await patch({ title: 'New title' })).title).toBe('New title')
    expect((await patch({ excerpt: 'A hand-written summary' })).excerpt).toBe('A hand-written summary')
    expect((await patch({ body: 'A brand new body' })).body).toBe('A brand new body')
    expect((await patch({ tags: ['x', 'y'] })).tags).toEqual(['x', 'y'])
    expect((await patch({ pinned: true })).pinned).toBe(true)

    const fetched = await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })
    expect(fetched.body).toMatchObject({
      title: 'New title',
      excerpt: 'A hand-written summary',
      body: 'A brand new body',
      tags: ['x', 'y'],
      pinned: true,
    })
  })

  test('changing the content marks the document for re-indexing', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    for (const body of [{ title: 'Retitled' }, { body: 'Rewritten body' }, { tags: ['retagged'] }, { excerpt: 'New summary' }]) {
      await markIndexed(doc.id)
      const res = await t.json('PATCH', `/api/documents/${doc.id}`, { key: u.key, body })
      expect(res.status).toBe(200)
      expect(res.body.index_status).toBe('pending')
    }
  })

  test('a derived excerpt follows a new body; a hand-written one stays', async () => {
    const u = await t.signUp()
    const derived = await ingest(t, u, { body: 'The first body' })
    expect(derived.excerpt).toBe('The first body')
    const res = await t.json('PATCH', `/api/documents/${derived.id}`, { key: u.key, body: { body: 'The second body' } })
    expect(res.body.excerpt).toBe('The second body')

    const written = await ingest(t, u, { body: 'Some body', excerpt: 'Mine' })
    const kept = await t.json('PATCH', `/api/documents/${written.id}`, { key: u.key, body: { body: 'Another body' } })
    expect(kept.body.excerpt).toBe('Mine')
  })
})

describe('deleting documents', () => {
  test('a deleted document is gone: 204, then 404 and absent from the list', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    const res = await t.request('DELETE', `/api/documents/${doc.id}`, { key: u.key })
    expect(res.status).toBe(204)
    expect((await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })).status).toBe(404)
    expect(await listIds(t, u, '/api/documents')).not.toContain(doc.id)
  })

  test('bulk delete reports which ids were deleted and which were not found', async () => {
    const u = await t.signUp()
    const stranger = await t.signUp()
    const [a, b, keep] = [await ingest(t, u), await ingest(t, u), await ingest(t, u)]
    const theirs = await ingest(t, stranger)
    const missing = '01900000-0000-7000-8000-000000000000'
    const res = await t.json('DELETE', '/api/documents/bulk', { key: u.key, body: { ids: [a.id, b.id, missing, theirs.id] } })
    expect(res.status).toBe(200)
    expect(new Set(res.body.deleted)).toEqual(new Set([a.id, b.id]))
    expect(new Set(res.body.not_found)).toEqual(new Set([missing, theirs.id]))
    expect(await listIds(t, u, '/api/documents')).toEqual([keep.id])
    // Another user's id is reported as not found and their document stays.
    expect((await t.json('GET', `/api/documents/${theirs.id}`, { key: stranger.key })).status).toBe(200)
  })
})

describe('archiving and restoring', () => {
  test('an archived document leaves the default list, shows under ?status=archived, and restore brings it back', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    const archived = await t.json('POST', `/api/documents/${doc.id}/archive`, { key: u.key })
    expect(archived.status).toBe(200)
    expect(archived.body.status).toBe('archived')
    expect(await listIds(t, u, '/api/documents')).not.toContain(doc.id)
    expect(await listIds(t, u, '/api/documents?status=archived')).toEqual([doc.id])
    // Still fetchable by id: archived is recoverable, not deleted.
    expect((await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })).body.status).toBe('archived')

    const restored = await t.json('POST', `/api/documents/${doc.id}/restore`, { key: u.key })
    expect(restored.status).toBe(200)
    expect(restored.body.status).toBe('active')
    expect(await listIds(t, u, '/api/documents')).toContain(doc.id)
    expect(await listIds(t, u, '/api/documents?status=archived')).toEqual([])
  })
})

describe('rating', () => {
  test('a document can be rated up, down and cleared', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u)
    for (const rating of [1, -1, 0]) {
      const res = await t.json('POST', `/api/documents/${doc.id}/rate`, { key: u.key, body: { rating } })
      expect(res.status).toBe(200)
      expect(res.body.rating).toBe(rating)
      expect((await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })).body.rating).toBe(rating)
    }
  })
})

describe('deleting a workspace', () => {
  test('removes the documents it held and leaves the others', async () => {
    const u = await t.signUp()
    const ws = await createWorkspace(t, u, 'Temporary')
    const inside = await ingest(t, u, { workspace_id: ws })
    const outside = await ingest(t, u)
    expect((await t.request('DELETE', `/api/workspaces/${ws}`, { key: u.key })).status).toBe(204)
    expect((await t.json('GET', `/api/documents/${inside.id}`, { key: u.key })).status).toBe(404)
    expect(await listIds(t, u, '/api/documents')).toEqual([outside.id])
    expect(await storedCount(t, u)).toBe(1)
  })
})
