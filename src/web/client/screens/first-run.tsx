// Home's first-run checklist, shown while the account holds no document: create a key (shown once), pick the client
// and copy its configuration, see its first request arrive, install the extension, add a first document. Each step
// says done or not from the account as it is; the key's first use is polled for while the checklist is open.
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { formatDate } from '../lib/format'
import { DEFAULT_KEY_SCOPES } from '../lib/key-scopes'
import { useAction, useApi } from '../lib/use-api'
import { Link } from '../ui/link'
import { ActionStatus } from '../ui/states'
import { ClientSetup } from './client-setup'
import { OneTimeKey } from './one-time-key'
import './first-run.css'

/** How often the keys are read while waiting for the first request, and for how long at most: every read is an API
 * call of the account, so a tab left open does not count calls forever (Check again starts another round). */
const POLL_MS = 3000
const POLL_ROUNDS = 200

const dismissedKey = (userId: string) => `memory.first-run-dismissed.${userId}`

export function firstRunDismissed(userId: string): boolean {
  try {
    return localStorage.getItem(dismissedKey(userId)) === '1'
  } catch {
    return false
  }
}

export function FirstRun({ userId, documents, onClose }: { userId: string; documents: number; onClose(): void }) {
  const keys = useApi((signal) => unwrap(api.GET('/api/keys', { signal })), [])
  const extension = useApi(
    (signal) => unwrap(api.GET('/api/documents', { params: { query: { source: 'extension', limit: 1 } }, signal })),
    [],
  )
  const [created, setCreated] = useState<string | null>(null)
  const [label, setLabel] = useState('')
  const [polling, setPolling] = useState(0)
  const [stopped, setStopped] = useState(false)
  const create = useAction()

  const list = keys.data?.data ?? []
  const hasKey = list.length > 0
  const used = list.filter((k) => k.last_used_at).sort((a, b) => (a.last_used_at! < b.last_used_at! ? -1 : 1))[0]
  const hasExtension = (extension.data?.data.length ?? 0) > 0

  // The first request of a client shows as its key's last_used_at: read the keys every few seconds until it does.
  useEffect(() => {
    if (!hasKey || used) return
    setStopped(false)
    let rounds = 0
    const timer = setInterval(() => {
      if (document.hidden) return
      if (++rounds > POLL_ROUNDS) {
        clearInterval(timer)
        setStopped(true)
        return
      }
      keys.reload()
    }, POLL_MS)
    return () => clearInterval(timer)
  }, [hasKey, !!used, polling])
  useEffect(() => {
    if (used) announce(`Connected: ${used.label || used.prefix} made its first request`)
  }, [!!used])
  // The extension saves from another tab: coming back here reads the account again.
  useEffect(() => {
    const back = () => !document.hidden && extension.reload()
    document.addEventListener('visibilitychange', back)
    return () => document.removeEventListener('visibilitychange', back)
  }, [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const made = await create.run(() =>
      unwrap(api.POST('/api/keys', { body: { label: label.trim() || null, scopes: [...DEFAULT_KEY_SCOPES] } })),
    )
    if (!made) return
    setCreated(made.key)
    setLabel('')
    keys.reload()
  }
  const dismiss = () => {
    try {
      localStorage.setItem(dismissedKey(userId), '1')
    } catch {
      // Private mode without storage: it goes for this visit, and comes back while the account stays empty.
    }
    announce('Checklist dismissed: keys and client configuration stay under API keys')
    onClose()
  }

  return (
    <section class="card first-run" aria-labelledby="first-run-heading">
      <div class="row snippet-head">
        <h2 id="first-run-heading">Get started</h2>
        <button type="button" class="quiet" onClick={dismiss}>
          Dismiss the checklist
        </button>
      </div>
      <p class="hint">Connect an agent to your memory. Each step ticks itself off when it is done.</p>
      <ol class="checklist">
        <Step n={1} title="Create a key" done={hasKey}>
          {created ? (
            <OneTimeKey apiKey={created}>
              <p class="hint">It fills in the configuration of step 2.</p>
            </OneTimeKey>
          ) : hasKey ? (
            <p>
              You have {list.length === 1 ? 'a key' : 'keys'} ({list.map((k) => `${k.label || k.prefix}`).join(', ')}). A key is shown only
              when it is made: use yours in step 2, or manage them under <Link href="/app/keys">API keys</Link>.
            </p>
          ) : (
            <form class="row first-run-key" onSubmit={submit} aria-label="Create a key">
              <label class="grow">
                <span>
                  Label <span class="hint">(what will use it, e.g. “Claude Desktop”)</span>
                </span>
                <input value={label} maxLength={100} onInput={(e) => setLabel(e.currentTarget.value)} />
              </label>
              <button type="submit" class="primary" disabled={create.busy}>
                Create key
              </button>
            </form>
          )}
          <ActionStatus action={create} />
        </Step>
        <Step n={2} title="Connect your client" done={!!used}>
          <ClientSetup apiKey={created ?? undefined} id="first-run" />
          <p class="connection" role="status">
            {used ? (
              <>
                <strong>Connected:</strong> {used.label || <code>{used.prefix}…</code>} made its first request on{' '}
                {formatDate(used.last_used_at!)}.
              </>
            ) : !hasKey ? (
              'Create a key first: its first request shows here.'
            ) : stopped ? (
              <>
                No request yet; stopped checking.{' '}
                <button type="button" onClick={() => (keys.reload(), setPolling((n) => n + 1))}>
                  Check again
                </button>
              </>
            ) : (
              'Waiting for the first request with your key…'
            )}
          </p>
        </Step>
        <Step n={3} title="Install the browser extension" done={hasExtension}>
          <p>
            It saves the page you are reading, a selection or a PDF to your memory, and searches it from the toolbar. Build it from this
            service's source with <code>bun run build:extension</code>, then load <code>dist/extension</code> (Chromium:{' '}
            <code>chrome://extensions</code> → Developer mode → Load unpacked). Sign in here first: it uses this session, and its popup
            shows the <code>ALLOWED_ORIGINS</code> line the service needs. The step ticks off with the first page it saves.
          </p>
        </Step>
        <Step n={4} title="Add a first document" done={documents > 0}>
          <p>
            Capture a note or a link below, or <Link href="/app/documents/new">add documents</Link>: paste text, or upload files (PDF, Word,
            slides, sheets…).
          </p>
        </Step>
      </ol>
      {hasKey && used && hasExtension && documents > 0 && (
        <p class="notice">
          All set.{' '}
          <button type="button" onClick={dismiss}>
            Hide the checklist
          </button>
        </p>
      )}
    </section>
  )
}

function Step({ n, title, done, children }: { n: number; title: string; done: boolean; children: ComponentChildren }) {
  return (
    <li class={done ? 'step done' : 'step'}>
      <h3>
        <span class="step-mark" aria-hidden="true">
          {done ? '✓' : n}
        </span>
        {title}
        <span class={done ? 'step-status done' : 'step-status'}>{done ? 'Done' : 'Not done yet'}</span>
      </h3>
      <div class="step-body">{children}</div>
    </li>
  )
}
