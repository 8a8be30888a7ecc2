// The conversations beside the chat (newest first): continue one, or start a new one; and the open
// conversation's own title bar with rename and delete.
import { useState } from 'preact/hooks'
import { api, done, unwrap } from '../api/client'
import { announce } from '../lib/announce'
import type { ConversationSummary } from '../lib/chat'
import { formatDate } from '../lib/format'
import type { Query } from '../lib/use-api'
import { useAction } from '../lib/use-api'
import { Confirm } from '../ui/confirm'
import { Link } from '../ui/link'
import { ActionStatus, Empty, Loaded } from '../ui/states'

type Page = { data: ConversationSummary[]; next_cursor: string | null }

export function ConversationList({ list, current }: { list: Query<Page>; current: string | undefined }) {
  return (
    <nav class="conversations card" aria-labelledby="conversations-heading">
      <h2 id="conversations-heading">Conversations</h2>
      <Link href="/app/ask" class="button">
        New conversation
      </Link>
      <Loaded query={list} label="Loading conversations…">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>
              <p>None yet.</p>
            </Empty>
          ) : (
            <ul>
              {page.data.map((c) => (
                <li key={c.id}>
                  <Link href={`/app/ask/${c.id}`} aria-current={c.id === current ? 'page' : undefined}>
                    <span class="conversation-name">{c.name}</span>
                    <time dateTime={c.updated_at}>{formatDate(c.updated_at)}</time>
                  </Link>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
    </nav>
  )
}

interface BarProps {
  conversation: ConversationSummary
  onRenamed(conversation: ConversationSummary): void
  onDeleted(): void
}

/** Rename (inline) and delete (confirmed: it takes the messages with it) of the open conversation. */
export function ConversationBar({ conversation, onRenamed, onDeleted }: BarProps) {
  const [renaming, setRenaming] = useState(false)
  const [name, setName] = useState(conversation.name)
  const [deleting, setDeleting] = useState(false)
  const action = useAction()
  const path = { params: { path: { id: conversation.id } } }

  const rename = async (event: Event) => {
    event.preventDefault()
    const saved = await action.run(() => unwrap(api.PATCH('/api/conversations/{id}', { ...path, body: { name: name.trim() } })))
    if (!saved) return
    setRenaming(false)
    onRenamed(saved)
    announce('Conversation renamed')
  }
  const remove = async () => {
    const ok = await action.run(async () => (await done(api.DELETE('/api/conversations/{id}', path)), true))
    setDeleting(false)
    if (!ok) return
    announce('Conversation deleted')
    onDeleted()
  }

  return (
    <div class="conversation-bar">
      {renaming ? (
        <form class="row" onSubmit={rename}>
          <label class="grow">
            Conversation name
            <input value={name} maxLength={200} required onInput={(e) => setName(e.currentTarget.value)} autoFocus />
          </label>
          <button type="submit" class="primary" disabled={action.busy || !name.trim()}>
            Save name
          </button>
          <button type="button" onClick={() => (setRenaming(false), setName(conversation.name), action.clear())}>
            Cancel
          </button>
        </form>
      ) : (
        <div class="row">
          <button type="button" onClick={() => (setName(conversation.name), setRenaming(true))}>
            Rename
          </button>
          <button type="button" class="danger" onClick={() => setDeleting(true)}>
            Delete…
          </button>
        </div>
      )}
      <ActionStatus action={action} />
      {deleting && (
        <Confirm
          title="Delete this conversation?"
          confirm="Delete conversation"
          danger
          busy={action.busy}
          onConfirm={remove}
          onCancel={() => setDeleting(false)}
        >
          <p>“{conversation.name}” and all its messages are deleted for good. The documents it cited stay.</p>
        </Confirm>
      )}
    </div>
  )
}
