// The Markdown parser yields a tree of text and elements: HTML in a document stays text, hostile nesting is bounded.
import { describe, expect, test } from 'bun:test'
import { markdownToText, parseInline, parseMarkdown } from './markdown'
import { highlight } from './highlight'
import { safeHref } from './safe-url'

describe('parseMarkdown', () => {
  test('headings, lists, quotes, code and rules become blocks', () => {
    const blocks = parseMarkdown('# Title\n\nSome *text*.\n\n- one\n- two\n\n1. first\n\n> quoted\n\n```ts\nconst a = 1\n```\n\n---')
    expect(blocks.map((b) => b.type)).toEqual(['heading', 'paragraph', 'list', 'list', 'quote', 'code', 'rule'])
    expect(blocks[5]).toEqual({ type: 'code', lang: 'ts', text: 'const a = 1' })
  })

  test('a GitHub-style table: header, alignment, rows cut or filled to its width, escaped pipes kept in a cell', () => {
    const [table, after] = parseMarkdown(
      '| Region | Revenue |\n| :--- | ---: |\n| North | 120 |\n| a\\|b | 95 | extra |\n| South |\n\nAfter.',
    )
    expect(table).toEqual({
      type: 'table',
      align: ['left', 'right'],
      head: [[{ type: 'text', text: 'Region' }], [{ type: 'text', text: 'Revenue' }]],
      rows: [
        [[{ type: 'text', text: 'North' }], [{ type: 'text', text: '120' }]],
        [[{ type: 'text', text: 'a|b' }], [{ type: 'text', text: '95' }]],
        [[{ type: 'text', text: 'South' }], []],
      ],
    })
    expect(after).toEqual({ type: 'paragraph', children: [{ type: 'text', text: 'After.' }] })
    expect(markdownToText('| A | B |\n| - | - |\n| 1 | 2 |')).toBe('A B 1 2')
  })

  test('pipes without a delimiter row, or a delimiter row of another width, are a paragraph', () => {
    expect(parseMarkdown('a | b\nc | d').map((b) => b.type)).toEqual(['paragraph'])
    expect(parseMarkdown('| a | b |\n| --- |\n| 1 | 2 |').map((b) => b.type)).toEqual(['paragraph'])
  })

  test('raw HTML is text, never markup', () => {
    const [block] = parseMarkdown('<script>alert(1)</script> <img src=x onerror=alert(1)>')
    expect(block).toEqual({
      type: 'paragraph',
      children: [{ type: 'text', text: '<script>alert(1)</script> <img src=x onerror=alert(1)>' }],
    })
  })

  test('a link keeps its address for the renderer to judge', () => {
    expect(parseInline('see [x](javascript:alert(1)) and **b**')).toEqual([
      { type: 'text', text: 'see ' },
      { type: 'link', href: 'javascript:alert(1)', children: [{ type: 'text', text: 'x' }] },
      { type: 'text', text: ' and ' },
      { type: 'strong', children: [{ type: 'text', text: 'b' }] },
    ])
  })

  test('deep nesting is bounded (no stack exhaustion)', () => {
    expect(() => parseMarkdown('>'.repeat(50_000) + ' deep')).not.toThrow()
    expect(() => parseMarkdown('- '.repeat(20_000) + 'deep')).not.toThrow()
  })

  test('markdownToText drops the markers', () => {
    expect(markdownToText('## Steps\n\n1. Freeze the **main** branch\n2. Run `bun test` — [wiki](https://w.example)')).toBe(
      'Steps Freeze the main branch Run bun test — wiki',
    )
  })
})

describe('safeHref', () => {
  test.each([
    ['https://example.com/a', 'https://example.com/a'],
    ['mailto:a@example.com', 'mailto:a@example.com'],
    ['javascript:alert(1)', null],
    [' JaVaScRiPt:alert(1)', null],
    ['data:text/html,<script>alert(1)</script>', null],
    ['vbscript:msgbox', null],
  ])('%s → %s', (url, expected) => expect(safeHref(url, 'http://localhost')).toBe(expected))
})

describe('highlight', () => {
  test('marks whole words, the last one as a prefix, case-insensitively', () => {
    expect(highlight('Postmortems are blameless; blamelessness too', 'blameless post')).toEqual([
      { text: 'Postmortems', hit: true, word: 'post' },
      { text: ' are ', hit: false },
      { text: 'blameless', hit: true, word: 'blameless' },
      { text: '; blamelessness too', hit: false },
    ])
  })

  test('query punctuation is not a pattern', () => {
    expect(highlight('a (b) c', '(b')).toEqual([{ text: 'a (b) c', hit: false }])
    expect(highlight('x.*y', '.*')).toEqual([{ text: 'x.*y', hit: false }])
  })
})
