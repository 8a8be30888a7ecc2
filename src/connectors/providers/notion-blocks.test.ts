// Notion JSON → plain text, pure logic: rich text, each block type, nesting and numbering, row properties.
import { describe, expect, test } from 'bun:test'
import { type BlockNode, blockText, plainText, propertyLines, renderBlocks, renderPage, shouldDescend, titleOf } from './notion-blocks'

const rt = (...runs: string[]) => runs.map((content) => ({ type: 'text', text: { content, link: null }, plain_text: content, href: null }))
let n = 0
const node = (type: string, data: Record<string, unknown>, children: BlockNode[] = []): BlockNode => ({
  block: { object: 'block', id: `b${++n}`, type, has_children: children.length > 0, [type]: data },
  children,
})
const text = (type: string, s: string, extra: Record<string, unknown> = {}, children: BlockNode[] = []) =>
  node(type, { rich_text: rt(s), ...extra }, children)

describe('rich text', () => {
  test('joins the plain_text of every run, falling back to text.content', () => {
    expect(plainText(rt('Hello ', 'world'))).toBe('Hello world')
    expect(plainText([{ text: { content: 'raw' } }])).toBe('raw')
    expect(plainText(undefined)).toBe('')
  })
})

describe('blocks', () => {
  test('each supported type renders its own line', () => {
    expect(blockText(text('paragraph', 'Plain')!.block)).toBe('Plain')
    expect(blockText(text('heading_2', 'Section').block)).toBe('Section')
    expect(blockText(text('bulleted_list_item', 'Point').block)).toBe('- Point')
    expect(blockText(text('numbered_list_item', 'Step').block, 3)).toBe('3. Step')
    expect(blockText(text('to_do', 'Done thing', { checked: true }).block)).toBe('[x] Done thing')
    expect(blockText(text('to_do', 'Open thing', { checked: false }).block)).toBe('[ ] Open thing')
    expect(blockText(text('quote', 'Said').block)).toBe('> Said')
    expect(blockText(text('callout', 'Careful', { icon: { type: 'emoji', emoji: '⚠️' } }).block)).toBe('⚠️ Careful')
    expect(blockText(text('code', 'const a = 1\nconst b = 2', { language: 'typescript' }).block)).toBe('const a = 1\nconst b = 2')
    expect(blockText(node('child_page', { title: 'Sub page' }).block)).toBe('Sub page')
    expect(blockText(node('child_database', { title: 'Tasks' }).block)).toBe('Tasks')
    expect(blockText(node('bookmark', { url: 'https://example.com', caption: rt('Example') }).block)).toBe('Example https://example.com')
    expect(blockText(node('embed', { url: 'https://youtu.be/x', caption: [] }).block)).toBe('https://youtu.be/x')
    expect(blockText(node('link_preview', { url: 'https://github.com/o/r/pull/1' }).block)).toBe('https://github.com/o/r/pull/1')
    expect(blockText(node('equation', { expression: 'e=mc^2' }).block)).toBe('e=mc^2')
    expect(blockText(node('divider', {}).block)).toBe('---')
    expect(blockText(node('table_row', { cells: [rt('a'), rt('b', 'c'), []] }).block)).toBe('a | bc | ')
  })

  test('unknown and unsupported types render nothing, children included', () => {
    const lines = renderBlocks([
      node('image', { type: 'external', external: { url: 'x' } }),
      node('unsupported', {}, [text('paragraph', 'hidden')]),
      text('paragraph', 'kept'),
    ])
    expect(lines).toEqual(['kept'])
  })

  test('children are indented, numbered lists count per run, headings get a blank line before them', () => {
    const lines = renderBlocks([
      text('paragraph', 'Intro'),
      text('heading_1', 'Plan'),
      text('numbered_list_item', 'First'),
      text('numbered_list_item', 'Second', {}, [text('bulleted_list_item', 'detail'), text('numbered_list_item', 'sub one')]),
      text('paragraph', 'Break'),
      text('numbered_list_item', 'Again first'),
      text('toggle', 'More', {}, [text('paragraph', 'Hidden inside\nover two lines')]),
    ])
    expect(lines).toEqual([
      'Intro',
      '',
      'Plan',
      '1. First',
      '2. Second',
      '  - detail',
      '  1. sub one',
      'Break',
      '1. Again first',
      'More',
      '  Hidden inside',
      '  over two lines',
    ])
  })

  test('tables, columns and synced blocks add no line of their own', () => {
    const table = node('table', { table_width: 2, has_column_header: true }, [
      node('table_row', { cells: [rt('Name'), rt('Role')] }),
      node('table_row', { cells: [rt('Ada'), rt('Eng')] }),
    ])
    const columns = node('column_list', {}, [
      node('column', {}, [text('paragraph', 'Left')]),
      node('column', {}, [text('paragraph', 'Right')]),
    ])
    const synced = node('synced_block', { synced_from: null }, [text('paragraph', 'Shared')])
    expect(renderBlocks([table, columns, synced])).toEqual(['Name | Role', 'Ada | Eng', 'Left', 'Right', 'Shared'])
  })

  test('child pages, databases and unrendered types are not descended into; text and container blocks are', () => {
    expect(shouldDescend({ id: 'a', type: 'child_page', has_children: true })).toBe(false)
    expect(shouldDescend({ id: 'a', type: 'child_database', has_children: true })).toBe(false)
    expect(shouldDescend({ id: 'a', type: 'toggle', has_children: true })).toBe(true)
    expect(shouldDescend({ id: 'a', type: 'toggle', has_children: false })).toBe(false)
    expect(shouldDescend({ id: 'a', type: 'column_list', has_children: true })).toBe(true)
    expect(shouldDescend({ id: 'a', type: 'image', has_children: true })).toBe(false)
  })
})

describe('page properties', () => {
  const properties = {
    Task: { id: 'title', type: 'title', title: rt('Write ', 'docs') },
    Status: { id: 's', type: 'status', status: { name: 'In progress' } },
    Tags: { id: 't', type: 'multi_select', multi_select: [{ name: 'api' }, { name: 'docs' }] },
    Points: { id: 'p', type: 'number', number: 3 },
    Done: { id: 'd', type: 'checkbox', checkbox: false },
    Due: { id: 'u', type: 'date', date: { start: '2024-06-01', end: null } },
    Owner: { id: 'o', type: 'people', people: [{ object: 'user', id: 'u1', name: 'Ada' }] },
    Notes: { id: 'n', type: 'rich_text', rich_text: [] },
    Priority: { id: 'r', type: 'select', select: null },
    Score: { id: 'f', type: 'formula', formula: { type: 'number', number: 42 } },
    Related: { id: 'l', type: 'relation', relation: [{ id: 'x' }], has_more: false },
    Key: { id: 'k', type: 'unique_id', unique_id: { prefix: 'TASK', number: 7 } },
    Link: { id: 'w', type: 'url', url: 'https://example.com/spec' },
  }

  test('the title comes from whichever property has type title', () => {
    expect(titleOf(properties)).toBe('Write docs')
    expect(titleOf({ title: { type: 'title', title: [] } })).toBe('Untitled')
    expect(titleOf(undefined)).toBe('Untitled')
  })

  test('other properties become Name: value lines, empty and id-only ones left out', () => {
    expect(propertyLines(properties)).toEqual([
      'Status: In progress',
      'Tags: api, docs',
      'Points: 3',
      'Done: No',
      'Due: 2024-06-01',
      'Owner: Ada',
      'Score: 42',
      'Key: TASK-7',
      'Link: https://example.com/spec',
    ])
  })

  test('a database row puts its properties before its content; a plain page does not', () => {
    const blocks = [text('paragraph', 'Body')]
    const props = { Name: { type: 'title', title: rt('Row') }, Status: { type: 'select', select: { name: 'Done' } } }
    expect(renderPage(props, blocks, true)).toBe('Status: Done\n\nBody')
    expect(renderPage(props, blocks, false)).toBe('Body')
    expect(renderPage(props, [], true)).toBe('Status: Done')
  })
})
