// The context pack an agent reads before it works in a workspace (also the MCP tool get_workspace_context):
// pinned items, routines, topic facts, recent items and stats, optionally trimmed to a token budget. A thread's
// message is quoted as everywhere a model reads it: who said it, when, and the messages said around it.
import { and, count, desc, eq, inArray, max, or, sql } from 'drizzle-orm'
import { documents, links } from '../../../db/schema'
import { quoteMessage } from '../../ai/grounding'
import type { Deps } from '../../deps'
import { messageNeighbours, type MessageContext } from '../../retrieval/message-neighbours'
import type { SessionUser } from '../auth/sessions.service'
import { MEMORY_KINDS, type DocumentRow } from '../documents/documents.model'
import { getWorkspace } from './workspaces.service'

const FACT_KINDS = MEMORY_KINDS.filter((k) => k !== 'routine')
const LIST_CAP = 50
const RECENT_CAP = 10

/** An item of the pack; a thread's message quoted as "<speaker>, <date>: <text>", with the messages said around it. */
function toItem(row: DocumentRow, contexts: Map<string, MessageContext>) {
  const item = {
    id: row.id,
    kind: row.kind,
    title: row.title,
    excerpt: row.excerpt,
    tags: row.tags,
    updated_at: row.updated_at.toISOString(),
  }
  const context = contexts.get(row.id)
  if (!context) return item
  const occurred_at = row.occurred_at.toISOString()
  return { ...item, excerpt: quoteMessage(row.speaker, occurred_at, row.excerpt), speaker: row.speaker, occurred_at, context }
}
type Item = ReturnType<typeof toItem>

export interface ContextPack {
  workspace: { id: string; name: string; description: string | null }
  pinned: Item[]
  routines: Item[]
  topic_facts: { topic: string; facts: Item[] }[]
  recent: Item[]
  stats: { documents: number; memories: number; pending_drafts: number; links: number; last_updated: string | null }
  truncated: boolean
}

/** About four characters per token: the usual estimate for English text and JSON. */
export const estimateTokens = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4)

const topicOf = (row: DocumentRow) => {
  const topic = row.metadata.topic
  return typeof topic === 'string' && topic.trim() ? topic.trim() : (row.tags[0] ?? 'general')
}

export async function getContextPack(deps: Deps, user: SessionUser, workspaceId: string, maxTokens?: number): Promise<ContextPack> {
  const workspace = await getWorkspace(deps, user, workspaceId)
  const active = and(eq(documents.user_id, user.id), eq(documents.workspace_id, workspaceId), eq(documents.status, 'active'))
  const [pinned, routines, facts, recent, totals, drafts, linkCount] = await Promise.all([
    deps.db
      .select()
      .from(documents)
      .where(and(active, eq(documents.pinned, true)))
      .orderBy(desc(documents.updated_at))
      .limit(LIST_CAP),
    deps.db
      .select()
      .from(documents)
      .where(and(active, eq(documents.kind, 'routine')))
      .orderBy(desc(documents.updated_at))
      .limit(LIST_CAP),
    deps.db
      .select()
      .from(documents)
      .where(and(active, inArray(documents.kind, FACT_KINDS)))
      .orderBy(desc(documents.updated_at))
      .limit(LIST_CAP * 4),
    deps.db.select().from(documents).where(active).orderBy(desc(documents.updated_at)).limit(RECENT_CAP),
    deps.db
      .select({
        documents: count(),
        memories: sql<number>`count(*) filter (where ${inArray(documents.kind, [...MEMORY_KINDS])})::int`,
        last_updated: max(documents.updated_at),
      })
      .from(documents)
      .where(active),
    deps.db
      .select({ n: count() })
      .from(documents)
      .where(and(eq(documents.user_id, user.id), eq(documents.workspace_id, workspaceId), eq(documents.status, 'pending_approval'))),
    deps.db
      .select({ n: count() })
      .from(links)
      .innerJoin(documents, eq(documents.id, links.source_id))
      .where(
        and(
          eq(links.user_id, user.id),
          eq(documents.workspace_id, workspaceId),
          or(eq(links.status, 'completed'), eq(links.status, 'pending')),
        ),
      ),
  ])
  // The messages among the items, with their neighbours: one query for the whole pack.
  const rows = [...pinned, ...routines, ...facts, ...recent]
  const contexts = await messageNeighbours(deps.db, user.id, [...new Set(rows.filter((r) => r.thread_id !== null).map((r) => r.id))])
  const item = (row: DocumentRow) => toItem(row, contexts)
  const topics = new Map<string, Item[]>()
  for (const row of facts) topics.set(topicOf(row), [...(topics.get(topicOf(row)) ?? []), item(row)])
  const pack: ContextPack = {
    workspace: { id: workspace.id, name: workspace.name, description: workspace.description },
    pinned: pinned.map(item),
    routines: routines.map(item),
    topic_facts: [...topics].map(([topic, items]) => ({ topic, facts: items })),
    recent: recent.map(item),
    stats: {
      documents: totals[0]?.documents ?? 0,
      memories: totals[0]?.memories ?? 0,
      pending_drafts: drafts[0]?.n ?? 0,
      links: linkCount[0]?.n ?? 0,
      last_updated: totals[0]?.last_updated?.toISOString() ?? null,
    },
    truncated: false,
  }
  return maxTokens === undefined ? pack : trimToBudget(pack, maxTokens)
}

/**
 * Keeps what matters most first — pinned, then routines, then topic facts, then recent — adding items
 * while the estimate stays within the budget; `truncated` says whether anything was left out.
 */
export function trimToBudget(pack: ContextPack, maxTokens: number): ContextPack {
  const out: ContextPack = { ...pack, pinned: [], routines: [], topic_facts: [], recent: [], truncated: false }
  let used = estimateTokens(out)
  const fits = (item: unknown) => {
    const cost = estimateTokens(item) + 1
    if (used + cost > maxTokens) return ((out.truncated = true), false)
    return ((used += cost), true)
  }
  for (const item of pack.pinned) if (fits(item)) out.pinned.push(item)
  for (const item of pack.routines) if (fits(item)) out.routines.push(item)
  for (const group of pack.topic_facts) {
    const kept = { topic: group.topic, facts: [] as Item[] }
    if (!fits({ topic: group.topic, facts: [] })) continue
    for (const fact of group.facts) if (fits(fact)) kept.facts.push(fact)
    if (kept.facts.length > 0) out.topic_facts.push(kept)
  }
  const seen = new Set([...out.pinned, ...out.routines].map((i) => i.id))
  for (const item of pack.recent) if (!seen.has(item.id) && fits(item)) out.recent.push(item)
  return out
}
