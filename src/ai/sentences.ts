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

// Every check below looks at a bounded stretch of text (the few characters before a period or a line end, the
// first ones after it), never at all the text so far: the work is linear in the passage, whatever its shape
// (looking at all of it took minutes for 400 KB of wrapped lines, of "Dr. ", or after an unclosed backtick).

/** No word longer than this can be an abbreviation of the lists above; none longer is looked at. */
const LONGEST_ABBREVIATION = Math.max(...[...BEFORE_NAME, ...BEFORE_ANYTHING, ...BEFORE_NUMBER].map((w) => w.length))
const LONGEST_CONTINUING = Math.max(...[...CONTINUES].map((w) => w.length))

const SPACE = /\s/
const LETTER = /\p{L}/u
/** A word may follow a space, an opening bracket or a quote (or start the text). */
const BEFORE_WORD = /[\s(["']/

/** The code point that ends at `end` (a surrogate pair read whole). */
function charBefore(text: string, end: number): string {
  const low = text.charCodeAt(end - 1)
  return low >= 0xdc00 && low <= 0xdfff && end >= 2 ? text.slice(end - 2, end) : text.charAt(end - 1)
}

/**
 * The word before a period that ends `text[from, end)` (trailing spaces aside): letters and dots from a space,
 * bracket or quote (or `from`) up to that period, without it — "Dr" for "with Dr. ", "e.g" for "(e.g. ".
 * Null when there is none, or when it is longer than any abbreviation (so a long run is never walked).
 */
function wordBeforePeriod(text: string, from: number, end: number): string | null {
  while (end > from && SPACE.test(text.charAt(end - 1))) end--
  if (end - from < 2 || text.charAt(end - 1) !== '.') return null
  let start = end - 1
  while (start > from) {
    const c = charBefore(text, start)
    if (c !== '.' && !LETTER.test(c)) break
    start -= c.length
    if (end - 1 - start > LONGEST_ABBREVIATION) return null
  }
  if (start === end - 1 || (start > from && !BEFORE_WORD.test(text.charAt(start - 1)))) return null
  return text.slice(start, end - 1)
}

const STARTS_UPPER = /\s*\p{Lu}/uy
const STARTS_DIGIT = /\s*\d/y
const STARTS_LOWER = /\p{Ll}/uy
/** Whether `pattern` (sticky) matches at the start of `text`: it reads no further than what it matches. */
const startsWith = (pattern: RegExp, text: string) => {
  pattern.lastIndex = 0
  return pattern.test(text)
}

/** True when `text[from, end)` ends in a period that belongs to an abbreviation introducing `following`. */
function abbreviationContinues(text: string, from: number, end: number, following: string): boolean {
  const word = wordBeforePeriod(text, from, end)
  if (word === null) return false
  if (BEFORE_NAME.has(word) || BEFORE_ANYTHING.has(word.toLowerCase())) return true
  if (/^\p{Lu}$/u.test(word)) return startsWith(STARTS_UPPER, following)
  return BEFORE_NUMBER.has(word) && startsWith(STARTS_DIGIT, following)
}

const backticks = (text: string) => {
  let n = 0
  for (let i = text.indexOf('`'); i !== -1; i = text.indexOf('`', i + 1)) n++
  return n
}

/** One block of prose into sentences: Unicode boundaries, minus those after an abbreviation or inside `code`. */
function splitBlock(block: string): string[] {
  const out: string[] = []
  const pieces = [...segmenter.segment(block)]
  let start = 0
  // Backticks since the sentence began: an odd count means a code span is still open.
  let ticks = 0
  pieces.forEach(({ segment, index }, i) => {
    const end = index + segment.length
    ticks += backticks(segment)
    const next = pieces[i + 1]
    if (next !== undefined && (ticks % 2 === 1 || abbreviationContinues(block, start, end, next.segment))) return
    const sentence = block.slice(start, end).trim()
    if (sentence) out.push(sentence.replace(/\s+/g, ' '))
    start = end
    ticks = 0
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
  let parts: string[] = []
  // What the line-end rule needs of the block so far: its last line, and whether a code span is open.
  let last = ''
  let ticks = 0
  const restart = () => {
    parts = []
    ticks = 0
  }
  const flush = () => {
    if (parts.length) blocks.push(parts.join(''))
    restart()
  }
  let fenced = false
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
      restart()
      continue
    }
    const quoted = line.replace(QUOTE_MARKER, '')
    const item = LIST_MARKER.exec(quoted)
    if (item) flush()
    const content = item ? quoted.slice(item[0].length) : quoted
    if (!content) continue
    if (parts.length) parts.push(wrapped(last, ticks % 2 === 1, content) ? ' ' : '\n')
    parts.push(content)
    last = content
    ticks += backticks(content)
  }
  flush()
  return blocks
}

/** Whether the line `next` goes on from `before`, the block's last line (a space or line break comes between). */
function wrapped(before: string, codeOpen: boolean, next: string): boolean {
  if (startsWith(STARTS_LOWER, next) || ',;(–—-'.includes(before.charAt(before.length - 1)) || codeOpen) return true
  if (abbreviationContinues(before, 0, before.length, next)) return true
  // The last word, if it is short enough to be one of CONTINUES.
  let start = before.length
  while (start > 0 && before.length - start <= LONGEST_CONTINUING) {
    const c = charBefore(before, start)
    if (!LETTER.test(c)) break
    start -= c.length
  }
  const last = before.slice(start)
  return last.length > 0 && last.length <= LONGEST_CONTINUING && CONTINUES.has(last.toLowerCase())
}
