// "Why this result", in words: which searched words it matched and where (the very words the title and snippet
// mark: markedWords of their highlight pieces), whether it is close in meaning, and what boosted it — with the raw
// ranks and scores apart, for a tooltip.
import { formatScore, plural } from './format'
import { markedWords, type Piece, queryWords } from './highlight'

export interface Signals {
  keyword_rank: number | null
  keyword_score: number | null
  semantic_rank: number | null
  semantic_score: number | null
  /** Searched words the whole document holds (the service's count). */
  matched_terms: number
  boost: number
}

const quoted = (words: string[]) => words.map((w) => `“${w}”`).join(', ')

/**
 * `title`: the highlight pieces of the result's title (none for a message, whose label is not its title);
 * `passage`: those of its snippet. `text` says why in words, `detail` gives the ranks and scores.
 */
export function explain(
  query: string,
  signals: Signals,
  score: number,
  title: Piece[],
  passage: Piece[],
): { text: string; detail: string } {
  const words = queryWords(query)
  const inTitle = markedWords(query, title)
  const inPassage = markedWords(query, passage)
  const shown = markedWords(query, title, passage)
  const of = `${shown.length} of ${plural(words.length, 'word')}`
  const parts: string[] = []
  if (shown.length) {
    const titleOnly = inTitle.filter((w) => !inPassage.includes(w))
    const passageOnly = inPassage.filter((w) => !inTitle.includes(w))
    const where =
      !titleOnly.length && !passageOnly.length
        ? `${quoted(shown)} in the title and the passage`
        : [inTitle.length && `${quoted(inTitle)} in the title`, inPassage.length && `${quoted(inPassage)} in the passage`]
            .filter(Boolean)
            .join(' and ')
    parts.push(`matched ${where} (${of})`)
  }
  // The document may hold searched words the title and passage shown do not: said, never listed as marked.
  if (signals.matched_terms > shown.length)
    parts.push(
      shown.length
        ? `${signals.matched_terms} of ${plural(words.length, 'word')} in the whole document`
        : `holds ${signals.matched_terms} of ${plural(words.length, 'word')} outside this passage`,
    )
  if (signals.semantic_rank !== null)
    parts.push(signals.keyword_rank === null && !shown.length ? 'found by meaning alone' : 'close in meaning')
  if (signals.boost > 1) parts.push('pinned or rated up')
  else if (signals.boost < 1) parts.push('rated down')
  const text = parts.join('; ')

  const detail: string[] = []
  if (signals.keyword_rank !== null) detail.push(`keyword #${signals.keyword_rank} (${formatScore(signals.keyword_score)})`)
  if (signals.semantic_rank !== null) detail.push(`meaning #${signals.semantic_rank} (${formatScore(signals.semantic_score)})`)
  detail.push(`${signals.matched_terms} of ${plural(words.length, 'word')} in the document`)
  if (signals.boost !== 1) detail.push(`boost ×${formatScore(signals.boost)}`)
  detail.push(`score ${formatScore(score)}`)
  return { text: text ? text[0]!.toUpperCase() + text.slice(1) : 'Ranked by the service', detail: detail.join(' · ') }
}
