// The hash embedder: deterministic, L2-normalised, of the configured dimensions, and similar texts land
// closer than unrelated ones (a weak but real signal); usable through the AI SDK like any embedding model.
import { describe, expect, test } from 'bun:test'
import { embed, embedMany } from 'ai'
import { hashEmbed, hashEmbeddingModel } from './hash-embedding'

const norm = (v: number[]) => Math.hypot(...v)
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0)

describe('hashEmbed', () => {
  test('is deterministic: the same text gives the same vector, call after call', () => {
    const text = 'The quick brown fox jumps over the lazy dog.'
    const a = hashEmbed(text, 512)
    expect(hashEmbed(text, 512)).toEqual(a)
    expect(hashEmbed(String(text), 512)).toEqual(a)
    // Independent of what was embedded before (no hidden state).
    hashEmbed('something else entirely', 512)
    expect(hashEmbed(text, 512)).toEqual(a)
  })

  test('has exactly the requested dimensions', () => {
    for (const dims of [8, 64, 384, 512, 1536, 4096]) {
      const v = hashEmbed('dimensions are respected for every size', dims)
      expect(v).toHaveLength(dims)
      expect(v.every(Number.isFinite)).toBe(true)
    }
  })

  test('is L2-normalised', () => {
    for (const text of [
      'one',
      'two words',
      'A longer sentence, with punctuation; and repeated repeated repeated words.',
      'Ünïcödé wörds und Straße 東京 2024',
    ]) {
      for (const dims of [8, 512]) expect(norm(hashEmbed(text, dims))).toBeCloseTo(1, 10)
    }
  })

  test('text without a word gives the zero vector, not NaN', () => {
    for (const text of ['', '   ', '!!! ??? ...']) {
      const v = hashEmbed(text, 64)
      expect(v).toHaveLength(64)
      expect(v.every((x) => x === 0)).toBe(true)
    }
  })

  test('ignores case and punctuation (it embeds words)', () => {
    expect(hashEmbed('Hello, World!', 128)).toEqual(hashEmbed('hello world', 128))
  })

  test('word order matters a little (word pairs are features too)', () => {
    const a = hashEmbed('dog bites man', 512)
    const b = hashEmbed('man bites dog', 512)
    expect(a).not.toEqual(b)
    expect(cosine(a, b)).toBeGreaterThan(0.3)
  })

  test('similar texts are closer than unrelated ones', () => {
    const query = hashEmbed('how to bake sourdough bread at home', 512)
    const similar = hashEmbed('baking sourdough bread at home with a starter', 512)
    const unrelated = hashEmbed('quarterly revenue report for the finance team', 512)
    expect(cosine(query, similar)).toBeGreaterThan(cosine(query, unrelated))
    expect(cosine(query, similar)).toBeGreaterThan(0.3)
    expect(Math.abs(cosine(query, unrelated))).toBeLessThan(0.2)

    const doc = 'Postgres job queues claim rows with FOR UPDATE SKIP LOCKED so that workers never collide.'
    const paraphrase = 'Workers claim queue rows in Postgres using SKIP LOCKED.'
    const other = 'The orchestra tuned their violins before the evening concert.'
    expect(cosine(hashEmbed(doc, 512), hashEmbed(paraphrase, 512))).toBeGreaterThan(cosine(hashEmbed(doc, 512), hashEmbed(other, 512)))
  })

  test('a text is closest to itself and identical texts have cosine 1', () => {
    const v = hashEmbed('identical text', 256)
    expect(cosine(v, v)).toBeCloseTo(1, 10)
  })
})

describe('hashEmbeddingModel', () => {
  test('describes itself as hash-<dims>', () => {
    const model = hashEmbeddingModel(384) as unknown as { modelId: string; specificationVersion: string }
    expect(model.modelId).toBe('hash-384')
    expect(model.specificationVersion).toBe('v4')
  })

  test('embedMany and embed (AI SDK) return hashEmbed vectors, in order', async () => {
    const model = hashEmbeddingModel(64)
    const values = ['alpha beta', 'gamma delta', 'alpha beta']
    const { embeddings } = await embedMany({ model, values, maxRetries: 0 })
    expect(embeddings).toEqual(values.map((v) => hashEmbed(v, 64)))
    const { embedding } = await embed({ model, value: 'gamma delta', maxRetries: 0 })
    expect(embedding).toEqual(hashEmbed('gamma delta', 64))
  })
})
