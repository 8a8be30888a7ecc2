// Every format a person can upload becomes sections that know their page, slide, sheet and heading.
import { describe, expect, test } from 'bun:test'
import { extractInProcess } from '../../src/files/extract-file'
import { joinSections } from '../../src/files/extracted'
import { convertDocx, LIMITS, makeDocx, makeOdp, makeOds, makePdf, makePptx, makeXlsx, text } from './fixtures'

describe('a PDF', () => {
  test('gives one section per page, numbered from 1, and its title', async () => {
    const out = await extractInProcess(await makePdf(3, { title: 'Field guide' }), 'guide.pdf', LIMITS)
    expect(out.format).toBe('pdf')
    expect(out.title).toBe('Field guide')
    expect(out.pages).toBe(3)
    expect(out.sections.map((s) => s.page)).toEqual([1, 2, 3])
    expect(out.sections[1]?.text).toContain('Page 2 heading')
    expect(out.sections[1]?.text).toContain('Line 0 of page 2: the quick brown fox jumps over the lazy dog.')
  })
})

describe('a DOCX', () => {
  test('is cut at its headings, keeps the text before the first one, and its tables are Markdown tables', async () => {
    const out = await extractInProcess(await makeDocx(2), 'review.docx', LIMITS)
    expect(out.format).toBe('docx')
    expect(out.title).toBe('Quarterly review')
    expect(out.sections.map((s) => s.heading)).toEqual([undefined, 'Chapter 1', 'Chapter 2'])
    expect(out.sections[0]?.text).toBe('An opening paragraph before any heading.')
    expect(out.sections[1]?.text).toStartWith('# Chapter 1\n\nParagraph 0 of chapter 1')
    expect(out.sections[1]?.text).toContain('| Region | Revenue |\n| --- | --- |\n| North | 120 |\n| South | 95 |')
  })
})

describe('a PPTX', () => {
  test('gives one section per slide with its number and title, tables as Markdown', async () => {
    const out = await extractInProcess(await makePptx(3), 'deck.pptx', LIMITS)
    expect(out.format).toBe('pptx')
    expect(out.pages).toBe(3)
    expect(out.sections.map((s) => [s.slide, s.heading])).toEqual([
      [1, 'Slide 1 title'],
      [2, 'Slide 2 title'],
      [3, 'Slide 3 title'],
    ])
    expect(out.sections[1]?.text).toContain('Body text of slide 2 about the launch plan.')
    expect(out.sections[1]?.text).toContain('| Quarter | Goal |\n| --- | --- |\n| Q1 | Beta |')
  })
})

describe('a spreadsheet', () => {
  test('an XLSX gives one Markdown table per sheet, named after it', async () => {
    const bytes = await makeXlsx({
      Sales: [
        ['Name', 'Qty'],
        ['apples', 3],
        ['pears', 5],
      ],
      Staff: [['Who'], ['Ada']],
    })
    const out = await extractInProcess(bytes, 'book.xlsx', LIMITS)
    expect(out.pages).toBe(2)
    expect(out.sections).toEqual([
      { sheet: 'Sales', text: '| Name | Qty |\n| --- | --- |\n| apples | 3 |\n| pears | 5 |' },
      { sheet: 'Staff', text: '| Who |\n| --- |\n| Ada |' },
    ])
  })

  test('a large sheet is cut every 200 rows, each part repeating the header row under the same sheet name', async () => {
    const rows: (string | number)[][] = [['Id', 'Label']]
    for (let i = 1; i <= 450; i++) rows.push([i, `row ${i}`])
    const out = await extractInProcess(await makeXlsx({ Log: rows }), 'log.xlsx', LIMITS)
    expect(out.sections.map((s) => s.sheet)).toEqual(['Log', 'Log', 'Log'])
    for (const s of out.sections) expect(s.text).toStartWith('| Id | Label |\n| --- | --- |\n')
    expect(out.sections.map((s) => s.text.split('\n').length - 2)).toEqual([200, 200, 50])
    expect(out.sections[2]?.text).toEndWith('| 450 | row 450 |')
  })

  test('a CSV is one sheet as a Markdown table, a pipe in a cell escaped', async () => {
    const out = await extractInProcess(text('city,note\nOslo,"cold, dark"\nRome,a|b\n'), 'cities.csv', LIMITS)
    expect(out.format).toBe('csv')
    // No title of its own: the document keeps its file name (the parser's "Sheet1" is no title).
    expect(out.title).toBeUndefined()
    expect(out.sections).toHaveLength(1)
    expect(out.sections[0]?.text).toBe('| city | note |\n| --- | --- |\n| Oslo | cold, dark |\n| Rome | a\\|b |')
  })

  test('an ODS reads like an XLSX', async () => {
    const out = await extractInProcess(
      makeOds('Budget', [
        ['Item', 'Cost'],
        ['Rent', '900'],
      ]),
      'budget.ods',
      LIMITS,
    )
    expect(out.sections).toEqual([{ sheet: 'Budget', text: '| Item | Cost |\n| --- | --- |\n| Rent | 900 |' }])
  })
})

describe('ODF and EPUB', () => {
  test('an ODT and an EPUB are cut at headings like a DOCX', async () => {
    const docx = await makeDocx(2)
    for (const format of ['odt', 'epub'] as const) {
      const out = await extractInProcess(await convertDocx(docx, format), `review.${format}`, LIMITS)
      expect(out.format).toBe(format)
      expect(out.sections.map((s) => s.heading)).toEqual([undefined, 'Chapter 1', 'Chapter 2'])
      expect(out.sections[1]?.text).toContain('| North | 120 |')
    }
  })

  test('an ODP gives one section per slide', async () => {
    const out = await extractInProcess(makeOdp(['Welcome', 'Agenda']), 'talk.odp', LIMITS)
    expect(out.sections.map((s) => [s.slide, s.text])).toEqual([
      [1, 'Welcome'],
      [2, 'Agenda'],
    ])
  })
})

describe('HTML', () => {
  const page = `<!doctype html><html><head><title>Site | Tide tables</title></head><body>
    <nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>
    <header><div class="banner">Subscribe to our newsletter!</div></header>
    <main><article>
      <h1>Tide tables</h1>
      <p>Tides rise and fall twice a day along most coasts, driven by the moon and the sun. ${'The harbour master publishes them every week for sailors. '.repeat(6)}</p>
      <h2>Spring tides</h2>
      <p>Spring tides come at new and full moon, when the sun and moon pull together. ${'They bring the highest highs and the lowest lows of the month. '.repeat(6)}</p>
      <table><tr><th>Day</th><th>High</th></tr><tr><td>Mon</td><td>06:12</td></tr></table>
    </article></main>
    <footer>Copyright 2026 Example Corp. All rights reserved. Privacy policy.</footer>
    <script>var tracking = "do not index me"</script>
  </body></html>`

  test('keeps the article, cut at its headings, and drops navigation, footer and scripts', async () => {
    const out = await extractInProcess(text(page), 'tides.html', LIMITS)
    expect(out.format).toBe('html')
    expect(out.title).toContain('Tide tables')
    const body = joinSections(out.sections)
    expect(body).toContain('Tides rise and fall twice a day')
    expect(body).toContain('| Day | High |\n| --- | --- |\n| Mon | 06:12 |')
    expect(out.sections.map((s) => s.heading)).toContain('Spring tides')
    for (const boilerplate of ['About us', 'newsletter', 'Copyright', 'tracking']) expect(body).not.toContain(boilerplate)
  })
})

describe('Markdown and text', () => {
  test('front matter gives the title and tags (a list), and the body is cut at headings, heading lines kept', async () => {
    const md =
      '---\ntitle: Garden notes\ntags: [plants, soil]\n---\nIntro line.\n\n# Roses\nPrune in March.\n\n```\n# not a heading\n```\n\n## Soil\nKeep it moist.\n'
    const out = await extractInProcess(text(md), 'garden.md', LIMITS)
    expect(out.title).toBe('Garden notes')
    expect(out.tags).toEqual(['plants', 'soil'])
    expect(out.sections).toEqual([
      { text: 'Intro line.' },
      { heading: 'Roses', text: '# Roses\nPrune in March.\n\n```\n# not a heading\n```' },
      { heading: 'Soil', text: '## Soil\nKeep it moist.' },
    ])
  })

  test('tags may be a comma-separated string; a file without front matter has no title', async () => {
    const out = await extractInProcess(text('---\ntags: recipes, soup\n---\nBoil water.'), 'soup.markdown', LIMITS)
    expect(out.tags).toEqual(['recipes', 'soup'])
    const plain = await extractInProcess(text('# Just a heading\nand text'), 'plain.md', LIMITS)
    expect(plain.title).toBeUndefined()
  })

  test('plain text is one section, its byte-order mark, CRLFs and runs of blank lines normalized', async () => {
    const out = await extractInProcess(text('\uFEFFfirst line   \r\n\r\n\r\n\r\nsecond  line\r\n'), 'notes.txt', LIMITS)
    expect(out).toEqual({ format: 'text', sections: [{ text: 'first line\n\nsecond line' }] })
  })
})
