import { describe, expect, test } from 'bun:test'
import { headline } from './headline'
import type { QueryTerm } from './keyword-query'

const terms = (...stems: string[]): QueryTerm[] => stems.map((term, idx) => ({ idx, term, prefix: false }))
const filler = (n: number, word = 'lorem') => Array.from({ length: n }, (_, i) => `${word}${i}`).join(' ')
const wordCount = (s: string) => s.split(' ').length

describe('a snippet is the passage holding the most query words', () => {
  test('deep in a long chunk, the passage around the matches, 20 to 40 words', () => {
    const text = `${filler(200)} The lighthouse keeper trims the lamp at dusk. ${filler(200, 'ipsum')}`
    const snippet = headline(text, terms('lighthous', 'keeper', 'lamp'))
    expect(snippet).toContain('The lighthouse keeper trims the lamp at dusk.')
    expect(wordCount(snippet)).toBeGreaterThanOrEqual(20)
    expect(wordCount(snippet)).toBeLessThanOrEqual(40)
    expect(snippet).not.toContain('lorem0 ')
  })

  test('inflections match their stem, and a stem in i matches the word in y', () => {
    expect(headline(`${filler(100)} Running studies ${filler(100, 'x')}`, terms('run', 'studi'))).toContain('Running studies')
    expect(headline(`${filler(100)} one careful study ${filler(100, 'x')}`, terms('studi'))).toContain('careful study')
  })

  test('more distinct query words beat one word repeated', () => {
    const text = `tide tide tide tide ${filler(60)} spring tide and neap moon ${filler(60, 'y')}`
    expect(headline(text, terms('tide', 'neap', 'moon'))).toContain('spring tide and neap moon')
  })

  test('no query word in the chunk: its first 20 words; a short chunk whole, whitespace collapsed', () => {
    expect(headline(filler(100), terms('absent'))).toBe(filler(20))
    expect(headline('  Spring tides\n\nand   neap tides. ', terms('tide'))).toBe('Spring tides and neap tides.')
  })

  test('a snippet starts and ends at a space, never inside a date or a hyphenated word', () => {
    const text = `${filler(60)} The release of 2025-01-01. was late-breaking news for the harbour crew ${filler(60, 'y')}`
    const snippet = headline(text, terms('releas', 'harbour'))
    for (const word of snippet.split(' ')) expect(text.split(/\s+/)).toContain(word)
    // The lead-in before the first match begins inside "north-by-north-west": the snippet takes it whole.
    const lead = headline(`${filler(30)} north-by-north-west tide ${filler(30, 'z')}`, terms('tide'))
    expect(lead).toStartWith('north-by-north-west tide')
    const dated = headline(`${filler(30)} opened on 2025-01-01T10:00:00Z ${filler(30, 'z')}`, terms('open'))
    expect(dated).toContain('opened on 2025-01-01T10:00:00Z')
  })

  test('a chunk with no words at all is answered as it is', () => {
    expect(headline('— … —', terms('tide'))).toBe('— … —')
    expect(headline('(Smith, 2020) saw tides.', terms('tide'))).toBe('(Smith, 2020) saw tides.')
  })
})
