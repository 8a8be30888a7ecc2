// Documents, happy path of forgetting: the document, its links and the excerpts quoted from it in
// conversations are purged for good; only a content-free tombstone remains.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { conversations, messages, type MessageSource } from '../../db/schema'
import { createTestApp, type TestApp } from '../harness'
import { defaultWorkspaceId, ingest, listIds } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('forgetting a document', () => {
  test('the document is gone from fetch, lists and the links of the other document', async () => {
    const u = await t.signUp()
    const secret = await ingest(t, u, { title: 'Secret plan' })
    const other = await ingest(t, u, { title: 'Other' })
    await t.json('POST', `/api/documents/${other.id}/link`, { key: u.key, body: { target_id: secret.id } })

    const res = await t.request('POST', `/api/documents/${secret.id}/forget`, { key: u.key })
    expect(res.status).toBe(204)
    expect((await t.json('GET', `/api/documents/${secret.id}`, { key: u.key })).status).toBe(404)
    expect(await listIds(t, u, '/api/documents')).toEqual([other.id])
    expect(await listIds(t, u, '/api/documents?status=archived')).toEqual([])
    expect((await t.json('GET', `/api/documents/${other.id}/links`, { key: u.key })).body.data).toEqual([])
    // Forgotten is not recoverable.
    expect((await t.json('POST', `/api/documents/${secret.id}/restore`, { key: u.key })).status).toBe(404)
    expect((await t.json('POST', `/api/documents/${secret.id}/forget`, { key: u.key })).status).toBe(404)
  })

  test('answers that quoted it lose its title, excerpt and URL; other sources are untouched', async () => {
    const u = await t.signUp()
    const ws = await defaultWorkspaceId(t, u)
    const secret = await ingest(t, u, { title: 'Secret plan', url: 'https://example.com/secret', body: 'We launch on Friday.' })
    const kept = await ingest(t, u, { title: 'Public roadmap' })
    const now = new Date()
    const conversationId = crypto.randomUUID()
    const messageId = crypto.randomUUID()
    await t.deps.db
      .insert(conversations)
      .values({ id: conversationId, user_id: u.id, workspace_id: ws, name: 'Launch', created_at: now, updated_at: now })
    const sources: MessageSource[] = [
      { index: 1, document_id: secret.id, title: 'Secret plan', url: 'https://example.com/secret', excerpt: 'We launch on Friday.' },
      { index: 2, document_id: kept.id, title: 'Public roadmap', url: null, excerpt: 'roadmap text' },
    ]
    await t.deps.db.insert(messages).values({
      id: messageId,
      user_id: u.id,
      conversation_id: conversationId,
      role: 'assistant',
      content: 'Friday [1], see [2].',
      sources,
      created_at: now,
    })

    expect((await t.request('POST', `/api/documents/${secret.id}/forget`, { key: u.key })).status).toBe(204)

    const [row] = await t.deps.db.select().from(messages).where(sql`${messages.id} = ${messageId}`)
    const [scrubbed, untouched] = row!.sources
    expect(scrubbed).toMatchObject({ index: 1, document_id: secret.id, title: null, url: null, excerpt: null })
    expect(JSON.stringify(row!.sources)).not.toContain('Friday')
    expect(JSON.stringify(row!.sources)).not.toContain('Secret plan')
    expect(untouched).toEqual(sources[1]!)
  })

  test('a tombstone remains with the content hash and no content at all', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u, { title: 'Private', body: 'private words', url: 'https://example.com/private' })
    expect((await t.request('POST', `/api/documents/${doc.id}/forget`, { key: u.key })).status).toBe(204)

    const rows = await queryRows<Record<string, unknown>>(t.deps.db, sql`select * from tombstones where id = ${doc.id}`)
    expect(rows).toHaveLength(1)
    const tombstone = rows[0]!
    for (const column of ['title', 'body', 'excerpt', 'url', 'tags', 'metadata']) expect(tombstone).not.toHaveProperty(column)
    expect(tombstone.content_hash).toEqual(expect.any(String))
    expect(String(tombstone.content_hash).length).toBeGreaterThan(0)
    expect(tombstone.user_id).toBe(u.id)
    // A URL is content too: it is not kept as the source reference of an API document.
    expect(JSON.stringify(tombstone)).not.toContain('private')
    const stored = await queryRows(t.deps.db, sql`select id from documents where id = ${doc.id}`)
    expect(stored).toEqual([])
  })
})
