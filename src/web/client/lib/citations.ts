// Which sources an answer cites: the numbers of its [n] markers (and of a list, [1, 2]), so the sources panel
// can show the cited ones first and the rest on request.

const MARKER = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g

/** The source numbers `text` cites, in the order first cited. */
export function citedIndexes(text: string): number[] {
  const seen = new Set<number>()
  for (const match of text.matchAll(MARKER)) for (const n of match[1]!.split(',')) seen.add(Number(n.trim()))
  return [...seen]
}
