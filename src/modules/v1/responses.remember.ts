// A stored /v1 response's turn remembered when the person's setting says so (threads/remember.ts): the last user
// message of its input as the question, the text of its output messages as the answer; the chain is the conversation.
import type { Deps } from '../../deps'
import type { SessionUser } from '../auth/sessions.service'
import { rememberTurn } from '../threads/remember'
import type { Item } from './responses.store'

/** What of a prepared response this reads (structurally, so this file needs nothing of responses.service). */
interface Answered {
  id: string
  body: { previous_response_id?: string | null; workspace_id?: string }
  input: Item[]
  turn: { sources: { index: number; document_id: string }[]; json: boolean }
}

const partsText = (content: unknown) =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.flatMap((p: { text?: unknown }) => (typeof p?.text === 'string' ? [p.text] : [])).join('\n')
      : ''

const isMessage = (item: Item, role: string) => (item.type ?? 'message') === 'message' && item.role === role

/** A turn of tool calls only (no text either side) leaves nothing to remember, and is skipped. */
export function rememberResponse(deps: Deps, user: SessionUser, r: Answered, output: Item[]) {
  const question = partsText(r.input.findLast((item) => isMessage(item, 'user'))?.content)
  const answer = output
    .filter((item) => isMessage(item, 'assistant'))
    .map((item) => partsText(item.content))
    .join('\n')
  return rememberTurn(
    deps,
    user,
    {
      surface: 'v1',
      response_id: r.id,
      previous_response_id: r.body.previous_response_id ?? null,
      workspace_id: r.body.workspace_id ?? null,
    },
    // A JSON answer is kept as written: its brackets are the caller's format, not citation markers.
    { question, answer, sources: r.turn.json ? undefined : r.turn.sources },
  )
}
