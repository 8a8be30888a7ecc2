// One conversation (/app/conversations/:id, ?message=<id> to open it at that message): its title, size, time span and
// workspace; rename, delete and forget (both confirmed: they take every message with them), propose learnings from it;
// then its messages.
import { useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import { formatSpan, plural } from '../lib/format'
import { navigate, usePlace } from '../lib/router'
import { loadFirstWindow, type Thread } from '../lib/threads'
import { useAction, useApi } from '../lib/use-api'
import { useWorkspaces, workspaceName } from '../lib/workspaces'
import { Confirm } from '../ui/confirm'
import { Link } from '../ui/link'
import { PageTitle } from '../ui/page'
import { ActionStatus, Loaded } from '../ui/states'
import { Learnings } from './conversation-learnings'
import { MessageWindow } from './conversation-messages'

let windows = 0

export function ConversationPage({ id }: { id: string }) {
  const target = usePlace().query.get('message') ?? undefined
  const thread = useApi((signal) => unwrap(api.GET('/api/threads/{id}', { params: { path: { id } }, signal })), [id])
  const first = useApi(async (signal) => ({ ...(await loadFirstWindow(id, target, signal)), round: ++windows }), [id, target])
  return (
    <Loaded query={thread}>
      {(loaded) => (
        <article class="conversation">
          <ThreadHead thread={loaded} reload={thread.reload} />
          <Loaded query={first} label="Loading messages…">
            {(start) => <MessageWindow key={start.round} threadId={id} start={start} />}
          </Loaded>
        </article>
      )}
    </Loaded>
  )
}

type Confirming = 'delete' | 'forget' | undefined

function ThreadHead({ thread, reload }: { thread: Thread; reload(): void }) {
  const { list } = useWorkspaces()
  const [renaming, setRenaming] = useState(false)
  const [title, setTitle] = useState(thread.title)
  const [confirming, setConfirming] = useState<Confirming>()
  const action = useAction()
  const path = { params: { path: { id: thread.id } } }

  const rename = async (event: Event) => {
    event.preventDefault()
    const saved = await action.run(() => unwrap(api.PATCH('/api/threads/{id}', { ...path, body: { title: title.trim() } })))
    if (!saved) return
    setRenaming(false)
    announce('Conversation renamed')
    reload()
  }
  const end = async (how: 'delete' | 'forget') => {
    const ok = await action.run(async () => {
      await done(how === 'delete' ? api.DELETE('/api/threads/{id}', path) : api.POST('/api/threads/{id}/forget', path))
      return true
    })
    setConfirming(undefined)
    if (!ok) return
    announce(how === 'delete' ? 'Conversation deleted with its messages' : 'Conversation forgotten: its messages are purged')
    navigate('/app/conversations', { replace: true })
  }
  const messages = plural(thread.message_count, 'message')

  return (
    <header class="thread-head">
      <PageTitle title={thread.title} />
      <p class="meta">
        <span>{messages}</span>
        <span>{formatSpan(thread.first_occurred_at, thread.last_occurred_at)}</span>
        <span>{workspaceName(list, thread.workspace_id)}</span>
        {thread.conversation_id && <Link href={`/app/ask/${thread.conversation_id}`}>its Ask conversation</Link>}
      </p>
      {renaming ? (
        <form class="row rename" onSubmit={rename}>
          <label class="grow">
            Conversation title
            <input value={title} maxLength={500} required onInput={(e) => setTitle(e.currentTarget.value)} autoFocus />
          </label>
          <button type="submit" class="primary" disabled={action.busy || !title.trim()}>
            Save title
          </button>
          <button type="button" onClick={() => (setRenaming(false), setTitle(thread.title), action.clear())}>
            Cancel
          </button>
        </form>
      ) : (
        <div class="toolbar row" role="toolbar" aria-label="Conversation actions">
          <button type="button" onClick={() => (setTitle(thread.title), setRenaming(true))}>
            Rename
          </button>
          <button type="button" class="danger" onClick={() => setConfirming('delete')} disabled={action.busy}>
            Delete…
          </button>
          <button type="button" class="danger" onClick={() => setConfirming('forget')} disabled={action.busy}>
            Forget…
          </button>
        </div>
      )}
      <ActionStatus action={action} />
      <Learnings thread={thread} reload={reload} />
      {confirming === 'delete' && (
        <Confirm
          title="Delete this conversation?"
          confirm="Delete conversation"
          danger
          busy={action.busy}
          onConfirm={() => end('delete')}
          onCancel={() => setConfirming(undefined)}
        >
          <p>
            “{thread.title}” and its {messages} are deleted for good. <strong>This cannot be undone.</strong>
          </p>
          <p>Learnings already approved from it stay.</p>
        </Confirm>
      )}
      {confirming === 'forget' && (
        <Confirm
          title="Forget this conversation permanently?"
          confirm="Forget permanently"
          danger
          busy={action.busy}
          onConfirm={() => end('forget')}
          onCancel={() => setConfirming(undefined)}
        >
          <p>
            Its {messages} are purged from storage and search; each leaves only a record, with no content, that something was forgotten.{' '}
            <strong>This is permanent: nothing can be recovered.</strong>
          </p>
        </Confirm>
      )}
    </header>
  )
}
