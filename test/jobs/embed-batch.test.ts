// Embedding jobs run together (hash embedder, where the vectors' values do not matter): one claim embeds the
// documents of several users and lengths in shared forward passes sorted by length, writes each document and
// marks it indexed; a document whose embedding fails fails alone; a document deleted mid-batch is no trouble.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { jobs } from '../../db/schema'
import type { Embedder } from '../../src/embedding/embeddings'
import { hashEmbed } from '../../src/embedding/hash-embedding'
import { MODEL_BATCH } from '../../src/embedding/embed-batch'
import { runNextJob } from '../../src/jobs/worker'
import { createTestApp, type TestApp } from '../harness'
import { chunksOf, EMBED, indexStatus, ingest, jobsFor, realEmbed, uniqueBody, withDoEmbed } from './jobs.fixtures'

let t: TestApp
let original: Embedder
beforeAll(async () => {
  t = await createTestApp({ env: { EMBEDDING_PROVIDER: 'hash' } })
  original = t.deps.embedder!
})
afterEach(async () => {
  t.deps.embedder = original
  await t.deps.db.delete(jobs)
})
afterAll(() => t.close())

/** About `bytes` of varied sentences, so a body chunks into several pieces of differing lengths. */
const sentences = (bytes: number, topic: string) =>
  Array.from(
    { length: Math.ceil(bytes / 60) },
    (_, i) => `Note ${i} on ${topic} mentions item ${i * 7}.${i % 7 === 6 ? '\n\n' : ' '}`,
  ).join('')

/** deps.embedder replaced by one recording each forward pass's texts; `refuse` makes a pass with such a text fail. */
function recordingEmbedder(refuse?: (text: string) => boolean) {
  const passes: string[][] = []
  t.deps.embedder = withDoEmbed(original, async (values) => {
    passes.push(values)
    if (refuse && values.some(refuse)) throw new Error('the model refused a text')
    return realEmbed(original.model, values)
  }).embedder
  return passes
}

async function expectIndexedWithOwnVectors(documentId: string) {
  expect(await indexStatus(t.deps, documentId)).toBe('indexed')
  expect(await jobsFor(t.deps, documentId)).toMatchObject([{ status: 'succeeded', attempts: 1, last_error: null }])
  const rows = await chunksOf(t.deps, documentId)
  expect(rows.length).toBeGreaterThan(0)
  for (const c of rows) {
    expect(c.embedding_model).toBe('hash-512')
    const expected = hashEmbed(c.content, 512)
    expect(Math.max(...c.embedding!.map((v, i) => Math.abs(v - expected[i]!)))).toBeLessThan(1e-6)
  }
}

describe('one claim, many documents', () => {
  test('documents of several users and lengths share forward passes, shortest texts first; each is written and indexed', async () => {
    const [ann, bob, cy] = [await t.signUp(), await t.signUp(), await t.signUp()]
    const docs = [
      await ingest(t, ann, { body: `${uniqueBody('short')} a line about tides.` }),
      await ingest(t, bob, { body: `${uniqueBody('long')}\n\n${sentences(30_000, 'harbours')}` }),
      await ingest(t, cy, { body: `${uniqueBody('medium')}\n\n${sentences(2_500, 'lanterns')}` }),
      await ingest(t, ann, { body: `${uniqueBody('longer')}\n\n${sentences(40_000, 'orchards')}` }),
    ]
    const passes = recordingEmbedder()

    expect(await runNextJob(t.deps, 'w', EMBED)).toBe(true)
    for (const doc of docs) await expectIndexedWithOwnVectors(doc.id)
    const chunkCount = (await Promise.all(docs.map((d) => chunksOf(t.deps, d.id)))).reduce((n, rows) => n + rows.length, 0)
    // Full passes over everyone's chunks (the hash embedder takes MODEL_BATCH texts of any length per pass).
    expect(passes.flat()).toHaveLength(chunkCount)
    expect(passes.map((p) => p.length)).toEqual(
      Array.from({ length: Math.ceil(chunkCount / MODEL_BATCH) }, (_, i) => Math.min(MODEL_BATCH, chunkCount - i * MODEL_BATCH)),
    )
    const topicOf = (text: string) => ['tides', 'harbours', 'lanterns', 'orchards'].find((topic) => text.includes(topic))
    expect(new Set(passes[0]!.map(topicOf)).size).toBeGreaterThan(1)
    // Shortest first, so each pass pads its texts to about their own length.
    expect(chunkCount).toBeGreaterThan(MODEL_BATCH)
    const lengths = passes.flat().map((text) => text.length)
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b))
  })

  test('a document whose text the model refuses fails alone: the others of its passes are written and indexed', async () => {
    const u = await t.signUp()
    const fine = [
      await ingest(t, u, { body: `${uniqueBody()} about kettles` }),
      await ingest(t, u, { body: `${uniqueBody()}\n\n${sentences(3_000, 'copper')}` }),
    ]
    const poison = await ingest(t, u, { body: `${uniqueBody()} with a poison pill in it` })
    const passes = recordingEmbedder((text) => text.includes('poison pill'))

    expect(await runNextJob(t.deps, 'w', EMBED)).toBe(true)
    for (const doc of fine) await expectIndexedWithOwnVectors(doc.id)
    // Its job is retried later like any failed job; its document stays pending with no vector written.
    expect(await jobsFor(t.deps, poison.id)).toMatchObject([{ status: 'queued', attempts: 1, last_error: 'the model refused a text' }])
    expect(await indexStatus(t.deps, poison.id)).toBe('pending')
    for (const c of await chunksOf(t.deps, poison.id)) expect(c).toMatchObject({ embedding: null, embedding_model: null })
    // The mixed pass failed, then each of its documents was tried alone.
    expect(passes[0]!.length).toBeGreaterThan(1)
    expect(passes.filter((p) => p.some((text) => text.includes('poison pill')))).toHaveLength(2)
  })

  test('a document deleted while its batch is embedded: nothing is written for it, the others are indexed', async () => {
    const u = await t.signUp()
    const kept = [
      await ingest(t, u, { body: `${uniqueBody()} about sails` }),
      await ingest(t, u, { body: `${uniqueBody()}\n\n${sentences(5_000, 'anchors')}` }),
    ]
    const gone = await ingest(t, u, { body: `${uniqueBody()}\n\n${sentences(4_000, 'ropes')}` })
    let deleted = false
    t.deps.embedder = withDoEmbed(original, async (values) => {
      if (!deleted) {
        deleted = true
        expect((await t.request('DELETE', `/api/documents/${gone.id}`, { key: u.key })).status).toBe(204)
      }
      return realEmbed(original.model, values)
    }).embedder

    expect(await runNextJob(t.deps, 'w', EMBED)).toBe(true)
    expect(deleted).toBe(true)
    for (const doc of kept) await expectIndexedWithOwnVectors(doc.id)
    expect(await chunksOf(t.deps, gone.id)).toEqual([])
    expect((await t.json('GET', `/api/documents/${gone.id}`, { key: u.key })).status).toBe(404)
    // Its job had nothing left to do: it did not fail, and will not be retried.
    expect((await jobsFor(t.deps, gone.id)).map((j) => j.status).filter((s) => s !== 'succeeded')).toEqual([])
  })
})
