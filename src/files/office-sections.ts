// An officeparser AST (DOCX, PPTX, XLSX, CSV, ODF, EPUB, and HTML once Readability has cleaned it) → sections:
// one per heading in a document, per slide in a presentation, per sheet (cut every 200 rows) in a spreadsheet.
import type { OfficeContentNode } from 'officeparser'
import type { Section } from './extracted'
import { toMarkdownTable, toMarkdownTables } from './markdown-table'

/** Parts that repeat on every page or are no text: running headers, comments, masters, pictures. */
const SKIPPED = new Set(['header', 'footer', 'comment', 'slideMaster', 'image', 'drawing', 'chart', 'break', 'embed'])

const textOf = (node: OfficeContentNode): string =>
  node.text ??
  (node.children ?? [])
    .map(textOf)
    .filter(Boolean)
    .join(node.type === 'paragraph' ? '' : '\n')

/** A table's rows, each cell placed at its column (a sparse row leaves out its empty cells). */
function rowsOf(table: OfficeContentNode): string[][] {
  return (table.children ?? [])
    .filter((row) => row.type === 'row')
    .map((row) => {
      const cells: string[] = []
      for (const [i, cell] of (row.children ?? []).entries()) {
        const col = (cell.metadata as { col?: number } | undefined)?.col
        cells[typeof col === 'number' && col < 10_000 ? col : i] = textOf(cell)
      }
      return Array.from(cells, (c) => c ?? '')
    })
}

/** The blocks of a stretch of content as Markdown-ish lines: headings prefixed, lists bulleted, tables as tables. */
function blocksOf(nodes: OfficeContentNode[], onHeading?: (heading: string) => void): string[] {
  const out: string[] = []
  for (const node of nodes) {
    if (SKIPPED.has(node.type)) continue
    if (node.type === 'heading') {
      const heading = textOf(node).replace(/\s+/g, ' ').trim()
      if (!heading) continue
      onHeading?.(heading)
      const level = Math.min(Math.max((node.metadata as { level?: number } | undefined)?.level ?? 1, 1), 6)
      out.push(`${'#'.repeat(level)} ${heading}`)
    } else if (node.type === 'table') {
      out.push(toMarkdownTable(rowsOf(node)))
    } else if (node.type === 'list') {
      const meta = node.metadata as { listType?: string; indentation?: number } | undefined
      const bullet = `${'  '.repeat(Math.min(meta?.indentation ?? 0, 8))}${meta?.listType === 'ordered' ? '1.' : '-'} `
      out.push(...blocksOf(node.children ?? []).map((line) => (line.startsWith(' ') || line.startsWith('-') ? line : bullet + line)))
    } else if (node.children?.some((c) => c.type !== 'text')) {
      out.push(...blocksOf(node.children, onHeading))
    } else {
      out.push(textOf(node))
    }
  }
  return out
}

/** A flowing document: a new section at each heading, the heading line kept in its text. */
export function documentSections(nodes: OfficeContentNode[]): Section[] {
  const sections: Section[] = []
  let current: Section = { text: '' }
  const lines: string[] = []
  const close = () => {
    current.text = lines.join('\n\n')
    sections.push(current)
    lines.length = 0
  }
  for (const node of nodes) {
    if (node.type === 'heading' && textOf(node).trim()) {
      close()
      current = { text: '', heading: textOf(node).replace(/\s+/g, ' ').trim() }
    }
    lines.push(...blocksOf([node]))
  }
  close()
  return sections
}

/** A presentation: one section per slide, its first heading (or short first line) as the slide's title. */
export function slideSections(nodes: OfficeContentNode[]): Section[] {
  return nodes
    .filter((node) => node.type === 'slide')
    .map((slide, i) => {
      let heading: string | undefined
      const lines = blocksOf(slide.children ?? [], (h) => {
        heading ??= h
      })
      const first = lines[0]?.trim()
      if (!heading && first && first.length <= 120 && !first.includes('\n') && !first.startsWith('|')) heading = first
      const slideNumber = (slide.metadata as { slideNumber?: number } | undefined)?.slideNumber ?? i + 1
      return { text: lines.join('\n\n'), slide: slideNumber, ...(heading ? { heading } : {}) }
    })
}

/** A spreadsheet: each sheet as Markdown tables of at most 200 rows, every one repeating the header row. */
export function sheetSections(nodes: OfficeContentNode[]): Section[] {
  return nodes
    .filter((node) => node.type === 'sheet')
    .flatMap((sheet, i) => {
      const name = (sheet.metadata as { sheetName?: string } | undefined)?.sheetName ?? `Sheet ${i + 1}`
      const tables = sheet.children?.some((c) => c.type === 'row')
        ? toMarkdownTables(rowsOf(sheet))
        : (sheet.children ?? []).filter((c) => c.type === 'table').flatMap((t) => toMarkdownTables(rowsOf(t)))
      return tables.map((text) => ({ text, sheet: name }))
    })
}
