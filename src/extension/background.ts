// The background (Chromium's service worker, Firefox's event page): context menus, the keyboard shortcut, and
// the saves the popup asks for (done here, so closing the popup mid-save does not cancel them).
import { problemOf, type FileState } from './api'
import { ext, type Tab } from './browser'
import { PdfError } from './pdf'
import { CaptureError, saveFromTab, savedWord, type SaveRequest, type SaveWhat } from './save'
import { setLastWorkspace } from './settings'

export type SaveReply =
  | { ok: true; document: { id: string; title: string; deduplicated: boolean; file?: FileState } }
  | { ok: false; problem: ReturnType<typeof problemOf> }

const MENUS: { id: SaveWhat; title: string; contexts: string[] }[] = [
  { id: 'page', title: 'Save page to memory', contexts: ['page'] },
  { id: 'selection', title: 'Save selection to memory', contexts: ['selection'] },
]

async function createMenus() {
  await ext.contextMenus.removeAll()
  for (const menu of MENUS) ext.contextMenus.create(menu)
}
ext.runtime.onInstalled.addListener(() => void createMenus())
ext.runtime.onStartup.addListener(() => void createMenus())

async function save(request: SaveRequest): Promise<SaveReply> {
  try {
    const document = await saveFromTab(request)
    if (request.workspaceId !== undefined) await setLastWorkspace(request.workspaceId)
    const { id, title, deduplicated, file } = document
    return { ok: true, document: { id, title, deduplicated, ...(file ? { file } : {}) } }
  } catch (error) {
    if (error instanceof CaptureError || error instanceof PdfError)
      return { ok: false, problem: { kind: 'failed', status: 0, message: error.message } }
    return { ok: false, problem: problemOf(error) }
  }
}

/** Saves without the popup open say how it went on the toolbar button of that tab: ✓, or ! with the reason as its tooltip. */
async function saveWithBadge(what: SaveWhat, tab?: Tab) {
  if (tab?.id === undefined) return
  const reply = await save({ what, tabId: tab.id })
  const tabId = tab.id
  await ext.action.setBadgeBackgroundColor({ tabId, color: reply.ok ? '#1a7f37' : '#cf222e' })
  await ext.action.setBadgeText({ tabId, text: reply.ok ? '✓' : '!' })
  await ext.action.setTitle({
    tabId,
    title: reply.ok
      ? `${savedWord(reply.document)}: ${reply.document.title}${reply.document.file?.status === 'processing' ? ' (the service is reading the PDF)' : ''}`
      : `Not saved: ${reply.problem.message}${reply.problem.kind === 'origin-refused' ? ` ${reply.problem.setting}` : ''}`,
  })
}

ext.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId === 'page' || info.menuItemId === 'selection') void saveWithBadge(info.menuItemId, tab)
})

ext.commands.onCommand.addListener(async (command, tab) => {
  if (command !== 'save-page') return
  const target = tab ?? (await ext.tabs.query({ active: true, currentWindow: true }))[0]
  void saveWithBadge('page', target)
})

ext.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  const m = message as { type?: string } & SaveRequest
  if (m?.type !== 'save') return
  // Both browsers keep the channel open for an asynchronous sendResponse when the listener returns true.
  void save({ what: m.what, tabId: m.tabId, tags: m.tags, workspaceId: m.workspaceId }).then(sendResponse)
  return true
})
