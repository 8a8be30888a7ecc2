// Inline Markdown (code spans, links, autolinks, bare URLs, strong, emphasis, hard breaks) in one left-to-right
// scan whose work is linear in the text. Each construct matches what its alternative of the one pattern this
// replaces matched (the earliest start wins; at one start, the order above), but an attempt that finds no end
// leaves a mark (this line has no `]`, no closing `**`), so the starts after it never search that stretch again.
// The pattern searched it from every start: 1 MiB of `[a` took 13 s.
export type Inline =
  | { type: 'text'; text: string }
  | { type: 'code'; text: string }
  | { type: 'strong' | 'em'; children: Inline[] }
  | { type: 'link'; href: string; children: Inline[] }
  | { type: 'break' }

/** Characters the scanner has read (every parse adds to it): what the linear-time test counts. */
export const inlineWork = { reads: 0 }

const code = (ch: string) => ch.charCodeAt(0)
const NEWLINE = code('\n')
const SPACE = code(' ')
const BACKSLASH = code('\\')
const BACKTICK = code('`')
const OPEN_BRACKET = code('[')
const CLOSE_BRACKET = code(']')
const OPEN_PAREN = code('(')
const CLOSE_PAREN = code(')')
const LESS = code('<')
const GREATER = code('>')
const QUOTE = code('"')
const H = code('h')
const STAR = code('*')
const UNDERSCORE = code('_')

/** JavaScript's `\s`: what the patterns this scanner replaces took for white space. */
const isSpace = (c: number) =>
  (c >= 9 && c <= 13) ||
  c === 32 ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff
const isNonSpace = (c: number) => !Number.isNaN(c) && !isSpace(c)
/** Not part of a link's address: white space, parentheses, angle brackets (or the end). */
const ends = (c: number) => Number.isNaN(c) || isSpace(c) || c === OPEN_PAREN || c === CLOSE_PAREN || c === LESS || c === GREATER
/** A URL's last character is none of these (a sentence's period after a link is not part of it). */
const TRAILING = '.,;:!?\'"'
const ALNUM = /[\p{L}\p{N}]/u

interface Found {
  node: Inline
  end: number
}

export function parseInline(text: string, depth = 0): Inline[] {
  const n = text.length
  const at = (i: number) => {
    inlineWork.reads++
    return text.charCodeAt(i) // NaN past the end
  }
  const is = (i: number, ch: string) => at(i) === code(ch)
  const startsWith = (i: number, word: string) => {
    for (let k = 0; k < word.length; k++) if (!is(i + k, word[k]!)) return false
    return true
  }
  /** The first index from `i` on whose character `stop` accepts (n when none). */
  const scan = (i: number, stop: (c: number) => boolean) => {
    while (i < n && !stop(at(i))) i++
    return i
  }
  /** Whether the code point just before / at `i` is a letter or digit (`_` emphasis needs none on either side). */
  const alnumBefore = (i: number) => {
    if (i === 0) return false
    const low = at(i - 1)
    const start = low >= 0xdc00 && low <= 0xdfff && i >= 2 ? i - 2 : i - 1
    return ALNUM.test(text.slice(start, i))
  }
  /** 2 for a surrogate pair, else 1. */
  const width = (i: number) => {
    const c = at(i)
    return c >= 0xd800 && c <= 0xdbff && at(i + 1) >= 0xdc00 && at(i + 1) <= 0xdfff ? 2 : 1
  }
  const alnumAt = (i: number) => i < n && ALNUM.test(String.fromCodePoint(text.codePointAt(i)!))
  const nested = (inner: string): Inline[] => (depth < 6 ? parseInline(inner, depth + 1) : [{ type: 'text', text: inner }])

  // Marks left by failed attempts: no start before them can succeed, so none searches again.
  let closeFrom = -1 // the first `]` or line end at or after closeFrom is closeAt
  let closeAt = -1
  let tailOf = -1 // the `](…)` after the `]` at tailOf, already read
  let tail: { href: string; end: number } | null = null
  const strongFailsBefore: Record<string, number> = { '*': -1, _: -1 }

  /** `code`: a backtick, at least one character on the same line, a backtick. */
  function codeSpan(i: number): Found | null {
    const q = scan(i + 1, (c) => c === BACKTICK || c === NEWLINE)
    if (!is(q, '`') || q === i + 1) return null
    return { node: { type: 'code', text: text.slice(i + 1, q) }, end: q + 1 }
  }

  /** `[words](address "title")`: the words on one line; the address in optional <>, with one (…) in it. */
  function link(i: number): Found | null {
    if (!(closeFrom <= i && i < closeAt)) {
      closeFrom = i
      closeAt = scan(i + 1, (c) => c === CLOSE_BRACKET || c === NEWLINE)
    }
    const q = closeAt
    if (!is(q, ']') || q === i + 1 || !is(q + 1, '(')) return null
    if (tailOf !== q) {
      tailOf = q
      tail = linkTail(q + 2)
    }
    return tail && { node: { type: 'link', href: tail.href, children: nested(text.slice(i + 1, q)) }, end: tail.end }
  }

  /** What follows `](`: the address and optional title, up to the closing parenthesis. */
  function linkTail(j: number): { href: string; end: number } | null {
    j = scan(j, isNonSpace)
    if (is(j, '<')) j++
    const start = j
    j = scan(j, ends)
    if (j === start) return null
    if (is(j, '(')) {
      const close = scan(j + 1, (c) => Number.isNaN(c) || isSpace(c) || c === OPEN_PAREN || c === CLOSE_PAREN)
      if (!is(close, ')')) return null
      j = close + 1
    }
    const href = text.slice(start, j)
    if (is(j, '>')) j++
    const gap = scan(j, isNonSpace)
    if (gap > j && is(gap, '"')) {
      const quote = scan(gap + 1, (c) => c === QUOTE || c === NEWLINE)
      if (!is(quote, '"')) return null
      j = quote + 1
    }
    j = scan(j, isNonSpace)
    return is(j, ')') ? { href, end: j + 1 } : null
  }

  /** `<http://…>`, `<https://…>`, `<mailto:…>`. */
  function autolink(i: number): Found | null {
    const scheme = ['http:', 'https:', 'mailto:'].find((s) => startsWith(i + 1, s))
    if (!scheme) return null
    const start = i + 1 + scheme.length
    const end = scan(start, (c) => Number.isNaN(c) || isSpace(c) || c === LESS || c === GREATER)
    if (end === start || !is(end, '>')) return null
    const href = text.slice(i + 1, end)
    return { node: { type: 'link', href, children: [{ type: 'text', text: href }] }, end: end + 1 }
  }

  /** A bare http(s) URL, less the punctuation it ends with. */
  function bareUrl(i: number): Found | null {
    const prefix = startsWith(i, 'https://') ? 8 : startsWith(i, 'http://') ? 7 : 0
    if (!prefix) return null
    const start = i + prefix
    const end = scan(start, ends)
    // At least two characters (code points, a surrogate pair is one), the last of them not trailing punctuation.
    let stop = -1
    for (let k = start + width(start); k < end; k += width(k)) if (!TRAILING.includes(String.fromCharCode(at(k)))) stop = k + width(k)
    if (stop === -1 || stop > end) return null
    const href = text.slice(i, stop)
    return { node: { type: 'link', href, children: [{ type: 'text', text: href }] }, end: stop }
  }

  /** `**words**` or `__words__` on one line: the earliest closing pair after a non-space. */
  function strong(i: number, mark: string): Found | null {
    if (i < strongFailsBefore[mark]! || !is(i + 1, mark) || !isNonSpace(at(i + 2))) return null
    let k = i + 3
    for (; k < n && at(k) !== NEWLINE; k++) {
      if (is(k, mark) && is(k + 1, mark) && isNonSpace(at(k - 1)))
        return { node: { type: 'strong', children: nested(text.slice(i + 2, k)) }, end: k + 2 }
    }
    // No closing pair on this line: no later start before its end finds one either.
    strongFailsBefore[mark] = k
    return null
  }

  /** `*words*` or `_words_` (not inside a word): the words hold no mark of their own, but may end with it. */
  function emphasis(i: number, mark: string): Found | null {
    const underscore = mark === '_'
    if (!isNonSpace(at(i + 1)) || (underscore && alnumBefore(i))) return null
    const s = scan(i + 1, (c) => c === code(mark) || c === NEWLINE)
    if (!is(s, mark)) return null
    for (const k of [s, s + 1]) {
      if (k < i + 2 || !is(k, mark) || !isNonSpace(at(k - 1))) continue
      if (underscore && alnumAt(k + 1)) continue
      return { node: { type: 'em', children: nested(text.slice(i + 1, k)) }, end: k + 1 }
    }
    return null
  }

  /** Two or more spaces, or a backslash, before a line break; when spaces are not one, where to go on from. */
  function hardBreak(i: number): Found | null | number {
    if (at(i) === BACKSLASH) return is(i + 1, '\n') ? { node: { type: 'break' }, end: i + 2 } : null
    const end = scan(i, (c) => c !== SPACE)
    // No start inside these spaces can succeed if the first one did not: skip them all.
    return end - i >= 2 && is(end, '\n') ? { node: { type: 'break' }, end: end + 1 } : end
  }

  const out: Inline[] = []
  const push = (piece: Inline) => {
    const last = out[out.length - 1]
    if (piece.type === 'text' && last?.type === 'text') last.text += piece.text
    else out.push(piece)
  }
  let plain = 0
  let i = 0
  while (i < n) {
    let found: Found | null | number = null
    const c = at(i)
    if (c === BACKTICK) found = codeSpan(i)
    else if (c === OPEN_BRACKET) found = link(i)
    else if (c === LESS) found = autolink(i)
    else if (c === H) found = bareUrl(i)
    else if (c === STAR || c === UNDERSCORE) found = strong(i, text[i]!) ?? emphasis(i, text[i]!)
    else if (c === SPACE || c === BACKSLASH) found = hardBreak(i)
    if (typeof found === 'number') i = found
    else if (found === null) i++
    else {
      if (i > plain) push({ type: 'text', text: text.slice(plain, i) })
      push(found.node)
      i = plain = found.end
    }
  }
  if (plain < n) push({ type: 'text', text: text.slice(plain) })
  return out
}
