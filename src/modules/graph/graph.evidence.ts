// What the graph's memories came from, read from their metadata: the messages they cite (metadata.evidence, set on
// drafts extracted from a thread) and that thread (metadata.thread_id), the ask or agent conversation that drafted
// them (metadata.conversation_id), and the memory they replaced (metadata.supersedes). A cited document drawn in
// the graph is joined to the memory directly; a cited message (never a node) joins it to its conversation instead.
import { and, eq, inArray, or, sql } from 'drizzle-orm'
import { conversations, documents, threads } from '../../../db/schema'
import type { Deps } from '../../deps'
import { MEMORY_KINDS } from '../documents/documents.model'

export interface EvidenceSource {
  id: string
  title: string
  /** thread: a conversation of messages (/api/threads); chat: an ask or agent conversation (/api/conversations). */
  kind: 'thread' | 'chat'
}
export interface EvidenceEdge {
  source: string
  target: string
  kind: 'evidence' | 'supersedes'
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ids = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && UUID.test(v)).map((v) => v.toLowerCase())

/** Evidence edges from the memories among `nodeIds` (the user's), and the conversations they name. */
export async function evidenceOf(deps: Deps, userId: string, nodeIds: string[]) {
  const memories = await deps.db
    .select({
      id: documents.id,
      evidence: sql<unknown>`${documents.metadata}->'evidence'`,
      thread: sql<unknown>`${documents.metadata}->'thread_id'`,
      conversation: sql<unknown>`${documents.metadata}->'conversation_id'`,
      supersedes: sql<unknown>`${documents.metadata}->'supersedes'`,
    })
    .from(documents)
    .where(and(eq(documents.user_id, userId), inArray(documents.id, nodeIds), inArray(documents.kind, [...MEMORY_KINDS])))
  const nodes = new Set(nodeIds)
  const cited = [...new Set(memories.flatMap((m) => ids(m.evidence)).filter((id) => !nodes.has(id)))]
  // A cited message is drawn as its thread; a cited document outside the graph (archived, another window) is not drawn.
  const messages = cited.length
    ? await deps.db
        .select({ id: documents.id, thread: documents.thread_id })
        .from(documents)
        .where(and(eq(documents.user_id, userId), inArray(documents.id, cited)))
    : []
  const threadOfMessage = new Map(messages.flatMap((m) => (m.thread ? [[m.id, m.thread] as const] : [])))
  const chats = [...new Set(memories.flatMap((m) => ids(m.conversation)))]

  const threadIds = new Set([...memories.flatMap((m) => ids(m.thread)), ...threadOfMessage.values()])
  const threadRows =
    threadIds.size || chats.length
      ? await deps.db
          .select({ id: threads.id, title: threads.title, conversation: threads.conversation_id })
          .from(threads)
          .where(and(eq(threads.user_id, userId), or(inArray(threads.id, [...threadIds]), inArray(threads.conversation_id, chats))))
      : []
  // A conversation the thread remembers is drawn once, as that thread.
  const threadOfChat = new Map(threadRows.flatMap((t) => (t.conversation ? [[t.conversation, t.id] as const] : [])))
  const chatRows = chats.some((c) => !threadOfChat.has(c))
    ? await deps.db
        .select({ id: conversations.id, title: conversations.name })
        .from(conversations)
        .where(
          and(
            eq(conversations.user_id, userId),
            inArray(
              conversations.id,
              chats.filter((c) => !threadOfChat.has(c)),
            ),
          ),
        )
    : []
  const sources = new Map<string, EvidenceSource>([
    ...threadRows.map((t) => [t.id, { id: t.id, title: t.title, kind: 'thread' as const }] as const),
    ...chatRows.map((c) => [c.id, { id: c.id, title: c.title, kind: 'chat' as const }] as const),
  ])

  const edges = new Map<string, EvidenceEdge>()
  const join = (source: string, target: string | undefined, kind: EvidenceEdge['kind']) => {
    if (target && target !== source && (nodes.has(target) || sources.has(target)))
      edges.set(`${source} ${target}`, { source, target, kind })
  }
  for (const m of memories) {
    for (const id of ids(m.supersedes)) join(m.id, id, 'supersedes')
    for (const id of ids(m.evidence)) join(m.id, nodes.has(id) ? id : threadOfMessage.get(id), 'evidence')
    for (const id of ids(m.thread)) join(m.id, id, 'evidence')
    for (const id of ids(m.conversation)) join(m.id, threadOfChat.get(id) ?? id, 'evidence')
  }
  const used = new Set([...edges.values()].map((e) => e.target))
  return { sources: [...sources.values()].filter((s) => used.has(s.id)), edges: [...edges.values()] }
}
