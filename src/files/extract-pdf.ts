// PDF → one section per page through unpdf (PDF.js built for servers: no canvas, no worker, nothing fetched).
import { getDocumentProxy, getMeta } from 'unpdf'
import { type Extracted, keepNonEmpty, overPages, reasonOf, type Section, UnreadableFile } from './extracted'
import type { ExtractLimits } from './limits'

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>
interface TextItem {
  str?: string
  hasEOL?: boolean
  transform?: number[]
}

async function openPdf(bytes: Uint8Array): Promise<PdfDocument> {
  try {
    // PDF.js takes ownership of the buffer it is given: a copy leaves the caller's bytes intact.
    return await getDocumentProxy(bytes.slice(), { stopAtErrors: false, verbosity: 0 })
  } catch (error) {
    if (error instanceof Error && error.name === 'PasswordException') {
      throw new UnreadableFile('encrypted PDF: remove the password and upload it again')
    }
    throw new UnreadableFile(`the file is damaged or not a valid PDF: ${reasonOf(error)}`)
  }
}

/** A page's text items as lines: a break where PDF.js marks one or where the baseline moves. */
function pageText(items: TextItem[]): string {
  let text = ''
  let lastY: number | undefined
  for (const item of items) {
    const y = item.transform?.[5]
    if (lastY !== undefined && y !== undefined && Math.abs(y - lastY) > 1 && !text.endsWith('\n')) text += '\n'
    text += item.str ?? ''
    if (item.hasEOL) text += '\n'
    if (y !== undefined) lastY = y
  }
  return text
}

export async function extractPdf(bytes: Uint8Array, limits: ExtractLimits): Promise<Extracted> {
  const pdf = await openPdf(bytes)
  try {
    if (pdf.numPages > limits.maxPages) throw overPages(pdf.numPages, limits.maxPages)
    const sections: Section[] = []
    for (let page = 1; page <= pdf.numPages; page++) {
      const proxy = await pdf.getPage(page)
      const content = await proxy.getTextContent()
      sections.push({ text: pageText(content.items as TextItem[]), page })
      proxy.cleanup()
    }
    const title = await titleOf(pdf)
    return {
      format: 'pdf',
      ...(title ? { title } : {}),
      sections: keepNonEmpty(sections, 'no text layer: scanned pages are not read'),
      pages: pdf.numPages,
    }
  } finally {
    await pdf.cleanup()
    await pdf.loadingTask.destroy()
  }
}

async function titleOf(pdf: PdfDocument): Promise<string | undefined> {
  try {
    const { info } = await getMeta(pdf)
    const title = typeof info?.Title === 'string' ? info.Title.trim() : ''
    return title || undefined
  } catch {
    return undefined
  }
}
