// Article HTML (Readability's output) → plain text with Markdown-style headings, lists and code blocks.
// Runs in the page's isolated world on an inert DOMParser document: nothing in it loads or runs.

const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'DD',
  'DIV',
  'DL',
  'DT',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'LI',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'SECTION',
  'TABLE',
  'TR',
  'UL',
])
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'BUTTON'])

export function htmlToText(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html')
  return nodeToText(doc.body)
}

export function nodeToText(root: Node): string {
  const blocks: string[] = []
  let line = ''
  let prefix = ''
  const flush = () => {
    const text = line.replace(/\s+/g, ' ').trim()
    if (text) blocks.push(prefix + text)
    line = ''
    prefix = ''
  }
  const walk = (node: Node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      line += (node as Text).data
      return
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return
    const el = node as Element
    const tag = el.tagName.toUpperCase()
    if (SKIP.has(tag)) return
    if (tag === 'BR') return flush()
    if (tag === 'PRE') {
      flush()
      const code = (el.textContent ?? '').replace(/\s+$/, '')
      if (code.trim()) blocks.push('```\n' + code + '\n```')
      return
    }
    if (!BLOCKS.has(tag)) {
      for (const child of Array.from(el.childNodes)) walk(child)
      return
    }
    flush()
    if (/^H[1-6]$/.test(tag)) prefix = '#'.repeat(Number(tag[1])) + ' '
    else if (tag === 'LI') prefix = '- '
    else if (tag === 'BLOCKQUOTE') prefix = '> '
    const own = prefix
    for (const child of Array.from(el.childNodes)) {
      walk(child)
      // A nested block flushed the line and its prefix; text after it in this element keeps no marker.
      if (prefix !== own) prefix = ''
    }
    flush()
  }
  walk(root)
  return blocks.join('\n\n')
}
