// Highlighting of search words in a snippet or title, as text pieces (the screen makes <mark> elements of the hits):
// the text is never parsed as HTML. Mirrors the service's matching: whole words, the last one as a prefix. Each hit
// names the query word it matched, so the words a result says it matched are the very words it marks.
export interface Piece {
  text: string
  hit: boolean
  /** For a hit: the query word it matched (lower-cased, as queryWords gives it). */
  word?: string
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The searchable words of a query (letters and digits, at least two characters), lower-cased. */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [])]
}

export function highlight(text: string, query: string): Piece[] {
  const words = queryWords(query)
  if (!words.length || !text) return text ? [{ text, hit: false }] : []
  const last = words[words.length - 1]!
  const alternatives = words.map((w) => (w === last ? `${escapeRegExp(w)}[\\p{L}\\p{N}]*` : `${escapeRegExp(w)}(?![\\p{L}\\p{N}])`))
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})`, 'giu')
  const pieces: Piece[] = []
  let at = 0
  for (const found of text.matchAll(pattern)) {
    if (found.index > at) pieces.push({ text: text.slice(at, found.index), hit: false })
    const hit = found[0].toLowerCase()
    pieces.push({ text: found[0], hit: true, word: words.find((w) => w === hit) ?? last })
    at = found.index + found[0].length
  }
  if (at < text.length) pieces.push({ text: text.slice(at), hit: false })
  return pieces
}

/** The query words `pieces` mark, each once, in the query's order. */
export function markedWords(query: string, ...texts: Piece[][]): string[] {
  const marked = new Set(texts.flat().flatMap((p) => (p.word ? [p.word] : [])))
  return queryWords(query).filter((w) => marked.has(w))
}
