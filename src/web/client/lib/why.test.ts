// "Why this result" in words: the words it lists are the words the title and snippet mark (one source of truth),
// where they are, the rest of the document's matches said apart, meaning and boost in words; ranks and scores apart.
import { describe, expect, test } from 'bun:test'
import { highlight, markedWords } from './highlight'
import { explain, type Signals } from './why'

const signals = (s: Partial<Signals> = {}): Signals => ({
  keyword_rank: 1,
  keyword_score: 2.3456,
  semantic_rank: null,
  semantic_score: null,
  matched_terms: 2,
  boost: 1,
  ...s,
})

describe('markedWords', () => {
  test('are the query words the pieces mark, once each, in the query order; the last word matches as a prefix', () => {
    const pieces = highlight('Postmortems are blameless; a blameless postmortem', 'blameless post')
    expect(pieces.filter((p) => p.hit).map((p) => [p.text, p.word])).toEqual([
      ['Postmortems', 'post'],
      ['blameless', 'blameless'],
      ['blameless', 'blameless'],
      ['postmortem', 'post'],
    ])
    expect(markedWords('blameless post', pieces)).toEqual(['blameless', 'post'])
    expect(markedWords('kept backups', highlight('Backups are kept', 'kept backups'))).toEqual(['kept', 'backups'])
    expect(markedWords('absent words', highlight('Nothing here', 'absent words'))).toEqual([])
  })
})

describe('explain', () => {
  test('lists exactly the words marked, and where', () => {
    const q = 'backup retention policy'
    const title = highlight('Backup policy', q)
    const passage = highlight('Backups are kept 35 days; the retention policy says so.', q)
    const why = explain(q, signals({ matched_terms: 3 }), 0.5, title, passage)
    // "Backups" is no whole-word "backup" (only the last word matches as a prefix): not marked, not listed.
    expect(passage.filter((p) => p.hit).map((p) => p.text)).toEqual(['retention', 'policy'])
    expect(why.text).toBe('Matched “backup”, “policy” in the title and “retention”, “policy” in the passage (3 of 3 words)')
  })

  test('the same words in title and passage are said once; every listed word is a marked one', () => {
    const q = 'blameless postmortems'
    const title = highlight('Blameless postmortems', q)
    const passage = highlight('Our postmortems are blameless.', q)
    const why = explain(q, signals(), 1, title, passage)
    expect(why.text).toBe('Matched “blameless”, “postmortems” in the title and the passage (2 of 2 words)')
    for (const word of markedWords(q, title, passage)) expect(why.text).toContain(`“${word}”`)
  })

  test('words the document holds outside what is shown are counted apart, never listed as marked', () => {
    const q = 'deploy friday rollback'
    const passage = highlight('We never deploy on a Friday.', q)
    const why = explain(q, signals({ matched_terms: 3 }), 1, [], passage)
    expect(why.text).toBe('Matched “deploy”, “friday” in the passage (2 of 3 words); 3 of 3 words in the whole document')
    const hidden = explain(q, signals({ matched_terms: 1 }), 1, [], highlight('Nothing of it here.', q))
    expect(hidden.text).toBe('Holds 1 of 3 words outside this passage')
  })

  test('meaning and boost in words; the ranks and raw scores go to the detail', () => {
    const q = 'coffee machine'
    const byMeaning = explain(
      q,
      signals({ keyword_rank: null, keyword_score: null, semantic_rank: 2, semantic_score: 0.61234, matched_terms: 0, boost: 1.2 }),
      0.0312,
      [],
      highlight('The espresso maker is on floor 3.', q),
    )
    expect(byMeaning.text).toBe('Found by meaning alone; pinned or rated up')
    expect(byMeaning.detail).toBe('meaning #2 (0.612) · 0 of 2 words in the document · boost ×1.2 · score 0.031')
    const both = explain(q, signals({ semantic_rank: 1, semantic_score: 0.7, boost: 0.8 }), 0.05, highlight('Coffee machine', q), [])
    expect(both.text).toBe('Matched “coffee”, “machine” in the title (2 of 2 words); close in meaning; rated down')
    expect(both.detail).toBe('keyword #1 (2.346) · meaning #1 (0.7) · 2 of 2 words in the document · boost ×0.8 · score 0.05')
  })
})
