// Saving a tab's page or selection to the service: capture in the page and post the ingest body, or, for a PDF,
// fetch the file and upload it. Used by the background for the popup's buttons, the context menu and the shortcut alike.
import { saveDocument, uploadFile, type FileState, type IngestInput, type SavedDocument } from './api'
import { ext } from './browser'
import type { Captured, Probe } from './capture'
import { fetchPdf, pdfMessages, tabKind, type TabKind, type TabProbe } from './pdf'
import { getLastWorkspace, getServiceUrl } from './settings'

export type SaveWhat = 'page' | 'selection'

export interface SaveRequest {
  what: SaveWhat
  tabId: number
  tags?: string[]
  /** Omitted: the workspace saved to last; null: the account's default. */
  workspaceId?: string | null
}

const MAX_BODY_BYTES = 1024 * 1024
const MAX_URL = 2048

export class CaptureError extends Error {}

/** The service keeps http(s) URLs only, of at most 2,048 characters: a local file's page is saved without its URL. */
const isWebUrl = (url: string) => url.length <= MAX_URL && /^https?:\/\//i.test(url)

/** Runs the capture script in the tab's main frame; restricted pages (browser pages, the web store) refuse it. */
export async function captureTab(tabId: number, what: SaveWhat | 'probe'): Promise<unknown> {
  try {
    await ext.scripting.executeScript({ target: { tabId }, files: ['capture.js'] })
    const [frame] = await ext.scripting.executeScript({
      target: { tabId },
      func: ((w: string) => (globalThis as unknown as { __memoryCapture: (w: string) => unknown }).__memoryCapture(w)) as (
        ...args: never[]
      ) => unknown,
      args: [what],
    })
    return frame?.result ?? null
  } catch (error) {
    throw new CaptureError(`${pdfMessages.unreadable.slice(0, -1)}: ${error instanceof Error ? error.message : error}`)
  }
}

/** Whether a script runs in the tab, what it shows (its content type) and whether text is selected there. */
export async function probeTab(tabId: number): Promise<TabProbe & { selection: boolean }> {
  try {
    const probe = (await captureTab(tabId, 'probe')) as Probe | null
    return { scriptable: true, selection: probe?.selection === true, contentType: probe?.contentType ?? null }
  } catch {
    return { scriptable: false, selection: false }
  }
}

/** A saved page or note; a saved PDF also has its file's state (its text is read by the service in the background). */
export type Saved = SavedDocument & { file?: FileState }

/** The first word of a save's answer: a page saved again is updated; a file sent again is the same file, unchanged. */
export function savedWord(document: { deduplicated: boolean; file?: unknown }): string {
  if (!document.deduplicated) return 'Saved'
  return document.file ? 'Already saved' : 'Updated'
}

export async function saveFromTab(request: SaveRequest): Promise<Saved> {
  if (request.what === 'page') {
    const tab = await ext.tabs.get(request.tabId)
    const kind = tabKind(tab.url, await probeTab(request.tabId))
    if (kind === 'unreadable') throw new CaptureError(pdfMessages.unreadable)
    if (kind !== 'page') return savePdf(tab.url!, kind, request)
  }
  const captured = (await captureTab(request.tabId, request.what)) as Captured | null
  if (!captured)
    throw new CaptureError(
      request.what === 'selection' ? 'Nothing is selected on the page: select some text first.' : 'The page has no text to save.',
    )
  const workspaceId = request.workspaceId === undefined ? await getLastWorkspace() : request.workspaceId
  const input = request.what === 'page' ? pageInput(captured) : selectionInput(captured)
  if (request.tags?.length) input.tags = request.tags
  if (workspaceId) input.workspace_id = workspaceId
  return saveDocument(await getServiceUrl(), input)
}

/** The tab's PDF, fetched from its URL with the person's cookies and uploaded as a file with the save's workspace and tags. */
async function savePdf(url: string, kind: TabKind, request: SaveRequest): Promise<Saved> {
  const pdf = await fetchPdf(url, kind)
  const workspaceId = request.workspaceId === undefined ? await getLastWorkspace() : request.workspaceId
  return uploadFile(
    await getServiceUrl(),
    { bytes: pdf.bytes, name: pdf.name, type: 'application/pdf' },
    { ...(workspaceId ? { workspace_id: workspaceId } : {}), ...(request.tags?.length ? { tags: request.tags } : {}) },
  )
}

export function pageInput(page: Captured): IngestInput {
  return {
    title: cut(page.title, 500),
    body: cutBytes(page.body),
    kind: 'webpage',
    ...(isWebUrl(page.url) ? { url: page.url } : {}),
    ...(page.excerpt ? { excerpt: cut(page.excerpt, 1000) } : {}),
  }
}

/**
 * A selection is its own note whose URL points at the passage (a text fragment, `#:~:text=start,end`): it opens
 * scrolled to the quote, never replaces the page's own document, and saving the same passage again updates it.
 */
export function selectionInput(selection: Captured): IngestInput {
  const words = selection.body.split(/\s+/).filter(Boolean)
  const quote = words.slice(0, 8).join(' ') + (words.length > 8 ? '…' : '')
  const url = selection.url + textFragment(words)
  return {
    title: cut(`“${quote}” — ${selection.pageTitle || selection.url}`, 500),
    body: cutBytes(selection.body),
    kind: 'note',
    ...(isWebUrl(url) ? { url } : {}),
    metadata: { page_url: selection.url, page_title: selection.pageTitle ?? '' },
  }
}

/** A text fragment for these words: all of them when few, else the first and last four. */
export function textFragment(words: string[]): string {
  // encodeURIComponent leaves "-" alone, but in a text directive it marks a prefix or suffix.
  const enc = (ws: string[]) => encodeURIComponent(ws.join(' ')).replace(/-/g, '%2D')
  if (words.length <= 8) return `#:~:text=${enc(words)}`
  return `#:~:text=${enc(words.slice(0, 4))},${enc(words.slice(-4))}`
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : text.slice(0, max - 1) + '…'
}

/** The service takes bodies of at most 1 MiB of UTF-8; a longer article is cut, not refused. */
function cutBytes(text: string): string {
  const bytes = new TextEncoder().encode(text)
  if (bytes.length <= MAX_BODY_BYTES) return text
  return new TextDecoder().decode(bytes.slice(0, MAX_BODY_BYTES - 4)).replace(/\uFFFD$/, '')
}
