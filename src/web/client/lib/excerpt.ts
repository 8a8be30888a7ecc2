// An excerpt as plain text for lists. The server's excerpt is the body's first characters with every newline
// flattened, so Markdown arrives as one line (a table's rows run together, a heading's '#' mid-line, a '**' cut
// open): it is read as Markdown, then what is left of the syntax is taken out.
import { markdownToText } from './markdown'

export function plainExcerpt(excerpt: string): string {
  return (
    markdownToText(excerpt)
      // A table's separator row (|---|:--:|) and its pipes: cells read as a list.
      .replace(/\|?(\s*:?-{3,}:?\s*\|)+\s*(:?-{3,}:?)?/g, ' ')
      .split('|')
      .map((cell) => cell.trim())
      .filter(Boolean)
      .join(' · ')
      // Headings and emphasis the flattened text left behind, and code fences.
      .replace(/(^|\s)#{1,6}(?=\s)/g, '$1')
      .replace(/\*\*|__|`{1,3}/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  )
}
