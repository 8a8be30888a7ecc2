// Highlighting of search words in a snippet, as text pieces (the screen makes <mark> elements of the hits):
// the snippet is never parsed as HTML. Mirrors the service's matching: whole words, the last one as a prefix.
export interface Piece {
  text: string
  hit: boolean
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
    pieces.push({ text: found[0], hit: true })
    at = found.index + found[0].length
  }
  if (at < text.length) pieces.push({ text: text.slice(at), hit: false })
  return pieces
}
