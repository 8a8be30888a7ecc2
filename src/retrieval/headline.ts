// A search result's snippet: the passage of its best chunk that holds the most query words, cut at word
// boundaries, as plain text. It does in JavaScript what PostgreSQL's ts_headline did (MinWords 20, MaxWords 40,
// one fragment): ts_headline parses and stems the whole chunk again for every result, ~0.5 ms a result on
// PGlite, a third of a keyword search's database time. Here a word matches a query term when it starts with the
// term's stem (the English stemmer keeps a word's beginning; `studi` also matches `study`), which is all a
// choice of passage needs: the ranking itself never reads this.
import type { QueryTerm } from './keyword-query'

/** Words a snippet shows: ts_headline's MinWords..MaxWords, as the service has always answered. */
const MIN_WORDS = 20
const MAX_WORDS = 40
/** Characters a snippet takes beyond its first and last word up to the nearest space (a date, a URL, `(Smith`). */
const CLING = 40
/** Words in the window that chooses the passage (then widened to MIN_WORDS..MAX_WORDS around the matches). */
const WINDOW = 30

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu

interface Word {
  start: number
  end: number
  /** Query word positions (QueryTerm.idx) this word matches, as a bit set; 0 when none. */
  matches: number
}

/** The passage of `text` with the most query words, ~20–40 words long, whitespace collapsed. */
export function headline(text: string, terms: QueryTerm[]): string {
  const words: Word[] = []
  const stems = terms.map((t) => ({ bit: 2 ** Math.min(t.idx, 30), stems: stemsOf(t.term) }))
  for (const m of text.matchAll(WORD)) {
    const lower = m[0].toLowerCase()
    let matches = 0
    for (const t of stems) if (t.stems.some((s) => lower.startsWith(s))) matches |= t.bit
    words.push({ start: m.index, end: m.index + m[0].length, matches })
  }
  if (words.length === 0) return collapse(text.slice(0, 240))
  const [from, to] = bestWindow(words)
  // Cut at whitespace, never inside what is written without a space: `(Smith`, `tides.` and `2025-01-01.` read
  // whole (bounded, so a run of text without spaces cannot make a snippet of it).
  let start = words[from]!.start
  let end = words[to]!.end
  while (start > 0 && /\S/.test(text[start - 1]!) && words[from]!.start - start < CLING) start--
  while (end < text.length && /\S/.test(text[end]!) && end - words[to]!.end < CLING) end++
  return collapse(text.slice(start, end))
}

/** The stem and, for a stem the stemmer ended in `i` for `y` (study → studi), the word's own spelling too. */
function stemsOf(term: string): string[] {
  const stem = term.toLowerCase()
  return stem.endsWith('i') ? [stem, `${stem.slice(0, -1)}y`] : [stem]
}

/**
 * First and last word index of the passage: the WINDOW-word span with the most distinct query words (then the
 * most matching words, then the earliest), trimmed to start at its first match when that leaves MIN_WORDS, and
 * no longer than MAX_WORDS. Without a match, the chunk's first MIN_WORDS words (as ts_headline answered).
 */
function bestWindow(words: Word[]): [number, number] {
  const n = words.length
  let best = -1
  let bestDistinct = 0
  let bestCount = 0
  for (let i = 0; i < n; i++) {
    if (words[i]!.matches === 0) continue // a best window can always start at a match
    let mask = 0
    let count = 0
    for (let j = i; j < Math.min(n, i + WINDOW); j++) {
      if (words[j]!.matches === 0) continue
      mask |= words[j]!.matches
      count++
    }
    const distinct = bits(mask)
    if (distinct > bestDistinct || (distinct === bestDistinct && count > bestCount)) {
      best = i
      bestDistinct = distinct
      bestCount = count
    }
  }
  if (best < 0) return [0, Math.min(n, MIN_WORDS) - 1]
  // A little of what leads up to the first match reads better than starting on it, as long as the passage
  // still reaches its last match within MAX_WORDS.
  let last = best
  for (let j = best; j < Math.min(n, best + WINDOW); j++) if (words[j]!.matches) last = j
  const lead = Math.min(best, Math.max(0, Math.min(3, MAX_WORDS - (last - best + 1))))
  const from = best - lead
  const to = Math.min(n - 1, Math.max(last, from + MIN_WORDS - 1), from + MAX_WORDS - 1)
  return [from, to]
}

function bits(mask: number): number {
  let count = 0
  for (let m = mask; m > 0; m = Math.floor(m / 2)) count += m % 2
  return count
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim()
