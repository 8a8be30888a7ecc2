// The options page: the service's address (stored in extension storage; a new origin asks for host permission) and the ALLOWED_ORIGINS line.
import { allowedOriginsSetting, getSession, problemOf } from './api'
import { ext } from './browser'
import { byId } from './dom'
import { DEFAULT_SERVICE_URL, getServiceUrl, normalizeServiceUrl, originPattern, setServiceUrl } from './settings'

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
}

void start()
