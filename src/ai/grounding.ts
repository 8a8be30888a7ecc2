// Grounding: how retrieved sources are put before a model (a numbered block in the instructions) and how
// its [n] citation markers are checked on the way out — a marker that points to no source never reaches
// the client, even when it arrives split across stream deltas.
import type { MessageSource, SourceNeighbour } from '../../db/schema'
import { SPOKEN_DATE, spokenDate } from '../lib/spoken-date'

export type Source = MessageSource

/** The line that asks for a detailed answer (the extractive answerer reads it too). */
export const DETAILED = 'Answer thoroughly, covering every relevant source.'

const OPEN = '<sources>'
const CLOSE = '</sources>'

/** How a message is quoted, to a model and in a source's excerpt: "<speaker>, <date>: <text>" (the date in UTC). */
export const quoteMessage = (speaker: string | null, occurredAt: string | Date, text: string) =>
  `${speaker ?? 'Someone'}, ${spokenDate(new Date(occurredAt))}: ${text}`

const QUOTED = new RegExp(`^([^\\n:]{1,200}?), (${SPOKEN_DATE.source}): (.*)$`)

/** A line quoteMessage wrote, read back: who said it, on which date (as written), and what. */
export function readQuote(line: string): { speaker: string; date: string; text: string } | null {
  const m = QUOTED.exec(line)
  return m ? { speaker: m[1]!, date: m[2]!, text: m[3]! } : null
}

/**
 * What a source shows a model: its excerpt, and for a thread's message the messages said around it, a line each,
 * in the thread's order — so a reply is read as the answer it is, with who said what and when.
 */
export function sourceText(source: Source): string {
  const excerpt = source.excerpt ?? ''
  if (!source.context) return excerpt
  const line = (n: SourceNeighbour) => quoteMessage(n.speaker, n.occurred_at, n.excerpt.replace(/\s+/g, ' ').trim())
  return [...source.context.before.map(line), excerpt, ...source.context.after.map(line)].join('\n')
}

export function groundingInstructions(sources: Source[], style: 'concise' | 'detailed' = 'concise'): string {
  const block = sources
    .map(
      (s) =>
        `[${s.index}] ${s.title ?? 'Untitled'}${s.location ? `, ${s.location.label}` : ''}${s.url ? ` (${s.url})` : ''}\n${sourceText(s)}`,
    )
    .join('\n\n')
  const quotesMessages = sources.some((s) => s.context)
  return [
    "You answer questions from the user's own documents and memories, given below as numbered sources.",
    'Use only what the sources say. After each statement, cite the sources it rests on as [n], with n the number of the source.',
    ...(quotesMessages
      ? [
          'A message of a conversation is quoted as "<speaker>, <date>: <text>", with the messages said around it; ' +
            'say who said what, and when, from those lines.',
        ]
      : []),
    'If the sources do not answer the question, say so plainly instead of guessing.',
    style === 'concise' ? 'Answer in a few sentences.' : DETAILED,
    '',
    OPEN,
    block || '(no sources found)',
    CLOSE,
  ].join('\n')
}

/** The passages of a sources block written by groundingInstructions. */
export function parseSourcesBlock(text: string): { index: number; text: string }[] {
  const start = text.indexOf(OPEN)
  const end = text.indexOf(CLOSE, start)
  if (start < 0 || end < 0) return []
  const body = text.slice(start + OPEN.length, end)
  const out: { index: number; text: string }[] = []
  for (const block of body.split(/\n\n(?=\[\d+\] )/)) {
    const m = /^\s*\[(\d+)\] [^\n]*\n?([\s\S]*)$/.exec(block)
    if (m && m[2]!.trim()) out.push({ index: Number(m[1]), text: m[2]!.trim() })
  }
  return out
}

const MARKER = /(\s?)\[(\d+(?:\s*,\s*\d+)*)\]/g
/** An unfinished marker at the end of a delta ("[", "[1", "[1, 2"), and a space that may precede one, wait for
 * the next delta: the space goes with the marker if the marker is dropped. */
const PARTIAL = /\s?(?:\[[\d,\s]*)?$/

/**
 * Drops citation markers that refer to no source (and the space before them), streaming: `push` returns the
 * text that is safe to send now, `flush` what is left at the end. `cited` collects the valid numbers seen.
 */
export class CitationFilter {
  readonly cited = new Set<number>()
  private pending = ''

  constructor(private readonly sourceCount: number) {}

  push(delta: string): string {
    const text = this.pending + delta
    const partial = PARTIAL.exec(text)
    this.pending = partial ? text.slice(partial.index) : ''
    return this.clean(partial ? text.slice(0, partial.index) : text)
  }

  flush(): string {
    const rest = this.clean(this.pending)
    this.pending = ''
    return rest
  }

  private clean(text: string): string {
    return text.replace(MARKER, (_match, space: string, list: string) => {
      const valid = list
        .split(',')
        .map((n) => Number(n.trim()))
        .filter((n) => n >= 1 && n <= this.sourceCount)
      for (const n of valid) this.cited.add(n)
      return valid.length ? space + valid.map((n) => `[${n}]`).join('') : ''
    })
  }
}

/** The whole text through a filter, for answers that are not streamed. */
export function filterCitations(text: string, sourceCount: number): { text: string; cited: Set<number> } {
  const filter = new CitationFilter(sourceCount)
  const out = filter.push(text) + filter.flush()
  return { text: out, cited: filter.cited }
}
