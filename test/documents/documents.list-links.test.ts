// A list says how many links each document has (the Documents and Memories tables show it): completed links
// whose other end is active, counted from either end; suggestions and links to an archived document are not.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { links } from '../../db/schema'
import { createTestApp, type TestApp } from '../harness'

let t: TestApp
beforeAll(async () => {
  t = await createTestApp()
})
afterAll(() => t.close())

test('GET /api/documents gives each document its number of links (GET /api/memories is the same list)', async () => {
  const u = await t.signUp()
  const make = async (body: Record<string, unknown>) => (await t.json('POST', '/api/documents', { key: u.key, body })).body.id as string
  const hub = await make({ title: 'Hub', body: 'The hub note.' })
  const a = await make({ title: 'A', body: 'Spoke a.' })
  const b = await make({ title: 'B', body: 'Spoke b.' })
  const gone = await make({ title: 'Gone', body: 'Archived later.' })
  const suggested = await make({ title: 'Suggested', body: 'Only suggested.' })
  for (const target of [a, b, gone])
    expect((await t.json('POST', `/api/documents/${hub}/link`, { key: u.key, body: { target_id: target } })).status).toBe(201)
  // b is linked from the other end too: counted once per link, whichever end the list's document is.
  await t.deps.db.insert(links).values({
    id: t.deps.ids.next(),
    user_id: u.id,
    source_id: suggested,
    target_id: a,
    score: 0.9,
    status: 'pending',
    origin: 'suggested',
  })
  await t.json('POST', `/api/documents/${gone}/archive`, { key: u.key })

  const listed = (await t.json('GET', '/api/documents?limit=100', { key: u.key })).body.data as { title: string; links: number }[]
  expect(Object.fromEntries(listed.map((d) => [d.title, d.links]))).toEqual({ Hub: 2, A: 1, B: 1, Suggested: 0 })

  const archived = (await t.json('GET', '/api/documents?status=archived', { key: u.key })).body.data
  expect(archived.map((d: { title: string; links: number }) => [d.title, d.links])).toEqual([['Gone', 1]])
})
