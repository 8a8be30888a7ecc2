// The popup: save this page, the PDF it shows, or the selection (with tags and a workspace), and a quick search that
// opens results in the dashboard.
import {
  checkWritesAllowed,
  getDefaultWorkspace,
  getDocument,
  getSession,
  listWorkspaces,
  problemOf,
  search,
  type FileState,
  type Problem,
} from './api'
import type { SaveReply } from './background'
import { ext, type Tab } from './browser'
import { byId, el, show } from './dom'
import { headSaysPdf, isFirefox, pdfMessages, sitePattern, tabKind, type TabKind } from './pdf'
import { probeTab, savedWord, type SaveWhat } from './save'
import { dashboard, getLastWorkspace, getServiceUrl, hasHostPermission, originPattern } from './settings'

/** How often, and how many times, the popup asks whether the service has read a saved PDF (30 s in all). */
const FILE_POLL_MS = 1500
const FILE_POLLS = 20

let service = ''
let tab: Tab | undefined
/** What the target tab shows, decided when the popup opens. */
let kind: TabKind = 'page'
/** Whether the target tab has a selection (checked when the popup opens). */
let selectionAvailable = false

/** The tab to save: `?tab=<id>` when the popup is opened as a page (tests, a pinned tab), else the active tab. */
async function targetTab(): Promise<Tab | undefined> {
  const given = Number(new URLSearchParams(location.search).get('tab'))
  if (Number.isInteger(given) && given > 0) return ext.tabs.get(given)
  return (await ext.tabs.query({ active: true, currentWindow: true }))[0]
}

function showProblem(problem: Problem) {
  show(byId('loading'), false)
  show(byId('problem'), true)
  byId('problem-text').textContent = problem.message
  const action = byId<HTMLButtonElement>('problem-action')
  const setting = byId('problem-setting')
  const copy = byId<HTMLButtonElement>('problem-copy')
  show(setting, problem.kind === 'origin-refused')
  show(copy, problem.kind === 'origin-refused')
  if (problem.kind === 'origin-refused') {
    setting.textContent = problem.setting
    copy.onclick = () => void navigator.clipboard.writeText(problem.setting).then(() => (copy.textContent = 'Copied'))
    copy.className = 'primary'
  }
  show(action, problem.kind === 'signed-out' || problem.kind === 'unreachable')
  if (problem.kind === 'signed-out') {
    action.textContent = 'Sign in'
    action.onclick = () => void ext.tabs.create({ url: dashboard.signIn(service) }).then(() => window.close())
  } else if (problem.kind === 'unreachable') {
    action.textContent = 'Change the service address'
    action.onclick = () => void ext.runtime.openOptionsPage()
  }
}

async function askForHostPermission() {
  show(byId('loading'), false)
  show(byId('problem'), true)
  byId('problem-text').textContent = `The extension needs your permission to reach the service at ${service}.`
  const action = byId<HTMLButtonElement>('problem-action')
  show(action, true)
  action.textContent = 'Allow access'
  action.onclick = async () => {
    if (await ext.permissions.request({ origins: [originPattern(service)] })) location.reload()
  }
}

async function fillWorkspaces() {
  const [workspaces, fallback, last] = await Promise.all([listWorkspaces(service), getDefaultWorkspace(service), getLastWorkspace()])
  const select = byId<HTMLSelectElement>('workspace')
  select.replaceChildren(...workspaces.map((w) => Object.assign(el('option', { text: w.name }), { value: w.id })))
  const chosen = workspaces.find((w) => w.id === last) ?? workspaces.find((w) => w.id === fallback) ?? workspaces[0]
  if (chosen) select.value = chosen.id
}

function tagsOf(input: string): string[] {
  return [
    ...new Set(
      input
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ]
}

function documentLink(id: string, title: string) {
  return Object.assign(el('a', { text: title }), { href: dashboard.document(service, id), target: '_blank', rel: 'noopener' })
}

async function saveFromPopup(what: SaveWhat) {
  if (tab?.id === undefined) return
  const fetchesPdf = what === 'page' && (kind === 'pdf' || kind === 'maybe-pdf') && !!tab.url
  // Asked before anything is awaited, while the click still counts as the person's gesture (localhost is granted at
  // install, another site asks once): the PDF is fetched from its site with the person's cookies for it.
  const permitted = fetchesPdf ? ext.permissions.request({ origins: [sitePattern(tab.url!)] }).catch(() => false) : Promise.resolve(true)
  const status = byId('save-status')
  const buttons = [byId<HTMLButtonElement>('save-page'), byId<HTMLButtonElement>('save-selection')]
  const enable = () => {
    buttons[0]!.disabled = false
    buttons[1]!.disabled = !selectionAvailable
  }
  buttons.forEach((b) => (b.disabled = true))
  status.className = 'status'
  status.textContent = what === 'selection' ? 'Saving the selection…' : kind === 'page' ? 'Saving the page…' : 'Fetching the PDF…'
  if (!(await permitted)) {
    enable()
    status.className = 'status error'
    status.textContent = `Not saved: the extension needs your permission to read ${new URL(tab.url!).origin}, to fetch the PDF with your cookies for that site.`
    return
  }
  const workspaceId = byId<HTMLSelectElement>('workspace').value || null
  const reply = (await ext.runtime.sendMessage({
    type: 'save',
    what,
    tabId: tab.id,
    tags: tagsOf(byId<HTMLInputElement>('tags').value),
    workspaceId,
  })) as SaveReply
  enable()
  if (!reply.ok) {
    if (reply.problem.kind === 'failed') {
      status.className = 'status error'
      status.textContent = reply.problem.message
    } else showProblem(reply.problem)
    return
  }
  if (reply.document.file) return followFile(reply.document.id, reply.document.title, reply.document.file, reply.document.deduplicated)
  status.className = 'status ok'
  status.replaceChildren(`${savedWord(reply.document)}: `, documentLink(reply.document.id, reply.document.title))
}

/** A PDF is saved at once and read by the service in the background: the popup asks a few times how that went. */
async function followFile(id: string, title: string, file: FileState, deduplicated: boolean) {
  const status = byId('save-status')
  for (let i = 0; file.status === 'processing' && i < FILE_POLLS; i++) {
    status.className = 'status'
    status.textContent = 'Saved — reading the PDF…'
    await new Promise((resolve) => setTimeout(resolve, FILE_POLL_MS))
    try {
      const document = await getDocument(service, id)
      if (document.file) file = document.file
      title = document.title
    } catch {
      // The next attempt may reach it; the document is saved either way.
    }
  }
  if (file.status === 'failed') {
    status.className = 'status error'
    status.replaceChildren('Saved, but the PDF could not be read: ', file.error ?? 'no reason given', ' — ', documentLink(id, title))
  } else if (file.status === 'processing') {
    status.className = 'status ok'
    status.replaceChildren('Saved — the PDF is still being read; it becomes searchable when done: ', documentLink(id, title))
  } else {
    status.className = 'status ok'
    status.replaceChildren(`${deduplicated ? 'Already saved' : 'Ready'}: `, documentLink(id, title))
  }
}

async function runSearch(q: string) {
  const status = byId('search-status')
  const list = byId('results')
  const all = byId<HTMLAnchorElement>('all-results')
  if (!q.trim()) return
  status.textContent = 'Searching…'
  try {
    const hits = await search(service, q)
    status.textContent = hits.length ? '' : 'Nothing found.'
    list.replaceChildren(
      ...hits.map((hit) => {
        const link = Object.assign(el('a', { className: 'result-title', text: hit.document.title || hit.document.url || 'Untitled' }), {
          href: dashboard.document(service, hit.document.id),
          target: '_blank',
          rel: 'noopener',
        })
        return el('li', {}, [link, el('p', { className: 'snippet', text: hit.snippet })])
      }),
    )
    all.href = dashboard.search(service, q)
    show(all, true)
  } catch (error) {
    const problem = problemOf(error)
    if (problem.kind === 'failed') status.textContent = problem.message
    else showProblem(problem)
  }
}

async function start() {
  byId('open-options').onclick = () => void ext.runtime.openOptionsPage()
  service = await getServiceUrl()
  if (!(await hasHostPermission(service))) return askForHostPermission()
  tab = await targetTab()
  try {
    const user = await getSession(service)
    byId('account').textContent = user.email
    await Promise.all([checkWritesAllowed(service), fillWorkspaces()])
  } catch (error) {
    return showProblem(problemOf(error))
  }
  show(byId('loading'), false)
  show(byId('save'), true)
  show(byId('search'), true)
  byId('page-title').textContent = tab?.title ?? ''
  byId('page-url').textContent = tab?.url ?? ''
  byId('save-page').onclick = () => void saveFromPopup('page')
  byId('save-selection').onclick = () => void saveFromPopup('selection')
  byId<HTMLFormElement>('search-form').onsubmit = (event) => {
    event.preventDefault()
    void runSearch(byId<HTMLInputElement>('q').value)
  }
  if (tab?.id !== undefined) {
    const probe = await probeTab(tab.id)
    selectionAvailable = probe.selection
    kind = tabKind(tab.url, probe)
    // A page that refuses scripts may be a PDF (Firefox's viewer): when the site is already allowed, a HEAD says.
    if (kind === 'maybe-pdf') {
      const head = await headSaysPdf(tab.url!)
      if (head !== 'unknown') kind = head === 'pdf' ? 'pdf' : 'unreadable'
    }
    const savePage = byId<HTMLButtonElement>('save-page')
    const status = byId('save-status')
    if (kind === 'pdf' || kind === 'file-pdf') savePage.textContent = 'Save PDF'
    // Said now rather than after a click: browser pages, extension stores, a file the extension may not read.
    const blocked =
      kind === 'unreadable'
        ? pdfMessages.unreadable
        : kind === 'file-pdf' && !(await ext.extension.isAllowedFileSchemeAccess())
          ? pdfMessages.fileUrl(isFirefox())
          : null
    if (blocked) {
      savePage.disabled = true
      status.className = 'status error'
      status.textContent = blocked
    } else if (kind === 'maybe-pdf') {
      status.textContent = `The extension cannot read this page. If it is a PDF, Save page asks for access to ${new URL(tab.url!).origin} and saves it.`
    }
    const button = byId<HTMLButtonElement>('save-selection')
    button.disabled = !selectionAvailable
    button.title = selectionAvailable ? '' : 'Select text on the page first'
  }
}

void start()
