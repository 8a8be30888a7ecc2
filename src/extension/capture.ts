// Injected into the page (chrome.scripting.executeScript): reads the readable article or the current selection.
// Defines one function on the isolated world's global; the background calls it in a second injection.
import { Readability } from '@mozilla/readability'
import { htmlToText, nodeToText } from './readable'

export interface Captured {
  title: string
  url: string
  body: string
  excerpt?: string
  /** Only for a selection: the page's own title. */
  pageTitle?: string
}

function pageUrl(): string {
  // A #fragment names a place in the page, not another page: saving the same article twice is one document.
  const u = new URL(location.href)
  u.hash = ''
  return u.href
}

function capturePage(): Captured {
  // Readability rewrites the document it is given, so it gets a copy.
  const article = new Readability(document.cloneNode(true) as Document).parse()
  const body = article?.content ? htmlToText(article.content) : ''
  return {
    title: (article?.title || document.title || pageUrl()).trim(),
    url: pageUrl(),
    body: body || nodeToText(document.body),
    excerpt: article?.excerpt?.trim() || undefined,
  }
}

function captureSelection(): Captured | null {
  const selection = getSelection()
  if (!selection || selection.isCollapsed) return null
  // An inert document: cloned images do not load and nothing in the copy runs.
  const inert = document.implementation.createHTMLDocument('')
  const container = inert.createElement('div')
  for (let i = 0; i < selection.rangeCount; i++) container.append(inert.importNode(selection.getRangeAt(i).cloneContents(), true))
  const body = nodeToText(container) || selection.toString().trim()
  if (!body) return null
  return { title: document.title.trim(), url: pageUrl(), body, pageTitle: document.title.trim() }
}

function hasSelection(): boolean {
  const selection = getSelection()
  return !!selection && !selection.isCollapsed && selection.toString().trim().length > 0
}

/** What the popup asks when it opens: a selection to save, and the document's type (Chromium's PDF viewer: application/pdf). */
export interface Probe {
  selection: boolean
  contentType: string
}

;(globalThis as { __memoryCapture?: unknown }).__memoryCapture = (what: 'page' | 'selection' | 'probe') =>
  what === 'page'
    ? capturePage()
    : what === 'selection'
      ? captureSelection()
      : ({ selection: hasSelection(), contentType: document.contentType } satisfies Probe)
