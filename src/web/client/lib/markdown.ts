// A small Markdown parser to a tree of blocks and inlines — never to an HTML string. The renderer
// (ui/markdown.tsx) makes Preact elements of it, so raw HTML in a document shows as the text it is.
// Covers what notes use: headings, paragraphs, lists, quotes, fenced code, rules, GitHub-style tables (an uploaded
// sheet or Word table reads as one), emphasis, code, links.
import { parseInline, type Inline } from './markdown-inline'

export { parseInline, type Inline } from './markdown-inline'

export type Block =
  | { type: 'heading'; level: number; children: Inline[] }
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'code'; lang: string; text: string }
  | { type: 'quote'; children: Block[] }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'rule' }
  | { type: 'table'; align: Align[]; head: Inline[][]; rows: Inline[][][] }

export type Align = 'left' | 'center' | 'right' | null

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/
const QUOTE = /^ {0,3}> ?/
const BULLET = /^ {0,3}([-*+])\s+/
const ORDERED = /^ {0,3}(\d{1,9})[.)]\s+/

export function parseMarkdown(source: string, depth = 0): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n')
  const blocks: Block[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (!line.trim()) {
      i++
      continue
    }
    const fence = FENCE.exec(line)
    if (fence) {
      const body: string[] = []
      for (i++; i < lines.length && !lines[i]!.trimStart().startsWith(fence[1]!); i++) body.push(lines[i]!)
      i++
      blocks.push({ type: 'code', lang: fence[2] ?? '', text: body.join('\n') })
      continue
    }
    const heading = HEADING.exec(line)
    if (heading) {
      blocks.push({ type: 'heading', level: heading[1]!.length, children: parseInline(heading[2]!) })
      i++
      continue
    }
    if (isRule(line)) {
      blocks.push({ type: 'rule' })
      i++
      continue
    }
    // Nesting is bounded, so a hostile document of ">>>>…" cannot exhaust the stack.
    if (QUOTE.test(line) && depth < 8) {
      const body: string[] = []
      for (; i < lines.length && QUOTE.test(lines[i]!); i++) body.push(lines[i]!.replace(QUOTE, ''))
      blocks.push({ type: 'quote', children: parseMarkdown(body.join('\n'), depth + 1) })
      continue
    }
    const table = i + 1 < lines.length ? tableAt(lines, i) : null
    if (table) {
      blocks.push(table.block)
      i = table.next
      continue
    }
    const marker = BULLET.exec(line) ?? ORDERED.exec(line)
    if (marker && depth < 8) {
      const ordered = !BULLET.test(line)
      const items: string[][] = []
      for (; i < lines.length; i++) {
        const current = lines[i]!
        const next = ordered ? ORDERED.exec(current) : BULLET.exec(current)
        if (next) items.push([current.slice(next[0].length)])
        else if (current.trim() && /^\s{2,}/.test(current) && items.length) items[items.length - 1]!.push(current.replace(/^\s{2,4}/, ''))
        else if (!current.trim() && i + 1 < lines.length && /^\s{2,}\S/.test(lines[i + 1]!) && items.length)
          items[items.length - 1]!.push('')
        else break
      }
      blocks.push({
        type: 'list',
        ordered,
        start: ordered ? Number(marker[1]) : 1,
        items: items.map((item) => parseMarkdown(item.join('\n'), depth + 1)),
      })
      continue
    }
    const body: string[] = []
    for (; i < lines.length && lines[i]!.trim() && !startsBlock(lines[i]!); i++) body.push(lines[i]!)
    if (!body.length) body.push(lines[i++]!)
    blocks.push({ type: 'paragraph', children: parseInline(body.join('\n')) })
  }
  return blocks
}

/** A line's cells: split at pipes not escaped (`\|` is a pipe in a cell), the outer pipes dropped, trimmed. */
export function cellsOf(line: string): string[] {
  const cells: string[] = []
  let cell = ''
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!
    if (c === '\\' && line[i + 1] === '|') {
      cell += '|'
      i++
    } else if (c === '|') {
      cells.push(cell)
      cell = ''
    } else cell += c
  }
  cells.push(cell)
  const trimmed = line.trim()
  if (trimmed.startsWith('|')) cells.shift()
  if (trimmed.endsWith('|') && !trimmed.endsWith('\\|') && cells.length > 0) cells.pop()
  return cells.map((c) => c.trim())
}

/** `| --- | :---: | ---: |`: each cell dashes with optional colons (checked a cell at a time: linear). */
function alignsOf(line: string): Align[] | null {
  if (!line.includes('-')) return null
  const cells = cellsOf(line)
  const aligns: Align[] = []
  for (const cell of cells) {
    if (!/^:?-+:?$/.test(cell)) return null
    aligns.push(cell.startsWith(':') && cell.endsWith(':') ? 'center' : cell.endsWith(':') ? 'right' : cell.startsWith(':') ? 'left' : null)
  }
  return aligns
}

/** A table starting at line `i` (a header row with pipes, then a delimiter row of as many cells), or null. */
function tableAt(lines: string[], i: number): { block: Block; next: number } | null {
  const header = lines[i]!
  if (!header.includes('|')) return null
  const align = alignsOf(lines[i + 1]!)
  const head = cellsOf(header)
  if (!align || align.length !== head.length) return null
  const rows: Inline[][][] = []
  let next = i + 2
  for (; next < lines.length && lines[next]!.trim() && lines[next]!.includes('|'); next++) {
    const cells = cellsOf(lines[next]!)
    // As GitHub reads a row: cut to the header's width, or filled out with empty cells.
    rows.push(head.map((_, c) => parseInline(cells[c] ?? '')))
  }
  return { block: { type: 'table', align, head: head.map((h) => parseInline(h)), rows }, next }
}

const startsBlock = (line: string) =>
  FENCE.test(line) || HEADING.test(line) || isRule(line) || QUOTE.test(line) || BULLET.test(line) || ORDERED.test(line)

/**
 * `---`, `***` or `___`, white space between allowed, indented by three spaces at most: a rule. A loop, not the
 * pattern it replaces (a back-reference under a repeat), which a long line of "- - - … x" made slow.
 */
function isRule(line: string): boolean {
  const indent = line.length - line.trimStart().length
  const mark = line[indent]
  if (mark !== '-' && mark !== '*' && mark !== '_') return false
  if (indent > 3 || line.slice(0, indent) !== ' '.repeat(indent)) return false
  let marks = 0
  for (let i = indent; i < line.length; i++) {
    if (line[i] === mark) marks++
    else if (!/\s/.test(line[i]!)) return false
  }
  return marks >= 3
}

/** The words of a Markdown text without its markers, for excerpts and snippets shown as one line. */
export function markdownToText(source: string): string {
  const inline = (items: Inline[]): string =>
    items.map((i) => (i.type === 'text' || i.type === 'code' ? i.text : i.type === 'break' ? ' ' : inline(i.children))).join('')
  const block = (b: Block): string =>
    b.type === 'heading' || b.type === 'paragraph'
      ? inline(b.children)
      : b.type === 'code'
        ? b.text
        : b.type === 'quote'
          ? b.children.map(block).join(' ')
          : b.type === 'list'
            ? b.items.map((item) => item.map(block).join(' ')).join(' ')
            : b.type === 'table'
              ? [b.head, ...b.rows].map((row) => row.map(inline).join(' ')).join(' ')
              : ''
  return parseMarkdown(source).map(block).join(' ').replace(/\s+/g, ' ').trim()
}
