// Documents, happy paths of linking: a manual link, linking again, links seen from both ends, and unlinking.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp } from '../harness'
import { ingest } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

describe('linking documents', () => {
  test('a manual link is created (201), completed, and seen from both documents', async () => {
    const u = await t.signUp()
    const a = await ingest(t, u, { title: 'Alpha' })
    const b = await ingest(t, u, { title: 'Beta', kind: 'note' })
    const res = await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({
      source_id: a.id,
      target_id: b.id,
      status: 'completed',
      origin: 'manual',
      document: { id: b.id, title: 'Beta', kind: 'note' },
    })

    const fromA = await t.json('GET', `/api/documents/${a.id}/links`, { key: u.key })
    expect(fromA.status).toBe(200)
    expect(fromA.body.data).toHaveLength(1)
    expect(fromA.body.data[0]).toMatchObject({ id: res.body.id, status: 'completed', document: { id: b.id, title: 'Beta' } })
    const fromB = await t.json('GET', `/api/documents/${b.id}/links`, { key: u.key })
    expect(fromB.body.data).toHaveLength(1)
    expect(fromB.body.data[0]).toMatchObject({ id: res.body.id, document: { id: a.id, title: 'Alpha' } })
  })

  test('linking the same pair again, either way round, answers the existing link (200)', async () => {
    const u = await t.signUp()
    const a = await ingest(t, u)
    const b = await ingest(t, u)
    const first = await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })
    const again = await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })
    expect(again.status).toBe(200)
    expect(again.body.id).toBe(first.body.id)
    const reversed = await t.json('POST', `/api/documents/${b.id}/link`, { key: u.key, body: { target_id: a.id } })
    expect(reversed.status).toBe(200)
    expect(reversed.body.id).toBe(first.body.id)
    expect((await t.json('GET', `/api/documents/${a.id}/links`, { key: u.key })).body.data).toHaveLength(1)
  })

  test('unlinking removes the link from both ends (204); unlinking again is 404', async () => {
    const u = await t.signUp()
    const a = await ingest(t, u)
    const b = await ingest(t, u)
    await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })
    const res = await t.request('DELETE', `/api/documents/${a.id}/links/${b.id}`, { key: u.key })
    expect(res.status).toBe(204)
    expect((await t.json('GET', `/api/documents/${a.id}/links`, { key: u.key })).body.data).toEqual([])
    expect((await t.json('GET', `/api/documents/${b.id}/links`, { key: u.key })).body.data).toEqual([])
    const again = await t.json('DELETE', `/api/documents/${a.id}/links/${b.id}`, { key: u.key })
    expect(again.status).toBe(404)
    expect(typeof again.body.error).toBe('string')
  })

  test('a link can be made again after unlinking', async () => {
    const u = await t.signUp()
    const a = await ingest(t, u)
    const b = await ingest(t, u)
    await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })
    await t.request('DELETE', `/api/documents/${b.id}/links/${a.id}`, { key: u.key })
    const relinked = await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })
    expect([200, 201]).toContain(relinked.status)
    expect(relinked.body.status).toBe('completed')
    expect((await t.json('GET', `/api/documents/${a.id}/links`, { key: u.key })).body.data).toHaveLength(1)
  })

  test('a link to an archived document is hidden until it is restored', async () => {
    const u = await t.signUp()
    const a = await ingest(t, u)
    const b = await ingest(t, u)
    await t.json('POST', `/api/documents/${a.id}/link`, { key: u.key, body: { target_id: b.id } })
    await t.json('POST', `/api/documents/${b.id}/archive`, { key: u.key })
    expect((await t.json('GET', `/api/documents/${a.id}/links`, { key: u.key })).body.data).toEqual([])
    await t.json('POST', `/api/documents/${b.id}/restore`, { key: u.key })
    expect((await t.json('GET', `/api/documents/${a.id}/links`, { key: u.key })).body.data).toHaveLength(1)
  })
})
