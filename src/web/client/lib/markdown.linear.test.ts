// The inline parser reads each character of a document a bounded number of times, whatever the document: 1 MiB
// of `[a` once froze the document screen for 13 s (one pattern searched the rest of the line from every `[`).
// Work is counted, not timed: the characters the scanner reads (inlineWork), a count no machine's load changes.
import { describe, expect, test } from 'bun:test'
import { parseInline, parseMarkdown } from './markdown'
import { inlineWork } from './markdown-inline'

const SIZE = 256 * 1024

/** Documents of about `size` characters, each made of a construct's opening that never (or always) closes. */
const SHAPES: Record<string, (size: number) => string> = {
  'link openers `[a`': (size) => '[a'.repeat(size / 2),
  'image openers `![a`': (size) => '![a'.repeat(size / 3),
  'emphasis `*a`': (size) => '*a'.repeat(size / 2),
  'strong openers `**a `': (size) => '**a '.repeat(size / 4),
  'strong openers `__a `': (size) => '__a '.repeat(size / 4),
  'emphasis openers `_a `': (size) => '_a '.repeat(size / 3),
  'code openers `` `a ``': (size) => '`a'.repeat(size / 2),
  'angle brackets `<a`': (size) => '<a'.repeat(size / 2),
  'autolink openers `<http:a`': (size) => '<http:a'.repeat(size / 7),
  'bare URLs of punctuation `http://.`': (size) => 'http://.'.repeat(size / 8),
  'a run of spaces': (size) => `a${' '.repeat(size)}b`,
  'links without an address `[a](`': (size) => '[a]('.repeat(size / 4),
  'links without a closing parenthesis `[a](x`': (size) => '[a](x'.repeat(size / 5),
  'links with an unclosed title `[a](x "`': (size) => '[a](x "'.repeat(size / 7),
  'nested openers `[[…](`': (size) => `${'['.repeat(size / 2)}a](${' '.repeat(size / 2)}`,
  'every construct at once': (size) => '**[`_<h  '.repeat(size / 9),
  'lines of link openers': (size) => `${'[a'.repeat(40)}\n`.repeat(size / 81),
  'table rows of pipes': (size) => `| a | b |\n| - | - |\n${'|a'.repeat(size / 4)}\n`.repeat(2),
}

const readsOf = (source: string) => {
  inlineWork.reads = 0
  parseMarkdown(source)
  return inlineWork.reads
}

describe('the inline parser reads each character a bounded number of times', () => {
  test.each(Object.keys(SHAPES))('%s', (shape) => {
    const make = SHAPES[shape]!
    const text = make(SIZE)
    const reads = readsOf(text)
    // A character is read by the scan, and again by at most a few look-aheads and the nested parse of a
    // construct's inside (depth-bounded): about 8 at worst here. A search from every opener read 256 KiB ~10^10 times.
    expect(reads).toBeLessThan(12 * text.length)
    // And twice the document, about twice the reads.
    expect(readsOf(make(2 * SIZE))).toBeLessThan(2.2 * reads)
  })

  test('1 MiB of `[a` is plain text, and a link on the next line is still a link', () => {
    const junk = '[a'.repeat(512 * 1024)
    expect(parseInline(`${junk}\n[docs](https://example.com/docs)`)).toEqual([
      { type: 'text', text: `${junk}\n` },
      { type: 'link', href: 'https://example.com/docs', children: [{ type: 'text', text: 'docs' }] },
    ])
  })

  test('unclosed openers stay text; the same openers closed are what they open', () => {
    for (const open of ['**a b', '`c d', '[d](e', '<http:e f', '__f g', '_g h', 'http://.'])
      expect(parseInline(`${open}\nnext`)).toEqual([{ type: 'text', text: `${open}\nnext` }])
    expect(parseInline('**a** `c` [d](https://d.example) <http://e.example> __f__ _g_')).toEqual([
      { type: 'strong', children: [{ type: 'text', text: 'a' }] },
      { type: 'text', text: ' ' },
      { type: 'code', text: 'c' },
      { type: 'text', text: ' ' },
      { type: 'link', href: 'https://d.example', children: [{ type: 'text', text: 'd' }] },
      { type: 'text', text: ' ' },
      { type: 'link', href: 'http://e.example', children: [{ type: 'text', text: 'http://e.example' }] },
      { type: 'text', text: ' ' },
      { type: 'strong', children: [{ type: 'text', text: 'f' }] },
      { type: 'text', text: ' ' },
      { type: 'em', children: [{ type: 'text', text: 'g' }] },
    ])
  })
})
