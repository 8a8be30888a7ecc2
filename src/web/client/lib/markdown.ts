// A small Markdown parser to a tree of blocks and inlines — never to an HTML string. The renderer
// (ui/markdown.tsx) makes Preact elements of it, so raw HTML in a document shows as the text it is.
// Covers what notes use: headings, paragraphs, lists, quotes, fenced code, rules, emphasis, code, links.
export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong' | 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'break' }

export type Block =
  | { type: 'heading'; level: number; children: Inline[] }
  | { type: 'paragraph'; children: Inline[] }
  | { type: 'code'; lang: string; text: string }
  | { type: 'quote'; children: Block[] }
  | { type: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { type: 'rule' }

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)/
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/
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
    if (RULE.test(line)) {
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

const startsBlock = (line: string) =>
  FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || BULLET.test(line) || ORDERED.test(line)

// One scan: the earliest of code span, link, autolink, bare URL, strong, emphasis, hard break.
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(\s*<?([^\s()<>]+(?:\([^\s()]*\))?)>?(?:\s+"[^"\n]*")?\s*\)|<((?:https?|mailto):[^\s<>]+)>|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])|\*\*(?=\S)([^\n]*?\S)\*\*|__(?=\S)([^\n]*?\S)__|\*(?=\S)([^*\n]*?\S)\*|(?<![\p{L}\p{N}])_(?=\S)([^_\n]*?\S)_(?![\p{L}\p{N}])| {2,}\n|\\\n/gu

export function parseInline(text: string, depth = 0): Inline[] {
  const out: Inline[] = []
  let at = 0
  const push = (piece: Inline) => {
    const last = out[out.length - 1]
    if (piece.type === 'text' && last?.type === 'text') last.text += piece.text
    else out.push(piece)
  }
  const nested = (inner: string) => (depth < 6 ? parseInline(inner, depth + 1) : [{ type: 'text' as const, text: inner }])
  for (const m of text.matchAll(INLINE)) {
    if (m.index > at) push({ type: 'text', text: text.slice(at, m.index) })
    at = m.index + m[0].length
    if (m[1] !== undefined) push({ type: 'code', text: m[1] })
    else if (m[2] !== undefined) push({ type: 'link', href: m[3]!, children: nested(m[2]) })
    else if (m[4] !== undefined) push({ type: 'link', href: m[4], children: [{ type: 'text', text: m[4] }] })
    else if (m[5] !== undefined) push({ type: 'link', href: m[5], children: [{ type: 'text', text: m[5] }] })
    else if (m[6] !== undefined || m[7] !== undefined) push({ type: 'strong', children: nested((m[6] ?? m[7])!) })
    else if (m[8] !== undefined || m[9] !== undefined) push({ type: 'em', children: nested((m[8] ?? m[9])!) })
    else push({ type: 'break' })
  }
  if (at < text.length) push({ type: 'text', text: text.slice(at) })
  return out
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
            : ''
  return parseMarkdown(source).map(block).join(' ').replace(/\s+/g, ' ').trim()
}
