// The options page: the service's address (stored in extension storage; a new origin asks for host permission), the
// ALLOWED_ORIGINS line, and an optional API key that replaces both the cookie and that line (no restart of the service).
import { allowedOriginsSetting, getSession, problemOf } from './api'
import { ext } from './browser'
import { byId } from './dom'
import { DEFAULT_SERVICE_URL, getApiKey, getServiceUrl, normalizeServiceUrl, originPattern, setApiKey, setServiceUrl } from './settings'

const input = byId<HTMLInputElement>('service-url')
const status = byId('status')

function say(text: string, tone: 'ok' | 'error' | '' = '') {
  status.className = `status ${tone}`.trim()
  status.textContent = text
}

async function save(value: string) {
  const normalized = normalizeServiceUrl(value)
  if ('error' in normalized) return say(normalized.error, 'error')
  // Asked first, while the click still counts as the person's gesture; localhost is granted at install.
  const granted = await ext.permissions.request({ origins: [originPattern(normalized.url)] })
  if (!granted) return say(`Not saved: the extension needs permission to reach ${normalized.url}.`, 'error')
  await setServiceUrl(normalized.url)
  input.value = normalized.url
  say(`Saved. Checking ${normalized.url}…`)
  try {
    const user = await getSession(normalized.url)
    say(`Saved. Signed in as ${user.email}.`, 'ok')
  } catch (error) {
    const problem = problemOf(error)
    say(
      problem.kind === 'signed-out'
        ? `Saved. Sign in at ${normalized.url}/app/sign-in to use the extension.`
        : `Saved, but: ${problem.message}`,
      problem.kind === 'signed-out' ? 'ok' : 'error',
    )
  }
}

const keyInput = byId<HTMLInputElement>('api-key')
const keyStatus = byId('key-status')

function sayKey(text: string, tone: 'ok' | 'error' | '' = '') {
  keyStatus.className = `status ${tone}`.trim()
  keyStatus.textContent = text
}

/** Stores the key only once the service accepts it; an empty one removes the key (back to the dashboard's session). */
async function saveKey(value: string) {
  const key = value.trim()
  const previous = await getApiKey()
  await setApiKey(key)
  if (!key) return sayKey("Key removed: the extension uses the dashboard's session again.", 'ok')
  const service = await getServiceUrl()
  sayKey(`Checking the key with ${service}…`)
  try {
    const user = await getSession(service)
    keyInput.value = ''
    sayKey(`Key saved. Signed in to ${service} as ${user.email} with it.`, 'ok')
  } catch (error) {
    await setApiKey(previous)
    sayKey(`Not saved: ${problemOf(error).message}`, 'error')
  }
}

async function start() {
  input.value = await getServiceUrl()
  const setting = allowedOriginsSetting()
  byId('origin-setting').textContent = setting
  byId('copy-setting').onclick = () => void navigator.clipboard.writeText(setting).then(() => (byId('copy-setting').textContent = 'Copied'))
  byId<HTMLFormElement>('form').onsubmit = (event) => {
    event.preventDefault()
    void save(input.value)
  }
  byId('reset').onclick = () => void save(DEFAULT_SERVICE_URL)
  if (await getApiKey()) sayKey('A key is saved: the extension sends it instead of the session cookie.', 'ok')
  byId<HTMLFormElement>('key-form').onsubmit = (event) => {
    event.preventDefault()
    void saveKey(keyInput.value)
  }
  byId('remove-key').onclick = () => void saveKey('')
}

void start()
