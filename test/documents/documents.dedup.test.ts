// Duplicate detection on ingest: the same URL is the same page; the same text is the same document only when
// no title is given or the titles agree — five speakers saying "Take care!" are five documents.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { storedCount, uniqueBody } from './documents.fixtures'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

const ingest = (u: TestUser, body: Record<string, unknown>) => t.json('POST', '/api/documents', { key: u.key, body })

describe('the same text', () => {
  test('under different titles is a different document each time (five chat turns "Take care!")', async () => {
    const u = await t.signUp()
    const speakers = ['Caroline', 'Melanie', 'Jon', 'Gina', 'Nate']
    const ids: string[] = []
    for (const speaker of speakers) {
      const res = await ingest(u, { title: `${speaker}, session 3`, body: 'Take care!' })
      expect({ speaker, status: res.status, deduplicated: res.body.deduplicated }).toEqual({ speaker, status: 201, deduplicated: false })
      ids.push(res.body.id)
    }
    expect(new Set(ids).size).toBe(5)
    const titles = await Promise.all(ids.map(async (id) => (await t.json('GET', `/api/documents/${id}`, { key: u.key })).body.title))
    expect(titles).toEqual(speakers.map((s) => `${s}, session 3`))
  })

  test('under the same title is the same document (200, deduplicated)', async () => {
    const u = await t.signUp()
    const body = uniqueBody('minutes')
    const first = await ingest(u, { title: 'Minutes', body })
    const again = await ingest(u, { title: 'Minutes', body, tags: ['meeting'] })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: first.body.id, deduplicated: true, tags: ['meeting'] })
    expect(await storedCount(t, u)).toBe(1)
  })

  test('with no title given is the same document, and its given title stays', async () => {
    const u = await t.signUp()
    const body = uniqueBody('clip')
    const first = await ingest(u, { title: 'My clipping', body })
    const again = await ingest(u, { body })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: first.body.id, title: 'My clipping', deduplicated: true })
  })
})

describe('the same URL', () => {
  test('is the same page whatever the title: the new title and text replace the old', async () => {
    const u = await t.signUp()
    const url = 'https://example.com/handbook'
    const first = await ingest(u, { url, title: 'Handbook v1', body: 'Old text.' })
    const again = await ingest(u, { url, title: 'Handbook v2', body: 'New text.' })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ id: first.body.id, title: 'Handbook v2', body: 'New text.', deduplicated: true })
  })

  test('wins over another document that merely holds the same text', async () => {
    const u = await t.signUp()
    const url = 'https://example.com/faq'
    const page = await ingest(u, { url, body: 'FAQ, first version.' })
    const body = uniqueBody('faq')
    await ingest(u, { body })
    const again = await ingest(u, { url, body })
    expect(again.body).toMatchObject({ id: page.body.id, url, deduplicated: true })
  })
})
