// The real model (bge-small-en-v1.5, int8, from ../shared/models): what loads and what GET / says, the weights
// chosen and the errors for a folder that lacks them, /v1/embeddings' vectors, and link suggestions at the
// threshold calibrated on test/fixtures/link-pairs.ts. Loaded once for the file (see test/real-model.ts).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embedDocuments, embedQuery, LOCAL_LINK_THRESHOLD } from '../../src/embedding/embeddings'
import { resolveLocalDtype } from '../../src/embedding/local-model'
import { drainJobs } from '../../src/jobs/worker'
import { EIFFEL_A, EIFFEL_B, related, unrelated } from '../fixtures/link-pairs'
import { createTestApp, type TestApp, type TestUser } from '../harness'
import { cosine } from '../jobs/jobs.fixtures'
import { REAL_MODEL, REAL_MODEL_ENV, REAL_MODEL_PATH, realModelMissing } from '../real-model'

const missing = realModelMissing()

const temps: string[] = []
/** A model folder holding only `files` (empty: resolveLocalDtype looks at names, not contents). */
function folderWith(files: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'model-folder-'))
  temps.push(root)
  for (const file of files) {
    mkdirSync(join(root, REAL_MODEL, file, '..'), { recursive: true })
    writeFileSync(join(root, REAL_MODEL, file), '')
  }
  return root
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})
const TOKENIZER = ['config.json', 'tokenizer.json', 'tokenizer_config.json']

describe('which weights load', () => {
  test('unset EMBEDDING_DTYPE takes the file the folder holds: int8 first, else fp32', () => {
    expect(resolveLocalDtype(REAL_MODEL, folderWith([...TOKENIZER, 'onnx/model_quantized.onnx', 'onnx/model.onnx']), null)).toBe('q8')
    expect(resolveLocalDtype(REAL_MODEL, folderWith([...TOKENIZER, 'onnx/model.onnx']), null)).toBe('fp32')
    expect(resolveLocalDtype(REAL_MODEL, folderWith([...TOKENIZER, 'onnx/model_fp16.onnx']), 'fp16')).toBe('fp16')
  })

  test('downloading from the hub fetches the int8 file unless EMBEDDING_DTYPE says otherwise', () => {
    expect(resolveLocalDtype(REAL_MODEL, null, null)).toBe('q8')
    expect(resolveLocalDtype(REAL_MODEL, null, 'fp32')).toBe('fp32')
  })

  test('a folder lacking a file: the error names the file and the folder', () => {
    const onlyFp32 = folderWith([...TOKENIZER, 'onnx/model.onnx'])
    expect(() => resolveLocalDtype(REAL_MODEL, onlyFp32, 'q8')).toThrow(
      `onnx/model_quantized.onnx (EMBEDDING_DTYPE=q8) is missing from the model folder ${join(onlyFp32, REAL_MODEL)}`,
    )
    const noWeights = folderWith(TOKENIZER)
    expect(() => resolveLocalDtype(REAL_MODEL, noWeights, null)).toThrow(
      `onnx/model_quantized.onnx (or onnx/model.onnx) is missing from the model folder ${join(noWeights, REAL_MODEL)}`,
    )
    const noTokenizer = folderWith(['config.json', 'onnx/model_quantized.onnx'])
    expect(() => resolveLocalDtype(REAL_MODEL, noTokenizer, null)).toThrow(
      `tokenizer.json is missing from the model folder ${join(noTokenizer, REAL_MODEL)}`,
    )
  })

  test('the test helper fails under CI=true when the folder is missing, and only skips outside CI', () => {
    const empty = folderWith([])
    expect(() => realModelMissing({ CI: 'true' }, empty)).toThrow(
      `CI=true and the real embedding model is not there: config.json is missing from the model folder ${join(empty, REAL_MODEL)}`,
    )
    const printed: string[] = []
    expect(realModelMissing({}, empty, (line) => printed.push(line))).toContain('config.json is missing')
    expect(printed).toEqual([expect.stringContaining('skipping the real-model tests: config.json is missing')])
  })
})

describe.skipIf(missing !== null)('the real model', () => {
  let t: TestApp
  let u: TestUser
  beforeAll(async () => {
    t = await createTestApp({ env: REAL_MODEL_ENV })
    u = await t.signUp()
  })
  afterAll(() => t?.close())

  test('starts with the int8 weights of the shared folder; GET / names the model and the dtype', async () => {
    const res = await t.json('GET', '/')
    expect(res.body.embeddings).toEqual({
      provider: 'local',
      model: REAL_MODEL,
      dtype: 'q8',
      configured: { provider: 'local', model: REAL_MODEL },
      available: true,
      backlog: 0,
      failed: 0,
    })
  })

  test('EMBEDDING_DTYPE=fp32 on a folder with only int8 weights: the service starts on keyword search and names the file and folder', async () => {
    const fp32 = await createTestApp({ env: { ...REAL_MODEL_ENV, EMBEDDING_DTYPE: 'fp32' } })
    try {
      const res = await fp32.json('GET', '/')
      expect(res.status).toBe(200)
      expect(res.body.embeddings).toMatchObject({ provider: 'none', model: null, dtype: null, available: false })
      expect(res.body.embeddings.reason).toContain(
        `onnx/model.onnx (EMBEDDING_DTYPE=fp32) is missing from the model folder ${join(REAL_MODEL_PATH, REAL_MODEL)}`,
      )
    } finally {
      await fp32.close()
    }
  })

  const embeddings = async (input: string | string[]) => {
    const res = await t.json('POST', '/v1/embeddings', { key: u.key, body: { model: 'service-embed', input } })
    expect(res.status).toBe(200)
    return (res.body.data as { embedding: number[] }[]).map((d) => d.embedding)
  }

  test('/v1/embeddings: 384 unit-length dimensions, identical for identical input, different for different input', async () => {
    const [a, b, again] = await embeddings([
      'Vaccines train the immune system to recognise a pathogen.',
      'The stock market fell sharply on Monday.',
      'Vaccines train the immune system to recognise a pathogen.',
    ])
    expect(a).toHaveLength(384)
    expect(Math.hypot(...a!)).toBeCloseTo(1, 4)
    expect(Math.hypot(...b!)).toBeCloseTo(1, 4)
    expect(again).toEqual(a!)
    // Asked again on its own: the same vector, exactly.
    const [alone] = await embeddings('Vaccines train the immune system to recognise a pathogen.')
    expect(await embeddings('Vaccines train the immune system to recognise a pathogen.')).toEqual([alone!])
    expect(cosine(alone!, a!)).toBeGreaterThan(0.9999)
    expect(cosine(a!, b!)).toBeLessThan(0.6)
  })

  test('one text, one vector: whatever else is in the request, the job batch or the query, a text embeds the same (cosine ≥ 0.9999)', async () => {
    const text = 'Vaccines train the immune system to recognise a pathogen.'
    const shorter = 'Stocks fell.'
    const longer = `${'The Eiffel Tower was finished in 1889 for the World Fair, and it is still the most visited monument in Paris. '.repeat(6)}`
    const [alone] = await embeddings(text)
    // Before each text had a pass of its own, int8 activations were quantized with one scale per pass: 0.996-0.997 here.
    for (const input of [
      [text, longer],
      [shorter, text],
      [longer, shorter, text, 'Another sentence of about the same length, to share a pass.'],
    ]) {
      const vectors = await embeddings(input)
      expect(cosine(alone!, vectors[input.indexOf(text)]!)).toBeGreaterThan(0.9999)
    }
    // The job worker's batches (document chunks), and a search query beside the same text in a batch.
    const embedder = t.deps.embedder!
    const [inJobBatch] = await embedDocuments(embedder, [text, longer, shorter], 'background')
    expect(cosine(alone!, inJobBatch!)).toBeGreaterThan(0.9999)
    const query = await embedQuery(embedder, text)
    const [asBatchedQuery] = await embedDocuments(embedder, [embedder.queryPrefix + text, longer])
    expect(cosine(query!, asBatchedQuery!)).toBeGreaterThan(0.9999)
  })

  test('the query instruction goes in front of search queries only: /v1/embeddings embeds the text as a document', async () => {
    const query = 'how do vaccines work'
    const [asDocument] = await embeddings(query)
    const [withInstruction] = await embeddings(`Represent this sentence for searching relevant passages: ${query}`)
    const asQuery = (await embedQuery(t.deps.embedder!, query))!
    expect(asQuery).toEqual(withInstruction!)
    // Without the instruction the same text gives another vector (batch noise alone stays above 0.99).
    expect(cosine(asQuery, asDocument!)).toBeLessThan(0.99)
    // SOURCE.md's reference similarities: the instructed query is near its answer, far from an unrelated text.
    const [answer, unrelatedText] = await embeddings([
      'Vaccines train the immune system to recognise a pathogen.',
      'The stock market fell sharply on Monday.',
    ])
    expect(cosine(asQuery, answer!)).toBeGreaterThan(0.72)
    expect(cosine(asQuery, unrelatedText!)).toBeLessThan(0.4)
  })

  test(`the link threshold (${LOCAL_LINK_THRESHOLD}) separates the labelled pairs as the README records: precision 1, recall 1`, async () => {
    const score = async (pairs: [string, string][]) => {
      const vectors = await embedDocuments(t.deps.embedder!, pairs.flat())
      return pairs.map((_, i) => cosine(vectors[2 * i]!, vectors[2 * i + 1]!))
    }
    const [r, n] = [await score(related), await score(unrelated)]
    console.log(
      `link pairs: related ${Math.min(...r).toFixed(3)}–${Math.max(...r).toFixed(3)}, unrelated ${Math.min(...n).toFixed(3)}–${Math.max(...n).toFixed(3)}`,
    )
    expect(related.length).toBeGreaterThanOrEqual(15)
    expect(unrelated.length).toBeGreaterThanOrEqual(15)
    expect(r.filter((s) => s < LOCAL_LINK_THRESHOLD)).toEqual([])
    expect(n.filter((s) => s >= LOCAL_LINK_THRESHOLD)).toEqual([])
  })

  test('suggest-links joins two paraphrases and neither joins texts that only share a word', async () => {
    const ingest = async (body: string) => {
      const res = await t.json('POST', '/api/documents', { key: u.key, body: { body } })
      expect(res.status).toBe(201)
      return res.body.id as string
    }
    const linksOf = async (id: string) =>
      ((await t.json('GET', `/api/documents/${id}/links`, { key: u.key })).body.data as { document: { id: string } }[]).map(
        (l) => l.document.id,
      )
    const a = await ingest(EIFFEL_A)
    const b = await ingest(EIFFEL_B)
    const water = await ingest('The old water tower in our village was repainted blue last spring.')
    const planet = await ingest('Mercury is the planet closest to the Sun and has almost no atmosphere.')
    const poison = await ingest('Mercury poisoning can damage the nervous system, kidneys and lungs.')
    await drainJobs(t.deps)
    expect(await linksOf(a)).toEqual([b])
    expect(await linksOf(b)).toEqual([a])
    expect(await linksOf(water)).toEqual([])
    expect(await linksOf(planet)).toEqual([])
    expect(await linksOf(poison)).toEqual([])
  })
})
