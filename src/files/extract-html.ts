// HTML made readable: Readability (on a linkedom document, where no script runs and nothing loads) keeps the
// article and drops navigation and boilerplate; its headings cut the text into sections, its tables stay tables.
import { Readability } from '@mozilla/readability'
import { parseHTML } from 'linkedom'
import { type Extracted, keepNonEmpty, type Section } from './extracted'
import { parseWithOfficeparser } from './extract-office'
import type { ExtractLimits } from './limits'
import { documentSections } from './office-sections'
import { readText } from './extract-text'

export async function extractHtml(bytes: Uint8Array, limits: ExtractLimits): Promise<Extracted> {
  const html = readText(bytes)
  const { document } = parseHTML(html)
  const docTitle = document.title?.trim()
  // Readability changes the document it reads; the page's own text stays the fallback when it finds no article.
  const fallback = document.body?.textContent ?? ''
  const article = new Readability(document as unknown as Document, { charThreshold: 0 }).parse()
  const title = article?.title?.trim() || docTitle || undefined
  let sections: Section[]
  if (article?.content) {
    const ast = await parseWithOfficeparser(new TextEncoder().encode(article.content), 'html', limits)
    sections = documentSections(ast.content)
  } else {
    sections = [{ text: fallback }]
  }
  return { format: 'html', ...(title ? { title } : {}), sections: keepNonEmpty(sections) }
}
