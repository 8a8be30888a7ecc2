// The README's tables of settings and of plans, printed from the settings table; `bun run readme:settings` writes
// them into README.md between their marker comments, and src/config/readme.test.ts fails when they are out of date.
import { planTable } from './limits'
import { tableRows } from './setting'
import { SETTINGS } from './settings'

/** The generated blocks: each lies between `<!-- <name>:start … -->` and `<!-- <name>:end -->` in README.md. */
export const BLOCKS = {
  settings: () =>
    markdownTable([['variable', 'default', 'meaning'], ...tableRows(SETTINGS).map((r) => [`\`${r.env}\``, r.default ?? '—', r.doc])]),
  plans: () => markdownTable(planTable()),
}

/** README text with every generated block replaced by what the tables say now. */
export function updateReadme(readme: string): string {
  let text = readme
  for (const [name, render] of Object.entries(BLOCKS)) {
    const start = text.match(new RegExp(`<!-- ${name}:start[^>]*-->\\n`))
    const end = text.indexOf(`<!-- ${name}:end -->`)
    if (!start || end < start.index!) throw new Error(`README.md has no <!-- ${name}:start --> … <!-- ${name}:end --> block`)
    text = text.slice(0, start.index! + start[0].length) + render() + '\n' + text.slice(end)
  }
  return text
}

/** A Markdown table, its columns padded to their widest cell; `|` in a cell is escaped. */
export function markdownTable([head, ...body]: string[][]): string {
  const rows = [head!, ...body].map((row) => row.map((cell) => cell.replaceAll('|', '\\|')))
  const widths = rows[0]!.map((_, i) => Math.max(3, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`
  return [line(rows[0]!), line(widths.map((w) => '-'.repeat(w))), ...rows.slice(1).map(line)].join('\n')
}

if (import.meta.main) {
  const file = new URL('../../README.md', import.meta.url)
  const before = await Bun.file(file).text()
  const after = updateReadme(before)
  await Bun.write(file, after)
  console.log(before === after ? 'README.md: the settings tables were up to date' : 'README.md: the settings tables were rewritten')
}
