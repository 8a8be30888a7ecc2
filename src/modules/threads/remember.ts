// The service's own conversations remembered (setting remember_conversations): each turn of ask, agent chat and
// /v1/responses is appended to a thread tied to its conversation as two messages, so search, the context pack and
// extraction see them as any message. Off, it does nothing; a turn it cannot remember is logged, never failed.
import { and, eq } from 'drizzle-orm'
import { threads, v1Responses } from '../../../db/schema'
import type { Deps } from '../../deps'
import { getSettings } from '../account/settings.service'
import type { SessionUser } from '../auth/sessions.service'
import { nameFrom } from '../conversations/conversations.service'
import { appendMessages, startThread } from './threads.service'

/**
 * Where a turn belongs: an ask or agent conversation (its thread names it by threads.conversation_id), or a chain of
 * stored /v1 responses (each response names the thread its turn went to; the next one of the chain continues it).
 */
export type RememberedConversation =
  | { surface: 'ask' | 'agent'; conversation: { id: string; name: string; workspace_id: string | null } }
  | { surface: 'v1'; response_id: string; previous_response_id: string | null; workspace_id: string | null }

export interface RememberedTurn {
  question?: string
  answer?: string
  /** The answer's numbered sources: its [n] markers are taken out of the remembered text (the sources are not kept
   * with it, so the numbers would point nowhere) and the cited documents' ids kept in its metadata. Absent: the text
   * is kept as written (a JSON answer of /v1). */
  sources?: readonly { index: number; document_id: string }[]
}

const MARKER = /\s*\[(\d+(?:\s*,\s*\d+)*)\]/g

/** Appends the turn to the conversation's thread when the person's setting says so. Never throws. */
export async function rememberTurn(deps: Deps, user: SessionUser, conversation: RememberedConversation, turn: RememberedTurn) {
  try {
    if (!(await getSettings(deps.db, user.id)).remember_conversations) return
    const at = deps.clock.now().toISOString()
    const tag = { remembered_from: conversation.surface }
    const v1 = conversation.surface === 'v1' ? conversation.response_id : null
    const messages: Record<string, unknown>[] = []
    const question = turn.question?.trim()
    if (question)
      messages.push({ role: 'user', content: question, occurred_at: at, metadata: tag, ...(v1 ? { client_id: `${v1}:question` } : {}) })
    const answer = answerText(turn)
    if (answer.text)
      messages.push({
        role: 'assistant',
        content: answer.text,
        occurred_at: at,
        metadata: { ...tag, ...(answer.cited.length ? { cited: answer.cited } : {}) },
        ...(v1 ? { client_id: `${v1}:answer` } : {}),
      })
    if (messages.length === 0) return
    const threadId = await threadOf(deps, user, conversation, turn)
    const source = conversation.surface === 'agent' ? 'agent' : 'api'
    const written = await appendMessages(deps, user, threadId, messages, { writer: 'agent', source })
    if (written.failed > 0) {
      const refused = written.results.find((r) => 'error' in r) as { error: string } | undefined
      deps.log.warn('a conversation turn was not wholly remembered', { user_id: user.id, thread_id: threadId, error: refused?.error })
    }
    if (conversation.surface === 'v1')
      await deps.db
        .update(v1Responses)
        .set({ thread_id: threadId })
        .where(and(eq(v1Responses.id, conversation.response_id), eq(v1Responses.user_id, user.id)))
  } catch (error) {
    // The answer is already given and saved: remembering it is a copy, and its failure is the log's, not the caller's.
    deps.log.warn('a conversation turn could not be remembered', { user_id: user.id, surface: conversation.surface, error: String(error) })
  }
}

function answerText(turn: RememberedTurn): { text: string; cited: string[] } {
  const text = turn.answer?.trim() ?? ''
  if (!turn.sources) return { text, cited: [] }
  const byIndex = new Map(turn.sources.map((s) => [s.index, s.document_id]))
  const cited = new Set<string>()
  const stripped = text.replace(MARKER, (_, numbers: string) => {
    for (const n of numbers.split(',')) {
      const id = byIndex.get(Number(n.trim()))
      if (id) cited.add(id)
    }
    return ''
  })
  return { text: stripped.trim(), cited: [...cited] }
}

/** The thread the turn goes to: the conversation's, the previous response's, or a new one named after the conversation. */
async function threadOf(deps: Deps, user: SessionUser, conversation: RememberedConversation, turn: RememberedTurn): Promise<string> {
  if (conversation.surface === 'v1') {
    if (conversation.previous_response_id) {
      const [previous] = await deps.db
        .select({ thread_id: v1Responses.thread_id })
        .from(v1Responses)
        .where(and(eq(v1Responses.id, conversation.previous_response_id), eq(v1Responses.user_id, user.id)))
      if (previous?.thread_id) return previous.thread_id
    }
    const name = turn.question?.trim() ? nameFrom(turn.question) : 'Conversation'
    // No external or conversation id: the insert cannot meet a conflict.
    const started = await startThread(deps, user, {
      title: name,
      workspace_id: conversation.workspace_id ?? undefined,
      metadata: { remembered_from: 'v1' },
    })
    return started!.id
  }
  const { id, name, workspace_id } = conversation.conversation
  const byConversation = () =>
    deps.db
      .select({ id: threads.id })
      .from(threads)
      .where(and(eq(threads.user_id, user.id), eq(threads.conversation_id, id)))
  const [found] = await byConversation()
  if (found) return found.id
  // Two turns of a new conversation at once: the second finds the first's thread (conversation_id is unique).
  const started = await startThread(deps, user, {
    title: name,
    workspace_id: workspace_id ?? undefined,
    conversation_id: id,
    metadata: { remembered_from: conversation.surface },
  })
  return started?.id ?? (await byConversation())[0]!.id
}
