// Plain text as one section; Markdown with its YAML front matter (title, tags) read and its body cut at headings.
import { type Extracted, keepNonEmpty, type Section, UnreadableFile } from './extracted'
import { decodeUtf8 } from './file-format'

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/
/** Front matter past this is no header: it is read as text. */
const MAX_FRONT_MATTER = 64 * 1024
const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$/
const FENCE = /^ {0,3}(```|~~~)/

export function readText(bytes: Uint8Array): string {
  const text = decodeUtf8(bytes)
  if (text === undefined) throw new UnreadableFile('the file is not UTF-8 text: save it as UTF-8 and upload it again')
  return text
}

export function extractPlainText(bytes: Uint8Array): Extracted {
  return { format: 'text', sections: keepNonEmpty([{ text: readText(bytes) }]) }
}

export function extractMarkdown(bytes: Uint8Array): Extracted {
  const { meta, body } = splitFrontMatter(readText(bytes))
  const title = typeof meta.title === 'string' && meta.title.trim() ? meta.title.trim() : undefined
  const tags = tagsOf(meta.tags)
  return {
    format: 'markdown',
    ...(title ? { title } : {}),
    ...(tags.length ? { tags } : {}),
    sections: keepNonEmpty(headingSections(body)),
  }
}

function splitFrontMatter(text: string): { meta: Record<string, unknown>; body: string } {
  const match = FRONT_MATTER.exec(text)
  if (!match || match[0].length > MAX_FRONT_MATTER) return { meta: {}, body: text }
  try {
    const meta = Bun.YAML.parse(match[1] ?? '')
    const plain = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {}
    return { meta: plain, body: text.slice(match[0].length) }
  } catch {
    // Not YAML after all (a thematic break opening the file): the block stays text.
    return { meta: {}, body: text }
  }
}

/** `tags: [a, b]` or `tags: a, b`; each a short trimmed string. */
function tagsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : []
  const tags = list.filter((t): t is string | number => typeof t === 'string' || typeof t === 'number').map((t) => String(t).trim())
  return [...new Set(tags.filter((t) => t.length > 0 && t.length <= 100))].slice(0, 50)
}

/** A new section at each ATX heading outside a code fence; the heading line stays in its section's text. */
function headingSections(body: string): Section[] {
  const sections: Section[] = []
  let current: Section = { text: '' }
  let lines: string[] = []
  let fence: string | undefined
  for (const line of body.split(/\r?\n/)) {
    const opens = FENCE.exec(line)?.[1]
    if (opens && (!fence || fence === opens)) fence = fence ? undefined : opens
    const heading = fence || opens ? undefined : ATX_HEADING.exec(line)?.[2]
    if (heading) {
      current.text = lines.join('\n')
      sections.push(current)
      current = { text: '', heading: heading.trim() }
      lines = []
    }
    lines.push(line)
  }
  current.text = lines.join('\n')
  sections.push(current)
  return sections
}
