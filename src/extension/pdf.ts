// A PDF open in a tab (Chromium's viewer, Firefox's pdf.js): whether the tab shows one, its bytes fetched from the
// tab's URL with the person's cookies for that site, and a message the person can act on for each way that fails.
import { ext, extensionOrigin } from './browser'

/** The most the extension uploads: what the service takes at most (a plan may take less: its 413 says so). */
export const MAX_PDF_BYTES = 100 * 1024 * 1024

/**
 * page: an ordinary page, read in the page. pdf / file-pdf: a PDF on the web / on this computer, fetched from its URL.
 * maybe-pdf: a web page the extension may not script (Firefox's PDF viewer is one, so is an extension store): tried
 * as a PDF, its bytes decide. unreadable: a browser page.
 */
export type TabKind = 'page' | 'pdf' | 'file-pdf' | 'maybe-pdf' | 'unreadable'

export interface TabProbe {
  /** Whether a script ran in the tab (the popup's and the save's capture). */
  scriptable: boolean
  /** The tab document's `document.contentType` when it ran: Chromium's PDF viewer says application/pdf. */
  contentType?: string | null
}

const isPdfType = (type: string | null | undefined) => (type ?? '').split(';')[0]!.trim().toLowerCase() === 'application/pdf'

/**
 * What the tab shows. A document that ran the probe is a PDF exactly when its content type says so (Chromium keeps
 * the PDF's URL as the tab's and lets the probe run in its viewer); one that refused the probe is taken as a PDF by a
 * path ending in .pdf (Firefox's viewer, a file:// PDF without file access), else it may be one.
 */
export function tabKind(url: string | undefined, probe: TabProbe): TabKind {
  let u: URL | null = null
  try {
    u = url ? new URL(url) : null
  } catch {
    u = null
  }
  const web = u?.protocol === 'http:' || u?.protocol === 'https:'
  const file = u?.protocol === 'file:'
  if (probe.scriptable) {
    if (!isPdfType(probe.contentType)) return 'page'
    return web ? 'pdf' : file ? 'file-pdf' : 'unreadable'
  }
  const pdfPath = !!u && /\.pdf$/i.test(u.pathname)
  if (file) return pdfPath ? 'file-pdf' : 'unreadable'
  if (web) return pdfPath ? 'pdf' : 'maybe-pdf'
  return 'unreadable'
}

/** A HEAD answer for a page the extension cannot script: a PDF, not one, or unknown (refused, no HEAD, no answer). */
export function headKind(status: number, contentType: string | null): 'pdf' | 'not-pdf' | 'unknown' {
  if (status < 200 || status > 299) return 'unknown'
  return isPdfType(contentType) ? 'pdf' : contentType ? 'not-pdf' : 'unknown'
}

/** The service's own test: `%PDF-` within the first 1,024 bytes (readers accept a little junk before it). */
export function isPdfBytes(bytes: Uint8Array): boolean {
  return new TextDecoder('latin1').decode(bytes.subarray(0, 1024)).includes('%PDF-')
}

/** The name the PDF is uploaded as: Content-Disposition's filename, else the URL's last segment, always ending .pdf. */
export function pdfFileName(url: string, contentDisposition: string | null): string {
  let name = ''
  const star = contentDisposition?.match(/filename\*\s*=\s*UTF-8''([^;]+)/i)
  const plain = contentDisposition?.match(/filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i)
  try {
    if (star) name = decodeURIComponent(star[1]!.trim())
  } catch {
    name = ''
  }
  if (!name && plain) name = (plain[1] ?? plain[2] ?? '').trim()
  if (!name) {
    const u = new URL(url)
    const last = u.pathname.split('/').filter(Boolean).pop() ?? ''
    try {
      name = decodeURIComponent(last)
    } catch {
      name = last
    }
    name ||= u.hostname || 'document'
  }
  name = name.split(/[\\/]/).pop()!.trim() || 'document'
  return /\.pdf$/i.test(name) ? name : `${name}.pdf`
}

/** The words for each way a PDF cannot be taken: each says what happened and what the person can do instead. */
export const pdfMessages = {
  unreadable: 'This page cannot be read by the extension (browser pages and extension stores are off limits).',
  fileUrl: (firefox: boolean) =>
    firefox
      ? 'This PDF is a file on your computer, and Firefox does not let extensions read files: upload it in the dashboard.'
      : 'This PDF is a file on your computer, which the extension may read only if you allow it: open chrome://extensions, ' +
        'Knowledge Memory → Details, turn on “Allow access to file URLs”, then try again. Or upload it in the dashboard.',
  fileFailed: (detail: string) => `The extension could not read this file (${detail}): upload it in the dashboard.`,
  notAllowed: (origin: string) =>
    `The extension may not read ${origin} yet: open its popup on this tab and click Save PDF, which asks for access to the site.`,
  network: (origin: string, detail: string) =>
    `Could not fetch the PDF from ${origin} (${detail}). Check the connection, or download it and upload it in the dashboard.`,
  refused: (status: number) =>
    `The site did not give the PDF to the extension (status ${status}): download it and upload it in the dashboard.`,
  status: (status: number) => `The site answered status ${status} for the PDF: download it and upload it in the dashboard.`,
  tooLarge: (bytes: number | null) =>
    `The PDF is ${bytes === null ? 'over 100 MiB' : `${(bytes / 1024 ** 2).toFixed(0)} MiB`}; the extension uploads 100 MiB at most.`,
  /** What came back instead, e.g. a sign-in page: its content type and, for a page, its title. */
  notPdf: (contentType: string | null, bytes: Uint8Array, maybe: boolean) => {
    const type = contentType?.split(';')[0]?.trim() || 'no content type'
    const title = new TextDecoder()
      .decode(bytes.subarray(0, 65536))
      .match(/<title[^>]*>([^<]*)<\/title>/i)?.[1]
      ?.trim()
    const what = `${type}${title ? `, a page titled “${title.replace(/\s+/g, ' ').slice(0, 80)}”` : ''}`
    return maybe
      ? `${pdfMessages.unreadable.slice(0, -1)}, and it is not a PDF (its address answers ${what}).`
      : `The address did not give a PDF but ${what}: perhaps the site wants you to sign in. Open the PDF in the browser, download it and upload it in the dashboard.`
  },
}

export class PdfError extends Error {}

export interface FetchedPdf {
  bytes: Uint8Array
  name: string
}

/** Firefox's extension pages are moz-extension: (its file:// rule differs). */
export const isFirefox = () => extensionOrigin().startsWith('moz-extension:')

/** The host permission pattern of a page's site (match patterns take no port). */
export function sitePattern(url: string): string {
  const u = new URL(url)
  return `${u.protocol}//${u.hostname}/*`
}

/**
 * The PDF at `url`, fetched as the person would: with their cookies for that site (the extension's host permission for
 * it lets the request carry them and read the answer). Throws PdfError with the reason it cannot.
 */
export async function fetchPdf(url: string, kind: TabKind): Promise<FetchedPdf> {
  const u = new URL(url)
  u.hash = ''
  const file = u.protocol === 'file:'
  if (file && !(await ext.extension.isAllowedFileSchemeAccess())) throw new PdfError(pdfMessages.fileUrl(isFirefox()))
  let res: Response
  try {
    res = await fetch(u.href, { credentials: 'include' })
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    if (file) throw new PdfError(pdfMessages.fileFailed(detail))
    // Without the site's permission the request is a cross-origin one the site did not allow: it fails like the network.
    if (!(await ext.permissions.contains({ origins: [sitePattern(u.href)] }))) throw new PdfError(pdfMessages.notAllowed(u.origin))
    throw new PdfError(pdfMessages.network(u.origin, detail))
  }
  if (res.status === 401 || res.status === 403) throw new PdfError(pdfMessages.refused(res.status))
  if (!res.ok && !file) throw new PdfError(pdfMessages.status(res.status))
  const declared = Number(res.headers.get('content-length'))
  if (declared > MAX_PDF_BYTES) {
    await res.body?.cancel()
    throw new PdfError(pdfMessages.tooLarge(declared))
  }
  const bytes = await readCapped(res, MAX_PDF_BYTES)
  if (!bytes) throw new PdfError(pdfMessages.tooLarge(null))
  if (!isPdfBytes(bytes)) throw new PdfError(pdfMessages.notPdf(res.headers.get('content-type'), bytes, kind === 'maybe-pdf'))
  return { bytes, name: pdfFileName(res.url || u.href, res.headers.get('content-disposition')) }
}

/** The answer's bytes, or null once past `max` (the rest is not read: a lying or absent Content-Length included). */
async function readCapped(res: Response, max: number): Promise<Uint8Array | null> {
  if (!res.body) return new Uint8Array(await res.arrayBuffer())
  const reader = res.body.getReader()
  const parts: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > max) {
      await reader.cancel()
      return null
    }
    parts.push(value)
  }
  const bytes = new Uint8Array(total)
  let at = 0
  for (const part of parts) {
    bytes.set(part, at)
    at += part.byteLength
  }
  return bytes
}

/** For the popup, on a page it cannot script: a HEAD (with the cookies) says whether it is a PDF, when the site allows it. */
export async function headSaysPdf(url: string): Promise<'pdf' | 'not-pdf' | 'unknown'> {
  try {
    if (!(await ext.permissions.contains({ origins: [sitePattern(url)] }))) return 'unknown'
    const res = await fetch(url, { method: 'HEAD', credentials: 'include' })
    return headKind(res.status, res.headers.get('content-type'))
  } catch {
    return 'unknown'
  }
}
