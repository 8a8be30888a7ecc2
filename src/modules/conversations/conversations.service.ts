// Conversations of ask and agent chat: started from the first question, continued with their history, each
// answer stored with the sources it was given. Another user's conversation is a 404 like a missing one.
import { and, desc, eq, lt, sql } from 'drizzle-orm'
import { conversations, events, messages, type MessageSource } from '../../../db/schema'
import { storableText } from '../../lib/storable-text'
import type { Deps } from '../../deps'
import { notFound } from '../../http/errors'
import { decodeCursor, toPage } from '../../lib/cursor'
import type { SessionUser } from '../auth/sessions.service'
import { findWorkspace } from '../workspaces/workspaces.service'

type ConversationRow = typeof conversations.$inferSelect
type MessageRow = typeof messages.$inferSelect

/** Turns of history a model is given (user + assistant messages): enough for follow-ups, bounded in tokens. */
const HISTORY_MESSAGES = 12

const toSummaryDto = (c: ConversationRow) => ({
  id: c.id,
  name: c.name,
  workspace_id: c.workspace_id,
  created_at: c.created_at.toISOString(),
  updated_at: c.updated_at.toISOString(),
})

const toMessageDto = (m: MessageRow) => ({
  id: m.id,
  role: m.role as 'user' | 'assistant',
  content: m.content,
  sources: m.sources,
  created_at: m.created_at.toISOString(),
})

/** The numbers an answer cites, read from its [n] markers. */
export const citedIn = (content: string) => [...new Set([...content.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])))].sort((a, b) => a - b)

/** A name from the first question: its first line, cut at a word near 60 characters. */
export function nameFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ')
  if (line.length <= 60) return line
  const cut = line.slice(0, 60)
  return `${cut.slice(0, cut.lastIndexOf(' ') > 30 ? cut.lastIndexOf(' ') : 60)}…`
}

async function findConversation(deps: Deps, userId: string, id: string): Promise<ConversationRow> {
  const [row] = await deps.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.user_id, userId)))
  if (!row) throw notFound(`conversation ${id} not found`)
  return row
}

export interface Turn {
  /** The conversation's id, chosen now for a new one, so tools can refer to it before it is saved. */
  id: string
  /** Existing conversation, or null when the exchange starts one (created only when it is saved). */
  conversation: ConversationRow | null
  workspace_id: string | null
  history: { role: 'user' | 'assistant'; content: string }[]
}

/** Checks the conversation and workspace (404 when not the caller's) and loads the recent history. */
export async function openTurn(deps: Deps, user: SessionUser, input: { conversation_id?: string; workspace_id?: string }): Promise<Turn> {
  if (input.workspace_id) await findWorkspace(deps.db, user.id, input.workspace_id)
  if (!input.conversation_id) return { id: deps.ids.next(), conversation: null, workspace_id: input.workspace_id ?? null, history: [] }
  const conversation = await findConversation(deps, user.id, input.conversation_id)
  const recent = await deps.db
    .select({ role: messages.role, content: messages.content })
    .from(messages)
    .where(and(eq(messages.conversation_id, conversation.id), eq(messages.user_id, user.id)))
    .orderBy(desc(messages.id))
    .limit(HISTORY_MESSAGES)
  return {
    id: conversation.id,
    conversation,
    workspace_id: input.workspace_id ?? conversation.workspace_id,
    history: recent.reverse().map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content })),
  }
}

/** Stores the question and the answer with its sources (one transaction) and counts an `answer` event. */
export async function saveExchange(deps: Deps, user: SessionUser, turn: Turn, question: string, answer: string, sources: MessageSource[]) {
  const now = deps.clock.now()
  const conversation = await deps.db.transaction(async (tx) => {
    let row: ConversationRow | undefined
    if (turn.conversation) {
      ;[row] = await tx.update(conversations).set({ updated_at: now }).where(eq(conversations.id, turn.conversation.id)).returning()
    } else {
      ;[row] = await tx
        .insert(conversations)
        .values({
          id: turn.id,
          user_id: user.id,
          workspace_id: turn.workspace_id,
          name: nameFrom(question),
          created_at: now,
          updated_at: now,
        })
        .returning()
    }
    // Deleted while its answer was being written: nothing to add the exchange to.
    if (!row) throw notFound(`conversation ${turn.id} was deleted`)
    await tx.insert(messages).values([
      { id: deps.ids.next(), user_id: user.id, conversation_id: row.id, role: 'user', content: question, sources: [], created_at: now },
      {
        id: deps.ids.next(),
        user_id: user.id,
        conversation_id: row.id,
        role: 'assistant',
        content: storableText(answer),
        sources,
        created_at: now,
      },
    ])
    await tx.insert(events).values({ id: deps.ids.next(), user_id: user.id, type: 'answer', created_at: now })
    return row
  })
  return toSummaryDto(conversation)
}

export async function listConversations(deps: Deps, user: SessionUser, q: { limit?: number; cursor?: string; workspace_id?: string }) {
  const limit = q.limit ?? 20
  const after = decodeCursor(q.cursor)
  // Another user's workspace is a 404, as on every list: an empty page would say it exists and is empty.
  if (q.workspace_id) await findWorkspace(deps.db, user.id, q.workspace_id)
  const rows = await deps.db
    .select()
    .from(conversations)
    .where(
      and(
        eq(conversations.user_id, user.id),
        q.workspace_id ? eq(conversations.workspace_id, q.workspace_id) : undefined,
        after ? lt(conversations.id, after) : undefined,
      ),
    )
    .orderBy(desc(conversations.id))
    .limit(limit + 1)
  const { items, next_cursor } = toPage(rows, limit)
  return { data: items.map(toSummaryDto), next_cursor }
}

export async function getConversation(deps: Deps, user: SessionUser, id: string) {
  const conversation = await findConversation(deps, user.id, id)
  const rows = await deps.db
    .select()
    .from(messages)
    .where(and(eq(messages.conversation_id, id), eq(messages.user_id, user.id)))
    .orderBy(messages.id)
  return { ...toSummaryDto(conversation), messages: rows.map(toMessageDto) }
}

export async function updateConversation(
  deps: Deps,
  user: SessionUser,
  id: string,
  input: { name?: string; workspace_id?: string | null },
) {
  await findConversation(deps, user.id, id)
  if (input.workspace_id) await findWorkspace(deps.db, user.id, input.workspace_id)
  const [row] = await deps.db
    .update(conversations)
    .set({
      ...(input.name !== undefined && { name: input.name.trim() }),
      ...(input.workspace_id !== undefined && { workspace_id: input.workspace_id }),
      updated_at: deps.clock.now(),
    })
    .where(and(eq(conversations.id, id), eq(conversations.user_id, user.id)))
    .returning()
  return toSummaryDto(row!)
}

export async function deleteConversation(deps: Deps, user: SessionUser, id: string): Promise<void> {
  const deleted = await deps.db
    .delete(conversations)
    .where(and(eq(conversations.id, id), eq(conversations.user_id, user.id)))
    .returning({ id: conversations.id })
  if (deleted.length === 0) throw notFound(`conversation ${id} not found`)
}

/** Recent answers' sources, newest first, with the question asked and the source numbers the answer cited. */
export async function listSources(deps: Deps, user: SessionUser, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? 20
  const after = decodeCursor(q.cursor)
  const rows = await deps.db
    .select({
      id: messages.id,
      conversation_id: messages.conversation_id,
      content: messages.content,
      sources: messages.sources,
      created_at: messages.created_at,
      // The user's message stored just before this answer in the same conversation.
      // Written out qualified: drizzle leaves the outer columns unqualified, and inside the subquery they would bind to q.
      question: sql<
        string | null
      >`(select q.content from messages q where q.conversation_id = messages.conversation_id and q.role = 'user' and q.id < messages.id order by q.id desc limit 1)`,
    })
    .from(messages)
    .where(
      and(
        eq(messages.user_id, user.id),
        eq(messages.role, 'assistant'),
        sql`jsonb_array_length(${messages.sources}) > 0`,
        after ? lt(messages.id, after) : undefined,
      ),
    )
    .orderBy(desc(messages.id))
    .limit(limit + 1)
  const { items, next_cursor } = toPage(rows, limit)
  return {
    data: items.map((r) => ({
      message_id: r.id,
      conversation_id: r.conversation_id,
      question: r.question,
      created_at: r.created_at.toISOString(),
      sources: r.sources,
      cited: citedIn(r.content),
    })),
    next_cursor,
  }
}
