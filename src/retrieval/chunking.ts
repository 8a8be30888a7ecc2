// Splits a body into overlapping chunks. Each chunk owns the span [start, end) — the keyword index counts
// terms there only, so overlaps are never counted twice — and carries `overlap` characters past it, so a
// passage cut at a boundary is still whole in one chunk's content (for embeddings and snippets).
import type { FileLocation, FileSection } from '../../db/schema'

export interface Chunk {
  ordinal: number
  start: number
  /** End of the span this chunk owns (exclusive). */
  end: number
  /** body.slice(start, end + overlap): what is embedded and snippeted. */
  content: string
}

export interface ChunkOptions {
  size?: number
  overlap?: number
}

export function chunkText(body: string, { size = 1200, overlap = 200 }: ChunkOptions = {}): Chunk[] {
  const out: Chunk[] = []
  // Past this, only whitespace: a chunk reaching it owns the rest, so no chunk is whitespace alone (it would
  // have nothing to embed and nothing to find).
  const textEnd = body.trimEnd().length
  let start = 0
  while (start < body.length || out.length === 0) {
    let end = Math.min(body.length, start + size)
    if (end < body.length) end = boundaryBefore(body, start + Math.floor(size * 0.6), end)
    const last = end >= textEnd
    out.push({
      ordinal: out.length,
      start,
      end: last ? body.length : end,
      content: body.slice(start, Math.min(body.length, end + overlap)),
    })
    if (last) break
    start = end
  }
  return out
}

/** The latest sentence end, else whitespace, in [min, max); else max (a very long word is cut). */
function boundaryBefore(text: string, min: number, max: number): number {
  let space = -1
  for (let i = max - 1; i >= min; i--) {
    const c = text[i]!
    if ((c === '.' || c === '!' || c === '?' || c === '\n') && /\s/.test(text[i + 1] ?? ' ')) return i + 1
    if (space < 0 && /\s/.test(c)) space = i + 1
  }
  return space > 0 ? space : max
}

/**
 * A file's text chunked section by section (a page, a slide, a sheet, a part under a heading), so that no chunk
 * spans two pages and each knows where it was in the file; without sections, chunkText. A section's range runs to
 * the next one's start, so every character of the body is owned by exactly one chunk, as chunkText's are.
 */
export function chunkSections(body: string, sections: FileSection[] | null | undefined): (Chunk & { location: FileLocation | null })[] {
  if (!sections?.length) return chunkText(body).map((c) => ({ ...c, location: null }))
  const out: (Chunk & { location: FileLocation | null })[] = []
  // Text before the first section (none when the body is made by bodyOf) goes with the first.
  const starts = sections.map((s, i) => (i === 0 ? 0 : s.start))
  sections.forEach(({ start: _, ...location }, i) => {
    const from = starts[i]!
    const to = starts[i + 1] ?? body.length
    for (const c of chunkText(body.slice(from, to))) {
      out.push({ ordinal: out.length, start: from + c.start, end: from + c.end, content: c.content, location })
    }
  })
  return out
}

/** Where a chunk's content is in its document's body, in code points: what PostgreSQL's substr counts. */
export interface ContentSpan {
  content_from: number
  content_chars: number
}

/**
 * Each chunk's content as a span of its body (chunks keep no copy of the text: chunk-text.ts reads it back out of
 * documents.body). JavaScript's offsets count UTF-16 units and PostgreSQL's substr code points: the two differ after
 * a character outside the BMP (an emoji), so offsets are converted, by one pass over a body that has any.
 */
export function contentSpans(body: string, chunks: Chunk[]): ContentSpan[] {
  let codePoint: (i: number) => number = (i) => i
  if (/[\uD800-\uDFFF]/.test(body)) {
    const before = new Int32Array(body.length + 1)
    for (let i = 0, n = 0; i < body.length; i++) {
      before[i] = n
      const c = body.charCodeAt(i)
      // The second half of a pair is no character of its own.
      if (!(c >= 0xdc00 && c <= 0xdfff && i > 0 && body.charCodeAt(i - 1) >= 0xd800 && body.charCodeAt(i - 1) <= 0xdbff)) n++
      before[i + 1] = n
    }
    codePoint = (i) => before[i]!
  }
  return chunks.map((c) => {
    const from = codePoint(c.start)
    return { content_from: from, content_chars: codePoint(c.start + c.content.length) - from }
  })
}
