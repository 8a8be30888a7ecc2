// Grounding, pure logic: the numbered sources block a model is given (and read back by the extractive
// answerer), and the citation filter that keeps a marker pointing at no source from ever reaching a client —
// whole, in a list, or split across stream deltas.
import { describe, expect, test } from 'bun:test'
import { CitationFilter, filterCitations, groundingInstructions, parseSourcesBlock, type Source } from './grounding'

/** Streams `deltas` through a filter for `sourceCount` sources; what the client would receive, in one string. */
function streamed(deltas: string[], sourceCount: number) {
  const filter = new CitationFilter(sourceCount)
  const sent = deltas.map((d) => filter.push(d))
  sent.push(filter.flush())
  return { text: sent.join(''), sent, cited: [...filter.cited].sort((a, b) => a - b) }
}

/** The text cut into pieces of `size` characters, as an unlucky stream might deliver it. */
const chopped = (text: string, size: number) => text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? []

describe('a citation marker that points at no source', () => {
  test('is dropped together with the space before it; valid markers stay as written', () => {
    expect(filterCitations('Backups are kept for 35 days [1]. They run at night [9].', 2).text).toBe(
      'Backups are kept for 35 days [1]. They run at night.',
    )
    expect(filterCitations('Nothing here is real [0].', 3).text).toBe('Nothing here is real.')
    expect(filterCitations('Every marker is valid [1] and [2] and [3].', 3).text).toBe('Every marker is valid [1] and [2] and [3].')
  })

  test('with no sources at all, every marker goes', () => {
    const out = filterCitations('The moon is made of cheese [1], says [2].', 0)
    expect(out.text).toBe('The moon is made of cheese, says.')
    expect([...out.cited]).toEqual([])
  })

  test('in a list, only the invalid numbers go: [1, 7] with three sources becomes [1]', () => {
    expect(filterCitations('Kept for 35 days [1, 7].', 3).text).toBe('Kept for 35 days [1].')
    expect(filterCitations('Kept for 35 days [1,2].', 3).text).toBe('Kept for 35 days [1][2].')
    expect(filterCitations('Kept for 35 days [7, 8].', 3).text).toBe('Kept for 35 days.')
  })

  test('`cited` collects exactly the valid numbers the text used', () => {
    const out = filterCitations('A [2]. B [9]. C [2, 3, 40]. D [1].', 3)
    expect([...out.cited].sort()).toEqual([1, 2, 3])
  })

  test('text that only looks like brackets is left alone', () => {
    const text = 'Use arr[i] or a [link](x); the range is [a, b] and costs $[price].'
    expect(filterCitations(text, 1).text).toBe(text)
  })
})

describe('streaming: markers split across deltas', () => {
  test('"[", "1", "]" arrive as one intact [1], and nothing of it is sent before it is complete', () => {
    const out = streamed(['Backups are kept for 35 days ', '[', '1', ']', '.'], 2)
    expect(out.text).toBe('Backups are kept for 35 days [1].')
    // No delta ever carried a half marker.
    for (const piece of out.sent) expect(piece).not.toMatch(/\[\d*$|^\d*\]/)
    expect(out.cited).toEqual([1])
  })

  test('an out-of-range marker split as "[", "9", "]" never reaches the client', () => {
    const out = streamed(['They run at night', ' [', '9', ']', '.'], 2)
    expect(out.text).not.toMatch(/[[\]9]/)
    expect(out.text.replace(/\s+/g, '')).toBe('Theyrunatnight.')
    expect(out.cited).toEqual([])
  })

  test('a list split in the middle ("[1, " then "7]") keeps only the valid number', () => {
    expect(streamed(['Kept for 35 days [1, ', '7].'], 3).text).toBe('Kept for 35 days [1].')
  })

  test('a "[" that never becomes a marker is released at the end, not swallowed', () => {
    expect(streamed(['the answer is in section [', 'A] of the guide'], 1).text).toBe('the answer is in section [A] of the guide')
    expect(streamed(['an open bracket at the very end ['], 1).text).toBe('an open bracket at the very end [')
  })

  test('however the text is cut into deltas, the same markers and words reach the client as when filtering it whole', () => {
    const text = 'Backups run nightly at 02:00 UTC [1]. They are kept for 35 days [2, 9]. Restores are tested [3]. Or [12]!'
    const whole = filterCitations(text, 2)
    expect(whole.text).toBe('Backups run nightly at 02:00 UTC [1]. They are kept for 35 days [2]. Restores are tested. Or!')
    const markers = (s: string) => s.match(/\[[^\]]*\]/g)
    // Spaces aside: a space sent before a marker arrives cannot be taken back (see the word-by-word test).
    const words = (s: string) => s.replace(/\s+/g, '')
    for (const size of [1, 2, 3, 5, 8, 13]) {
      const out = streamed(chopped(text, size), 2)
      expect({ size, markers: markers(out.text), words: words(out.text) }).toEqual({
        size,
        markers: markers(whole.text),
        words: words(whole.text),
      })
      expect(out.cited).toEqual([1, 2])
    }
  })

  // DEFECT (src/ai/grounding.ts): PARTIAL holds back only the "[...", never the space before it, so when a
  // marker arrives in a later delta than its space — word-by-word streaming ("days " then "[9].") or " ["
  // then "9]" — the space has already been sent when the marker is dropped: "days ." instead of "days.".
  // The extractive answerer streams exactly this way (`\S+\s*` pieces). Remove `.failing` once fixed.
  test('split deltas: the space before a dropped marker is dropped too, as when filtering whole', () => {
    const text = 'They are kept for 35 days [9]. Restores are tested [1].'
    expect(streamed(text.match(/\S+\s*/g)!, 1).text).toBe('They are kept for 35 days. Restores are tested [1].')
    expect(streamed(['They run at night', ' [', '9', ']', '.'], 1).text).toBe('They run at night.')
  })

  // DEFECT (src/ai/grounding.ts): PARTIAL waits for at most 12 characters after "[", so a list streamed
  // token by token that grows past that ("[1, 2, 3, 4, 9") is released unchecked and its invalid numbers
  // reach the client. Remove `.failing` once fixed.
  test('a long list streamed token by token is still checked: [1, 2, 3, 4, 9] with three sources', () => {
    const tokens = ['Kept for 35 days ', '[', '1', ',', ' 2', ',', ' 3', ',', ' 4', ',', ' 9', ']', '.']
    expect(streamed(tokens, 3).text).toBe(filterCitations(tokens.join(''), 3).text)
  })
})

describe('the sources block', () => {
  const sources: Source[] = [
    {
      index: 1,
      document_id: '00000000-0000-4000-8000-000000000001',
      title: 'Backup policy',
      url: 'https://wiki.example.com/backups',
      excerpt: 'Backups run nightly.\nThey are kept for 35 days.',
    },
    {
      index: 2,
      document_id: '00000000-0000-4000-8000-000000000002',
      title: null,
      url: null,
      excerpt: 'Restores are tested every quarter.',
    },
  ]

  test('numbers each source with its title and URL, and tells the model to cite them as [n]', () => {
    const text = groundingInstructions(sources)
    expect(text).toContain('[1] Backup policy (https://wiki.example.com/backups)\nBackups run nightly.')
    expect(text).toContain('[2] Untitled\nRestores are tested every quarter.')
    expect(text).toContain('[n]')
    expect(groundingInstructions([])).toContain('(no sources found)')
  })

  test('answer style changes the length asked for, not the sources', () => {
    const concise = groundingInstructions(sources, 'concise')
    const detailed = groundingInstructions(sources, 'detailed')
    expect(concise).not.toBe(detailed)
    expect(parseSourcesBlock(concise)).toEqual(parseSourcesBlock(detailed))
  })

  test('reads back as the same numbered passages', () => {
    expect(parseSourcesBlock(groundingInstructions(sources))).toEqual([
      { index: 1, text: 'Backups run nightly.\nThey are kept for 35 days.' },
      { index: 2, text: 'Restores are tested every quarter.' },
    ])
  })

  test('a passage that itself contains blank lines stays one passage', () => {
    const multi: Source[] = [{ ...sources[0]!, excerpt: 'First paragraph.\n\nSecond paragraph, still source one.' }, sources[1]!]
    expect(parseSourcesBlock(groundingInstructions(multi))).toEqual([
      { index: 1, text: 'First paragraph.\n\nSecond paragraph, still source one.' },
      { index: 2, text: 'Restores are tested every quarter.' },
    ])
  })

  test('no block, or no sources in it, gives no passages', () => {
    expect(parseSourcesBlock('You are a helpful assistant.')).toEqual([])
    expect(parseSourcesBlock(groundingInstructions([]))).toEqual([])
  })
})
