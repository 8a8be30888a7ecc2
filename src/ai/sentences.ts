// Whole sentences of a passage, for an answer that quotes them: Markdown structure first (headings, code
// fences, tables and rules are not prose; list markers are not part of an item), then Unicode sentence
// boundaries (Intl.Segmenter), then the few boundaries ICU gets wrong without its abbreviation data.
const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' })

/**
 * Abbreviations that introduce what follows, so a period after them never ends a sentence. Bun's ICU has no
 * sentence-break suppressions (`en-u-ss-standard` changes nothing): "with Dr. Lindqvist" splits after "Dr.".
 * Titles before a name, and the words that introduce an example or a number; a lone capital is an initial
 * ("John F. Kennedy"). "etc." is not here: it ends sentences as often as not.
 */
const BEFORE_NAME = new Set(
  'Mr Mrs Ms Mx Dr Prof Sr Jr St Mt Ft Gen Col Capt Cpt Lt Sgt Maj Adm Cmdr Rev Fr Hon Gov Sen Rep Pres Supt Insp Messrs Mme Mlle'.split(
    ' ',
  ),
)
const BEFORE_ANYTHING = new Set('e.g i.e cf vs viz approx ca resp incl'.split(' '))
const BEFORE_NUMBER = new Set(
  'No Nos no nos Vol vol Fig fig Figs figs Eq eq Ch ch Sec sec Art art p pp Pp Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec ver'.split(
    ' ',
  ),
)

/** Words after which a line cannot end a sentence: a line ending in one is wrapped, not finished. */
const CONTINUES = new Set(
  'a an the of to in on at by for with from into onto via and or but nor as than that which whose is are was were be been has have had'.split(
    ' ',
  ),
)

/** The sentences of a passage, trimmed, in order; fragments of fewer than three words are left out. */
export function sentences(text: string): string[] {
  return proseBlocks(text)
    .flatMap(splitBlock)
    .filter((s) => s.split(/\s+/).length >= 3)
}

/** True when `segment` ends in a period that belongs to an abbreviation introducing `next`. */
function abbreviationContinues(segment: string, next: string): boolean {
  const m = /(?:^|[\s(["'])([\p{L}.]+)\.$/u.exec(segment.trimEnd())
  if (!m) return false
  const word = m[1]!
  if (BEFORE_NAME.has(word) || BEFORE_ANYTHING.has(word.toLowerCase())) return true
  if (/^\p{Lu}$/u.test(word)) return /^\p{Lu}/u.test(next.trimStart())
  return BEFORE_NUMBER.has(word) && /^\d/.test(next.trimStart())
}

const unclosedCode = (text: string) => (text.match(/`/g)?.length ?? 0) % 2 === 1

/** One block of prose into sentences: Unicode boundaries, minus those after an abbreviation or inside `code`. */
function splitBlock(block: string): string[] {
  const out: string[] = []
  let current = ''
  const pieces = [...segmenter.segment(block)].map((s) => s.segment)
  pieces.forEach((piece, i) => {
    current += piece
    const next = pieces[i + 1]
    if (next !== undefined && (unclosedCode(current) || abbreviationContinues(current, next))) return
    if (current.trim()) out.push(current.trim().replace(/\s+/g, ' '))
    current = ''
  })
  return out
}

const FENCE = /^(?:```|~~~)/
const HEADING = /^#{1,6}(?:\s|$)/
const SETEXT_UNDERLINE = /^(?:=+|-+)$/
const RULE = /^(?:[-*_]\s*){3,}$/
const TABLE_ROW = /^\|.*\|$/
const LIST_MARKER = /^(?:[-*+•‣◦]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/
const QUOTE_MARKER = /^(?:>\s?)+/

/**
 * The prose of a Markdown (or plain) text as blocks: each paragraph and each list item is one block, with
 * its wrapped lines joined. Headings, fenced code, tables and rules are left out: they are not sentences.
 * A line break inside a paragraph ends a sentence (a line of notes often has no period) unless the line is
 * plainly unfinished: the next one starts in lower case, or this one ends in a comma, an open `code` span,
 * an abbreviation or a word like "with".
 */
export function proseBlocks(text: string): string[] {
  const blocks: string[] = []
  let lines: string[] = []
  let fenced = false
  const flush = () => {
    if (lines.length) blocks.push(lines.join(''))
    lines = []
  }
  for (const raw of text.split(/\r\n?|\n/)) {
    const line = raw.trim()
    if (FENCE.test(line)) {
      flush()
      fenced = !fenced
      continue
    }
    if (fenced) continue
    if (!line || HEADING.test(line) || RULE.test(line) || TABLE_ROW.test(line)) {
      flush()
      continue
    }
    // "Title\n=====" (or "---" right under text) makes the lines above a heading.
    if (SETEXT_UNDERLINE.test(line)) {
      lines = []
      continue
    }
    const quoted = line.replace(QUOTE_MARKER, '')
    const item = LIST_MARKER.exec(quoted)
    if (item) flush()
    const content = item ? quoted.slice(item[0].length) : quoted
    if (!content) continue
    if (lines.length) lines.push(wrapped(lines.join(''), content) ? ' ' : '\n')
    lines.push(content)
  }
  flush()
  return blocks
}

function wrapped(before: string, next: string): boolean {
  if (/^\p{Ll}/u.test(next) || /[,;(–—-]$/.test(before) || unclosedCode(before) || abbreviationContinues(before, next)) return true
  const last = /([\p{L}]+)$/u.exec(before)?.[1]
  return last !== undefined && CONTINUES.has(last.toLowerCase())
}
