// Grounding: how retrieved sources are put before a model (a numbered block in the instructions) and how
// its [n] citation markers are checked on the way out — a marker that points to no source never reaches
// the client, even when it arrives split across stream deltas.
import type { MessageSource } from '../../db/schema'

export type Source = MessageSource

/** The line that asks for a detailed answer (the extractive answerer reads it too). */
export const DETAILED = 'Answer thoroughly, covering every relevant source.'

const OPEN = '<sources>'
const CLOSE = '</sources>'

export function groundingInstructions(sources: Source[], style: 'concise' | 'detailed' = 'concise'): string {
  const block = sources.map((s) => `[${s.index}] ${s.title ?? 'Untitled'}${s.url ? ` (${s.url})` : ''}\n${s.excerpt ?? ''}`).join('\n\n')
  return [
    "You answer questions from the user's own documents and memories, given below as numbered sources.",
    'Use only what the sources say. After each statement, cite the sources it rests on as [n], with n the number of the source.',
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
