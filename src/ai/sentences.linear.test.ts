// The splitter's work grows with the passage, not with its square, whatever the passage's shape: a 400 KB block
// without a sentence end, or made of abbreviations, initials, dots, backticks or wrapped lines, once took
// minutes (342 s). Work is measured, not timed: the characters handed to the string and pattern operations the
// splitter is made of, summed over a call — a count no machine's load changes.
import { afterEach, describe, expect, test } from 'bun:test'
import { proseBlocks, sentences } from './sentences'

type Method = (...args: unknown[]) => unknown
const patched: [Record<string, Method>, string, Method][] = []
afterEach(() => {
  for (const [target, name, original] of patched.splice(0)) target[name] = original
})

/**
 * Characters read by the pattern and string operations during `run`. A pattern is charged the stretch it
 * searched: from where it starts (0, or lastIndex when global) to the end of its match, or to the end of the
 * string when it fails; a sticky one (split's own, which runs once per position) what it matched, or one. A
 * string method is charged its string, a search the stretch it scanned.
 */
function charactersRead(run: () => void): number {
  let read = 0
  type Size = (self: unknown, args: unknown[], result: unknown, before: number) => number
  const charge = (target: object, name: string, size: Size) => {
    const holder = target as Record<string, Method>
    const original = holder[name]!
    patched.push([holder, name, original])
    holder[name] = function (this: unknown, ...args: unknown[]) {
      const before = this instanceof RegExp && (this.global || this.sticky) ? this.lastIndex : 0
      const result = original.apply(this, args)
      read += size(this, args, result, before)
      return result
    }
  }
  // test, match, replace and split all run exec (spec'd so, and so they do once exec is not the built-in).
  charge(RegExp.prototype, 'exec', (self, [text], result, from) => {
    const found = result as RegExpExecArray | null
    if ((self as RegExp).sticky) return found ? Math.max(1, found[0].length) : 1
    return (found ? found.index + found[0].length : String(text).length) - from
  })
  const length = (self: unknown) => String(self).length
  for (const name of ['trim', 'trimEnd', 'trimStart', 'toLowerCase']) charge(String.prototype, name, length)
  charge(String.prototype, 'indexOf', (self, [, from = 0], found) => (found === -1 ? length(self) : Number(found) + 1) - Number(from))
  charge(String.prototype, 'slice', (self, [start = 0, end]) => {
    const at = (i: number) => (i < 0 ? Math.max(0, length(self) + i) : Math.min(i, length(self)))
    return Math.max(0, at(end === undefined ? length(self) : Number(end)) - at(Number(start)))
  })
  charge(Array.prototype, 'join', (self) => (self as unknown[]).reduce<number>((n, s) => n + length(s), 0))
  charge(Intl.Segmenter.prototype, 'segment', (_, [text]) => length(text))
  try {
    run()
  } finally {
    for (const [target, name, original] of patched.splice(0)) target[name] = original
  }
  return read
}

const SIZE = 400_000

/** Passages of about `size` characters that each defeated a check that looked at all the text so far. */
const SHAPES: Record<string, (size: number) => string> = {
  'one block without a sentence end': (size) => 'the backups of the billing team run nightly '.repeat(size / 45),
  'wrapped lines without a sentence end': (size) => 'the backups of the billing team run\n'.repeat(size / 36),
  'lines that each end a sentence': (size) => 'The backups run nightly\n'.repeat(size / 24),
  'titles, each before a name': (size) => 'Dr. '.repeat(size / 4),
  'initials, each before a capital': (size) => 'A. '.repeat(size / 3),
  'abbreviations at line ends': (size) => 'see e.g.\n'.repeat(size / 9),
  'a code span opened and never closed': (size) => `\`${'This is one. '.repeat(size / 13)}`,
  'a code span open across wrapped lines': (size) => `\`${'This is one\n'.repeat(size / 12)}`,
  'a run of letters and dots': (size) => `${'a.'.repeat(size / 2)} Then more.`,
  'one long word before a period': (size) => `${'a'.repeat(size)}. Then more.`,
  'long lines of letters': (size) => `${'a'.repeat(size / 4)}\n`.repeat(4),
  'a run of spaces': (size) => `a${' '.repeat(size)}b. Then more.`,
}

describe('the work of splitting a passage is linear in its length', () => {
  test.each(Object.keys(SHAPES))('%s: 400 KB read a bounded number of times over', (shape) => {
    const make = SHAPES[shape]!
    const text = make(SIZE)
    const read = charactersRead(() => sentences(text))
    // Each character goes through a fixed number of steps (lines split and trimmed, blocks joined and segmented,
    // sentences cut, trimmed and their spaces collapsed, words counted): about 20 in all. Looking at all the
    // text so far at each piece, as the splitter once did, read 400 KB some 10^11 times.
    expect(read).toBeLessThan(40 * text.length)
    // And twice the passage, about twice the work (not four times).
    const double = make(2 * SIZE)
    expect(charactersRead(() => sentences(double))).toBeLessThan(2.2 * read)
  })

  test('the splits of the large passages are whole sentences, as for small ones', () => {
    expect(sentences('Dr. '.repeat(100_000) + 'Lindqvist is here.')).toEqual([`${'Dr. '.repeat(100_000)}Lindqvist is here.`])
    const wrapped = 'the backups of the billing team run\n'.repeat(10_000)
    expect(proseBlocks(wrapped)).toEqual([wrapped.trim().replaceAll('\n', ' ')])
    expect(sentences(`\`${'This is one. '.repeat(10_000)}`)).toEqual([`\`${'This is one. '.repeat(10_000).trim()}`])
  })
})
