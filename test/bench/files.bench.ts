// bun run bench:files — file extraction rate and memory on generated files of 10, 100 and 500 pages: PDF
// (pages/s), DOCX of as many page-sized chapters (documents/s), PPTX of as many slides and XLSX of 40 rows a
// "page". Each file is read through extractFile (the bounded subprocess: its start, the bytes over stdin, the JSON
// back) and in this process (the extractor alone); prints the subprocess's peak RSS and the conditions (cores,
// load average, Bun, file sizes). Flags: --runs N (3: the median of N), --sizes 10,100,500.
import { availableParallelism, loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { extractFileMeasured, extractInProcess } from '../../src/files/extract-file'
import { LIMITS, makeDocx, makePdf, makePptx, makeXlsx } from '../files/fixtures'

const { values: flags } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, sizes: { type: 'string', default: '10,100,500' } },
})
const RUNS = Number(flags.runs)
const SIZES = flags.sizes.split(',').map(Number)
const MiB = 1024 * 1024

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

interface Case {
  kind: string
  pages: number
  filename: string
  bytes: Uint8Array
}

async function makeCase(kind: string, pages: number): Promise<Case> {
  if (kind === 'pdf') return { kind, pages, filename: 'bench.pdf', bytes: await makePdf(pages, { lines: 40 }) }
  if (kind === 'docx') return { kind, pages, filename: 'bench.docx', bytes: await makeDocx(pages, 12) }
  if (kind === 'pptx') return { kind, pages, filename: 'bench.pptx', bytes: await makePptx(pages) }
  const rows: (string | number)[][] = [['id', 'customer', 'amount', 'note']]
  for (let i = 1; i <= pages * 40; i++) rows.push([i, `customer ${i}`, i * 7, `order ${i} shipped on time`])
  return { kind, pages, filename: 'bench.xlsx', bytes: await makeXlsx({ Orders: rows }) }
}

async function measure(c: Case) {
  const sub: number[] = []
  const own: number[] = []
  let peak = 0
  let sections = 0
  let chars = 0
  for (let run = 0; run < RUNS; run++) {
    let started = performance.now()
    const measured = await extractFileMeasured(c.bytes, c.filename, LIMITS)
    sub.push(performance.now() - started)
    peak = Math.max(peak, measured.peakRssBytes)
    started = performance.now()
    const extracted = await extractInProcess(c.bytes, c.filename, LIMITS)
    own.push(performance.now() - started)
    sections = extracted.sections.length
    chars = extracted.sections.reduce((n, s) => n + s.text.length, 0)
  }
  return { sub: median(sub), own: median(own), peak, sections, chars }
}

console.log(
  `bench:files — ${availableParallelism()} cores, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Bun ${Bun.version}, ${RUNS} runs (median), limits ${LIMITS.timeoutMs / 1000} s / ${LIMITS.maxMemoryBytes / MiB} MiB`,
)
console.log('PDF: 40 lines a page; DOCX: a heading and 12 paragraphs a "page"; PPTX: a slide a page; XLSX: 40 rows of 4 cells a page.')
console.log('kind  pages   size KiB  sections  chars      subprocess ms  pages/s  docs/s  in-process ms  pages/s  peak RSS MiB')
for (const kind of ['pdf', 'docx', 'pptx', 'xlsx']) {
  for (const pages of SIZES) {
    const c = await makeCase(kind, pages)
    const r = await measure(c)
    console.log(
      [
        kind.padEnd(5),
        String(pages).padStart(5),
        (c.bytes.length / 1024).toFixed(0).padStart(10),
        String(r.sections).padStart(9),
        String(r.chars).padStart(10),
        r.sub.toFixed(0).padStart(14),
        (pages / (r.sub / 1000)).toFixed(0).padStart(8),
        (1000 / r.sub).toFixed(2).padStart(7),
        r.own.toFixed(0).padStart(14),
        (pages / (r.own / 1000)).toFixed(0).padStart(8),
        (r.peak / MiB).toFixed(0).padStart(13),
      ].join(' '),
    )
  }
}
console.log(
  `load average after: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
)
