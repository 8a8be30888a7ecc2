// Confluence storage format (XHTML with ac:/ri: macro elements) → readable plain text for indexing.
// A small tolerant tokenizer rather than an XML parser: real storage bodies use HTML entities (&nbsp;) that
// strict XML rejects, and a page must never fail to import because of one odd tag.

/** Elements that start and end a line of their own. */
const LINE = new Set(['li', 'td', 'th', 'tr', 'dt', 'dd', 'caption', 'figcaption', 'ac:task', 'ac:task-body', 'ac:layout-cell'])
/** Inside these, blocks end a line without a blank one. */
const TIGHT = new Set(['li', 'td', 'th', 'dt', 'dd', 'ac:task-body'])
/** Elements set apart by a blank line (top-level blocks). */
const PARAGRAPH = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'div',
  'blockquote',
  'pre',
  'ul',
  'ol',
  'dl',
  'table',
  'hr',
  'section',
  'figure',
  'ac:structured-macro',
  'ac:macro',
  'ac:rich-text-body',
  'ac:task-list',
  'ac:layout',
  'ac:layout-section',
  'ac:adf-extension',
  'ac:adf-node',
  'ac:adf-content',
])
/**
 * Elements whose whole content is dropped: macro parameters, images and attachments, emoticons, task
 * bookkeeping (ids, statuses), editor placeholders, and the ADF fallback that repeats its node's content.
 */
const DROPPED = new Set([
  'ac:parameter',
  'ac:default-parameter',
  'ac:image',
  'ac:emoticon',
  'ac:placeholder',
  'ac:task-id',
  'ac:task-uuid',
  'ac:task-status',
  'ac:adf-attribute',
  'ac:adf-fallback',
  'style',
  'script',
  'head',
  'title',
])
const VOID = new Set(['br', 'hr', 'img', 'col', 'wbr', 'meta', 'link', 'input'])

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  shy: '',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  laquo: '«',
  raquo: '»',
  lsaquo: '‹',
  rsaquo: '›',
  bull: '•',
  middot: '·',
  copy: '©',
  reg: '®',
  trade: '™',
  deg: '°',
  plusmn: '±',
  times: '×',
  divide: '÷',
  micro: 'µ',
  para: '¶',
  sect: '§',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  frac12: '½',
  frac14: '¼',
  frac34: '¾',
  sup2: '²',
  sup3: '³',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
  rArr: '⇒',
  lArr: '⇐',
  hArr: '⇔',
  le: '≤',
  ge: '≥',
  ne: '≠',
  asymp: '≈',
  infin: '∞',
  check: '✓',
  dagger: '†',
  iexcl: '¡',
  iquest: '¿',
  auml: 'ä',
  ouml: 'ö',
  uuml: 'ü',
  Auml: 'Ä',
  Ouml: 'Ö',
  Uuml: 'Ü',
  szlig: 'ß',
  aacute: 'á',
  eacute: 'é',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
  agrave: 'à',
  egrave: 'è',
  igrave: 'ì',
  ograve: 'ò',
  ugrave: 'ù',
  acirc: 'â',
  ecirc: 'ê',
  icirc: 'î',
  ocirc: 'ô',
  ucirc: 'û',
  ccedil: 'ç',
  ntilde: 'ñ',
  Eacute: 'É',
  Ccedil: 'Ç',
  Ntilde: 'Ñ',
  aring: 'å',
  Aring: 'Å',
  aelig: 'æ',
  oslash: 'ø',
  Oslash: 'Ø',
}

/** Decodes numeric and the common named character references; unknown names stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return ENTITIES[ref] ?? whole
  })
}

const TOKEN =
  /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<(\/?)([A-Za-z][\w:.-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/g

function attributesOf(source: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of source.matchAll(/([^\s=>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g))
    out[m[1]!] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '')
  return out
}

/** Collects text into lines: inline text joins the current line, blocks end it. */
class Lines {
  private out: string[] = []
  private current = ''

  text(text: string): void {
    this.current += text
  }
  /** Ends the current line; a paragraph break also leaves a blank line. */
  end(paragraph: boolean): void {
    const line = this.current.replace(/\s+/g, ' ').trim()
    this.current = ''
    if (line) this.out.push(line)
    if (paragraph && this.out.length && this.out.at(-1) !== '') this.out.push('')
  }
  /** Preformatted text (code): its own lines, indentation kept, only trailing blanks trimmed. */
  verbatim(text: string): void {
    this.end(false)
    const lines = text
      .replace(/\r\n?/g, '\n')
      .split('\n')
      .map((l) => l.replace(/\s+$/, ''))
    while (lines.length && !lines[0]) lines.shift()
    while (lines.length && !lines.at(-1)) lines.pop()
    this.out.push(...lines)
    this.end(true)
  }
  result(): string {
    this.end(false)
    return this.out
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  }
}

/** Plain text of a page's storage-format body: one block per line, macro parameters and images dropped. */
export function storageToText(storage: string): string {
  const lines = new Lines()
  const open: string[] = []
  let dropped = 0
  /** Page links without a link body show the linked page's title, as Confluence renders them. */
  let link: { title: string | null; hadText: boolean } | null = null
  const inside = (name: string) => open.includes(name)
  const emit = (text: string) => {
    if (dropped || !text) return
    if (link && text.trim()) link.hadText = true
    lines.text(text)
  }

  let at = 0
  for (const m of storage.matchAll(TOKEN)) {
    emit(decodeEntities(storage.slice(at, m.index)))
    at = m.index + m[0].length
    if (m[1] !== undefined) {
      if (dropped) continue
      // A code macro's CDATA is verbatim text; a link's plain-text body is inline.
      if (inside('ac:plain-text-body') || inside('pre')) lines.verbatim(m[1])
      else emit(m[1])
      continue
    }
    const name = m[3]?.toLowerCase()
    if (!name) continue // comment, processing instruction, doctype
    const closing = m[2] === '/'
    const selfClosing = m[5] === '/' || VOID.has(name)
    if (!closing) {
      if (name === 'br' && !dropped) lines.end(false)
      if (name === 'time' && !dropped) emit(attributesOf(m[4] ?? '').datetime ?? '')
      if (name === 'ri:page' && link && !link.title) link.title = attributesOf(m[4] ?? '')['ri:content-title'] ?? null
      if (name === 'ac:link' && !selfClosing) link = { title: null, hadText: false }
      if (!dropped) boundary(name)
      if (selfClosing) continue
      open.push(name)
      if (DROPPED.has(name)) dropped++
      continue
    }
    const index = open.lastIndexOf(name)
    if (index < 0) continue // a stray closing tag
    for (const gone of open.splice(index)) if (DROPPED.has(gone)) dropped--
    if (name === 'ac:link' && link) {
      if (!link.hadText && link.title) emit(link.title)
      link = null
    }
    if (!dropped) boundary(name)
  }
  emit(decodeEntities(storage.slice(at)))
  return lines.result()

  function boundary(name: string): void {
    if (/^h[1-6]$/.test(name)) lines.end(true)
    // Paragraphs and nested lists inside a cell or an item stay with it: a line, no blank.
    else if (PARAGRAPH.has(name)) lines.end(!open.some((n) => TIGHT.has(n)))
    else if (LINE.has(name)) lines.end(false)
  }
}
