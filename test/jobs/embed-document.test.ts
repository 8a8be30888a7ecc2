// embed-document: with the hash embedder every chunk gets its vector and the document goes pending → indexed;
// without an embedder the document is marked indexed with no vectors; a document edited between enqueue and
// run (or during the run) ends with vectors of its current chunks only.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { chunks, jobs } from '../../db/schema'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { MODEL_BATCH } from '../../src/embedding/embed-batch'
import { enqueue } from '../../src/queue/queue'
import { drainJobs, runNextJob } from '../../src/jobs/worker'
import { createTestApp, type TestApp } from '../harness'
import { chunksOf, EMBED, indexStatus, ingest, jobsFor, patch, realEmbed, uniqueBody, withDoEmbed } from './jobs.fixtures'

let t: TestApp
let plain: TestApp
beforeAll(async () => {
  ;[t, plain] = await Promise.all([createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } }), createTestApp()])
})
// Each test starts with an empty queue: earlier tests leave suggest-links jobs behind.
afterEach(async () => {
  await Promise.all([t.deps.db.delete(jobs), plain.deps.db.delete(jobs)])
})
afterAll(async () => {
  await Promise.all([t?.close(), plain?.close()])
})

/** Each chunk's stored vector is the hash embedding of its own content (pgvector stores float4). */
function expectEmbeddedAsContent(rows: Awaited<ReturnType<typeof chunksOf>>) {
  expect(rows.length).toBeGreaterThan(0)
  for (const c of rows) {
    expect(c.embedding_model).toBe('hash-512')
    expect(c.embedding).toHaveLength(512)
    const expected = hashEmbed(c.content, 512)
    const maxDiff = Math.max(...c.embedding!.map((v, i) => Math.abs(v - expected[i]!)))
    expect(maxDiff).toBeLessThan(1e-6)
  }
}

/** A long body of varied sentences and paragraphs (about `bytes` of ASCII). */
function longBody(bytes: number): string {
  const words = ['garden', 'river', 'bread', 'engine', 'harbor', 'lantern', 'meadow', 'copper', 'violin', 'glacier', 'orchard', 'thunder']
  const out: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const sentence = `Sentence ${i} mentions the ${words[i % words.length]} and the ${words[(i * 7 + 3) % words.length]} near mile ${i * 13}.`
    const piece = i % 9 === 8 ? `${sentence}\n\n` : `${sentence} `
    out.push(piece)
    size += piece.length
  }
  return out.join('')
}

describe('with the hash embedder', () => {
  test('drainJobs embeds every chunk with hash-512 and the document goes pending → indexed', async () => {
    expect(t.deps.embedder?.id).toBe('hash-512')
    const u = await t.signUp()
    const doc = await ingest(t, u, { body: `${uniqueBody()}\n\n${longBody(3_000)}` })
    expect(await indexStatus(t.deps, doc.id)).toBe('pending')
    const before = await chunksOf(t.deps, doc.id)
    expect(before.length).toBeGreaterThan(1)
    for (const c of before) expect(c).toMatchObject({ embedding: null, embedding_model: null })

    expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
    expectEmbeddedAsContent(await chunksOf(t.deps, doc.id))
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    expect(await jobsFor(t.deps, doc.id)).toMatchObject([
      { status: 'succeeded', attempts: 1, last_error: null, locked_at: null, locked_by: null },
    ])
    const got = await t.json('GET', `/api/documents/${doc.id}`, { key: u.key })
    expect(got.body.index_status).toBe('indexed')
  })

  test('a ~50 KB document has many chunks, every one embedded', async () => {
    const u = await t.signUp()
    const body = `${uniqueBody('long')}\n\n${longBody(50_000)}`
    expect(body.length).toBeGreaterThan(50_000)
    const doc = await ingest(t, u, { body })
    await drainJobs(t.deps, undefined, EMBED)
    const rows = await chunksOf(t.deps, doc.id)
    expect(rows.length).toBeGreaterThan(40)
    expectEmbeddedAsContent(rows)
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
  })

  test('a document of more chunks than one forward pass (MODEL_BATCH) is embedded in several calls, all chunks covered', async () => {
    const u = await t.signUp()
    const original = t.deps.embedder!
    const counting = withDoEmbed(original, (values) => realEmbed(original.model, values))
    t.deps.embedder = counting.embedder
    try {
      const doc = await ingest(t, u, { body: `${uniqueBody('longer')}\n\n${longBody(150_000)}` })
      await drainJobs(t.deps, undefined, EMBED)
      const rows = await chunksOf(t.deps, doc.id)
      expect(rows.length).toBeGreaterThan(MODEL_BATCH)
      expect(counting.calls).toBeGreaterThanOrEqual(Math.ceil(rows.length / MODEL_BATCH))
      expectEmbeddedAsContent(rows)
      expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    } finally {
      t.deps.embedder = original
    }
  })

  test('a second run embeds nothing again; chunks of another model are re-embedded', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u, { body: `${uniqueBody()}\n\n${longBody(4_000)}` })
    await drainJobs(t.deps, undefined, EMBED)
    const original = t.deps.embedder!
    const counting = withDoEmbed(original, (values) => realEmbed(original.model, values))
    t.deps.embedder = counting.embedder
    try {
      const again = async () => {
        await enqueue(t.deps.db, {
          id: t.deps.ids.next(),
          kind: 'embed-document',
          payload: { document_id: doc.id },
          userId: u.id,
          runAt: t.clock.now(),
          maxAttempts: 5,
        })
        expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
      }
      await again()
      expect(counting.calls).toBe(0)

      const [first] = await chunksOf(t.deps, doc.id)
      await t.deps.db
        .update(chunks)
        .set({ embedding_model: 'old-model', embedding: [1, 0, 0] })
        .where(eq(chunks.id, first!.id))
      await again()
      expect(counting.calls).toBe(1)
      expectEmbeddedAsContent(await chunksOf(t.deps, doc.id))
    } finally {
      t.deps.embedder = original
    }
  })
})

describe('without an embedder (default env: the local provider is unavailable)', () => {
  test('the job marks the document indexed and writes no vectors', async () => {
    expect(plain.deps.embedder).toBeNull()
    expect(plain.deps.embeddingStatus).toMatchObject({ provider: 'none', configured: { provider: 'local' }, available: false })
    const u = await plain.signUp()
    const doc = await ingest(plain, u, { body: `${uniqueBody()}\n\n${longBody(5_000)}` })
    expect(await indexStatus(plain.deps, doc.id)).toBe('pending')
    expect(await drainJobs(plain.deps, undefined, EMBED)).toBe(1)
    expect(await indexStatus(plain.deps, doc.id)).toBe('indexed')
    const rows = await chunksOf(plain.deps, doc.id)
    expect(rows.length).toBeGreaterThan(1)
    for (const c of rows) expect(c).toMatchObject({ embedding: null, embedding_model: null })
    expect(await jobsFor(plain.deps, doc.id)).toMatchObject([{ status: 'succeeded', attempts: 1 }])
  })
})

describe('a document edited between enqueue and run', () => {
  test('edited before the first job runs: only the current chunks exist, all embedded, indexed', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u, { body: `${uniqueBody('old')}\n\n${longBody(3_000)}` })
    t.clock.advance(1_000)
    const newBody = `${uniqueBody('new')}\n\nfresh words about volcanoes and telescopes`
    await patch(t, u, doc.id, { body: newBody })
    expect(await jobsFor(t.deps, doc.id)).toHaveLength(2)

    expect(await drainJobs(t.deps, undefined, EMBED)).toBe(2)
    const rows = await chunksOf(t.deps, doc.id)
    expect(rows.map((c) => c.content).join('')).toContain('volcanoes')
    expect(rows.some((c) => c.content.includes('Sentence 1 '))).toBe(false)
    expectEmbeddedAsContent(rows)
    expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    expect((await jobsFor(t.deps, doc.id)).map((j) => j.status)).toEqual(['succeeded', 'succeeded'])
  })

  test('edited while the stale job is embedding: it writes no vector and does not mark indexed; the new job does', async () => {
    const u = await t.signUp()
    const doc = await ingest(t, u, { body: `${uniqueBody('old')}\n\n${longBody(3_000)}` })
    const newBody = `${uniqueBody('new')}\n\nfresh words about volcanoes and telescopes`
    const original = t.deps.embedder!
    let edited = false
    // The first embedding call (the stale job's) waits for the edit to commit, then answers for the old text.
    const intercepting = withDoEmbed(original, async (values) => {
      if (!edited) {
        edited = true
        t.clock.advance(1_000)
        await patch(t, u, doc.id, { body: newBody })
      }
      return realEmbed(original.model, values)
    })
    t.deps.embedder = intercepting.embedder
    try {
      expect(await runNextJob(t.deps, 'stale')).toBe(true)
      expect(edited).toBe(true)
      const [stale, fresh] = await jobsFor(t.deps, doc.id)
      expect(stale).toMatchObject({ status: 'succeeded', attempts: 1 })
      expect(fresh).toMatchObject({ status: 'queued', attempts: 0 })
      // The old chunks' vectors went nowhere: the current chunks have none yet, and the document is still pending.
      const between = await chunksOf(t.deps, doc.id)
      expect(between.map((c) => c.content).join('')).toContain('volcanoes')
      for (const c of between) expect(c).toMatchObject({ embedding: null, embedding_model: null })
      expect(await indexStatus(t.deps, doc.id)).toBe('pending')

      expect(await drainJobs(t.deps, undefined, EMBED)).toBe(1)
      expectEmbeddedAsContent(await chunksOf(t.deps, doc.id))
      expect(await indexStatus(t.deps, doc.id)).toBe('indexed')
    } finally {
      t.deps.embedder = original
    }
  })
})
