import { describe, expect, test } from 'bun:test'
import { chunkText } from './chunking'

describe('chunkText', () => {
  test('a short body is one chunk that owns all of it', () => {
    expect(chunkText('Hello world.')).toEqual([{ ordinal: 0, start: 0, end: 12, content: 'Hello world.' }])
  })

  test('an empty body is still one (empty) chunk', () => {
    expect(chunkText('')).toEqual([{ ordinal: 0, start: 0, end: 0, content: '' }])
  })

  test('owned spans tile the body exactly, and each content overlaps into the next span', () => {
    const body = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7}.`).join(' ')
    const chunks = chunkText(body, { size: 500, overlap: 80 })
    expect(chunks.length).toBeGreaterThan(10)
    expect(chunks.map((c) => body.slice(c.start, c.end)).join('')).toBe(body)
    for (const [i, c] of chunks.entries()) {
      expect(c.ordinal).toBe(i)
      expect(c.end - c.start).toBeLessThanOrEqual(500)
      expect(c.content.startsWith(body.slice(c.start, c.end))).toBe(true)
      if (i < chunks.length - 1) expect(c.content.length).toBe(c.end - c.start + 80)
    }
  })

  test('cuts at sentence ends when it can', () => {
    const body = 'First sentence here. '.repeat(100)
    for (const c of chunkText(body, { size: 300 }).slice(0, -1)) expect(body.slice(c.start, c.end).endsWith('. ')).toBe(false)
    for (const c of chunkText(body, { size: 300 }).slice(0, -1)) expect(body.slice(c.start, c.end).trimEnd().endsWith('.')).toBe(true)
  })

  test('a word longer than a chunk is cut rather than looping', () => {
    const body = 'x'.repeat(5000)
    const chunks = chunkText(body, { size: 1000 })
    expect(chunks).toHaveLength(5)
    expect(chunks.map((c) => c.end)).toEqual([1000, 2000, 3000, 4000, 5000])
  })

  test('whitespace after the last words belongs to the last chunk: no chunk is whitespace alone', () => {
    // 2,386 characters: the 1,200-character limit of the second chunk falls just before the final space.
    const body = `${'x'.repeat(24)}\n\n${'Paragraph about concurrency and queues. '.repeat(59)}`
    const chunks = chunkText(body)
    expect(chunks).toHaveLength(2)
    expect(chunks.map((c) => body.slice(c.start, c.end)).join('')).toBe(body)
    for (const c of chunks) expect(c.content.trim()).not.toBe('')
    expect(chunks.at(-1)!.end).toBe(body.length)
    expect(chunkText('   ')).toEqual([{ ordinal: 0, start: 0, end: 3, content: '   ' }])
  })
})
