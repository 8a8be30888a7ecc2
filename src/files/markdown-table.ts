// Rows of cells as a Markdown table, so a table reads as a table rather than a soup of cells.

/** Rows a sheet's section holds at most; a larger sheet is cut into several, each repeating the header row. */
export const ROWS_PER_SECTION = 200

const cell = (text: string) => text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim()

/** The first row is the header; short rows are padded, empty columns dropped. */
export function toMarkdownTable(rows: string[][]): string {
  return toMarkdownTables(rows, Number.POSITIVE_INFINITY)[0] ?? ''
}

/** The rows as tables of at most `rowsPer` body rows each, every one under the same header row. */
export function toMarkdownTables(rows: string[][], rowsPer = ROWS_PER_SECTION): string[] {
  const cleaned = rows.map((row) => row.map(cell)).filter((row) => row.some((c) => c !== ''))
  if (cleaned.length === 0) return []
  const width = Math.max(...cleaned.map((r) => r.length))
  const used = Array.from({ length: width }, (_, i) => i).filter((i) => cleaned.some((r) => (r[i] ?? '') !== ''))
  const lines = cleaned.map((r) => `| ${used.map((i) => r[i] ?? '').join(' | ')} |`)
  const [header, ...body] = lines as [string, ...string[]]
  const rule = `| ${used.map(() => '---').join(' | ')} |`
  if (body.length === 0) return [`${header}\n${rule}`]
  const tables: string[] = []
  for (let from = 0; from < body.length; from += rowsPer) {
    tables.push([header, rule, ...body.slice(from, from + rowsPer)].join('\n'))
  }
  return tables
}
