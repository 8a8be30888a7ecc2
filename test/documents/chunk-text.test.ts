// A chunk keeps no copy of its text: it is read back out of its document's body by where it lies there, counted in
// code points (PostgreSQL's substr) not UTF-16 units (JavaScript's slice) — so emoji and other characters outside
// the BMP, which count one there and two here, must not shift any chunk that follows them.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { asc, eq, sql } from 'drizzle-orm'
import { queryRows } from '../../db/client'
import { chunks, documents } from '../../db/schema'
import { chunkText } from '../../src/retrieval/chunk-text'
import { chunkSections } from '../../src/retrieval/chunking'
import { createTestApp, type TestApp, type TestUser } from '../harness'

let t: TestApp
let u: TestUser
beforeAll(async () => {
  t = await createTestApp({ env: { DEFAULT_PLAN: 'pro' } })
  u = await t.signUp()
})
afterAll(() => t.close())

// Long enough for several chunks; characters of one, two and three UTF-8 bytes, and of two UTF-16 units.
const paragraph = (i: number) =>
  `Entry ${i} 🌊🐚: the tide came in at dawn — Ebbe und Flut, 潮の満ち引き, naïve café 𝒳𝒴. ${'The harbour wall held. '.repeat(8)}\n\n`
const BODIES = [
  Array.from({ length: 12 }, (_, i) => paragraph(i)).join(''),
  `😀${'word '.repeat(400)}😀 end`,
  'plain ascii only '.repeat(150),
]

const storedChunks = (id: string) =>
  t.deps.db
    .select({ text: chunkText, own: chunks.content })
    .from(chunks)
    .innerJoin(documents, eq(documents.id, chunks.document_id))
    .where(eq(chunks.document_id, id))
    .orderBy(asc(chunks.ordinal))

test('each chunk reads back exactly the text it was cut from, written in bulk, alone, or by an edit', async () => {
  const bulk = await t.json('POST', '/api/documents/bulk', { key: u.key, body: { documents: BODIES.map((body) => ({ body })) } })
  expect(bulk.status).toBe(200)
  const ids: string[] = bulk.body.results.map((r: { document: { id: string } }) => r.document.id)
  for (const [i, id] of ids.entries()) {
    const stored = await storedChunks(id)
    expect(stored.map((c) => c.text)).toEqual(chunkSections(BODIES[i]!, null).map((c) => c.content))
    expect(stored.every((c) => c.own === null)).toBe(true) // no second copy
  }
  // An edit indexes the document one at a time (keyword-index.ts), the other writer.
  const edited = `🌊 ${BODIES[0]!.slice(0, 3000)}`
  expect((await t.json('PATCH', `/api/documents/${ids[0]}`, { key: u.key, body: { body: edited } })).status).toBe(200)
  expect((await storedChunks(ids[0]!)).map((c) => c.text)).toEqual(chunkSections(edited, null).map((c) => c.content))
})

test('a snippet from a chunk after an emoji is the text the search matched', async () => {
  const res = await t.json('POST', '/api/documents', {
    key: u.key,
    body: { body: `🐚${'filler words here. '.repeat(90)}The lighthouse keeper logged a squall.` },
  })
  expect(res.status).toBe(201)
  const found = await t.json('GET', '/api/search?q=lighthouse+keeper+squall&mode=keyword', { key: u.key })
  expect(found.body.results[0].document.id).toBe(res.body.id)
  expect(found.body.results[0].snippet).toContain('lighthouse keeper logged a squall')
})

test('a chunk written before keeps its own copy of its text, and reads back from it', async () => {
  const res = await t.json('POST', '/api/documents', { key: u.key, body: { body: 'An older chunk of text about sea kayaks.' } })
  // As migration 0051 leaves an older row: the text in the chunk, no span.
  await t.deps.db.execute(
    sql`update chunks set content = 'An older chunk of text about sea kayaks.', content_from = null, content_chars = null where document_id = ${res.body.id}`,
  )
  expect((await storedChunks(res.body.id)).map((c) => c.text)).toEqual(['An older chunk of text about sea kayaks.'])
  // And a row with neither is refused by the table.
  const broken = await queryRows(
    t.deps.db,
    sql`update chunks set content = null, content_from = null where document_id = ${res.body.id}`,
  ).catch((error: Error) => String(error.cause ?? error))
  expect(broken).toContain('chunks_text_check')
})
