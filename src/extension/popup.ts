// The popup: save this page or the selection (with tags and a workspace), and a quick search that opens results in the dashboard.
import { checkWritesAllowed, getDefaultWorkspace, getSession, listWorkspaces, problemOf, search, type Problem } from './api'
import type { SaveReply } from './background'
import { ext, type Tab } from './browser'
import { byId, el, show } from './dom'
import { captureTab, type SaveWhat } from './save'
import { dashboard, getLastWorkspace, getServiceUrl, hasHostPermission, originPattern } from './settings'

let service = ''
let tab: Tab | undefined
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

async function saveFromPopup(what: SaveWhat) {
  if (tab?.id === undefined) return
  const status = byId('save-status')
  const buttons = [byId<HTMLButtonElement>('save-page'), byId<HTMLButtonElement>('save-selection')]
  buttons.forEach((b) => (b.disabled = true))
  status.className = 'status'
  status.textContent = what === 'page' ? 'Saving the page…' : 'Saving the selection…'
  const workspaceId = byId<HTMLSelectElement>('workspace').value || null
  const reply = (await ext.runtime.sendMessage({
    type: 'save',
    what,
    tabId: tab.id,
    tags: tagsOf(byId<HTMLInputElement>('tags').value),
    workspaceId,
  })) as SaveReply
  buttons[0]!.disabled = false
  buttons[1]!.disabled = !selectionAvailable
  if (!reply.ok) {
    if (reply.problem.kind === 'failed') {
      status.className = 'status error'
      status.textContent = reply.problem.message
    } else showProblem(reply.problem)
    return
  }
  status.className = 'status ok'
  status.replaceChildren(
    `${reply.document.deduplicated ? 'Updated' : 'Saved'}: `,
    Object.assign(el('a', { text: reply.document.title }), {
      href: dashboard.document(service, reply.document.id),
      target: '_blank',
      rel: 'noopener',
    }),
  )
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
    let readable = true
    selectionAvailable = (await captureTab(tab.id, 'has-selection').catch(() => (readable = false))) === true
    if (!readable) {
      // Browser pages, extension stores, the PDF viewer: say so now rather than after a click.
      byId<HTMLButtonElement>('save-page').disabled = true
      const status = byId('save-status')
      status.className = 'status error'
      status.textContent = 'This page cannot be read by the extension (browser pages and extension stores are off limits).'
    }
    const button = byId<HTMLButtonElement>('save-selection')
    button.disabled = !selectionAvailable
    button.title = selectionAvailable ? '' : 'Select text on the page first'
  }
}

void start()
