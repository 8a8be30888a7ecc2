// What extracting a file yields (text sections that know their page, slide, sheet and heading), and how it fails.
import type { FileFormat } from './formats'

/** One stretch of a file's text and where it stands, so a citation can say "p. 14" or "slide 3". */
export interface Section {
  text: string
  page?: number
  slide?: number
  sheet?: string
  heading?: string
}

export interface Extracted {
  format: FileFormat
  title?: string
  tags?: string[]
  sections: Section[]
  /** Pages, slides or sheets counted. */
  pages?: number
}

/** A file that cannot be read, with a reason a person can act on (this message is shown to them as is). */
export class UnreadableFile extends Error {
  override name = 'UnreadableFile'
}

/** The sections' texts joined as the document body. */
export const joinSections = (sections: Section[]) => sections.map((s) => s.text).join('\n\n')

/**
 * Line ends to \n, runs of spaces inside a line to one, trailing spaces cut, at most one blank line in a row,
 * no blank ends. A line's indentation stays: it carries a Markdown code block or a nested list.
 */
export function normalizeWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\f\v]/g, ' ')
    .replace(/\u200b/g, '')
    .replace(/(\S)[ \t]{2,}/g, '$1 ')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+|\s+$/g, '')
}

/** Keeps the sections with text, their text normalized; none left is a file that holds no text. */
export function keepNonEmpty(sections: Section[], emptyReason = 'the file holds no text'): Section[] {
  const kept = sections.map((s) => ({ ...s, text: normalizeWhitespace(s.text) })).filter((s) => s.text.length > 0)
  if (kept.length === 0) throw new UnreadableFile(emptyReason)
  return kept
}

/** Past the plan's page limit: "over 500 pages (it has 612): this plan reads up to 500". */
export const overPages = (count: number, max: number, unit = 'pages') =>
  new UnreadableFile(`over ${max} ${unit} (it has ${count}): this plan reads up to ${max}`)

/** A library's message, cut short: it names what is wrong with the file (an unexpected part, a bad zip). */
export const reasonOf = (error: unknown) => String(error instanceof Error ? error.message : error).slice(0, 200)
