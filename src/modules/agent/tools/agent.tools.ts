// The agent's tools: thin adapters over the services, so the agent can do exactly what the caller could do
// through the API, and nothing more. Learnings become pending_approval drafts, never active memories.
import { tool } from 'ai'
import { quoteMessage, sourceText } from '../../../ai/grounding'
import { z } from 'zod'
import type { Deps } from '../../../deps'
import { viaSurface, type SessionUser } from '../../auth/session-user'
import { MEMORY_KINDS } from '../../documents/documents.model'
import { getDocument } from '../../documents/documents.service'
import { retrieveSources } from '../../ask/retrieve.service'
import { saveDrafts } from '../../memories/memories.service'
import { getContextPack } from '../../workspaces/context.service'
import { listWorkspaces, resolveWorkspaceId } from '../../workspaces/workspaces.service'
import type { SourceRegistry } from './source-registry'

export interface AgentScope {
  deps: Deps
  user: SessionUser
  /** The workspace the conversation works in, or null for all of the caller's. */
  workspaceId: string | null
  conversationId: string | null
  sources: SourceRegistry
}

/** A document body handed to the model is cut here: enough to read, bounded in tokens. */
const MAX_BODY_CHARS = 8_000

export function agentTools(scope: AgentScope) {
  const { deps, user } = scope
  return {
    search: tool({
      description: "Search the user's documents and memories (hybrid keyword + semantic). Cite results by their index as [index].",
      inputSchema: z.object({ query: z.string().min(1).max(2000), limit: z.number().int().min(1).max(10).optional() }),
      execute: async ({ query, limit }) => {
        const found = await retrieveSources(deps, user, query, { workspace_id: scope.workspaceId, limit: limit ?? 5 })
        const results = found.map(({ index: _, ...s }) => scope.sources.add(s))
        return {
          results: results.map((s) => ({ index: s.index, document_id: s.document_id, title: s.title, url: s.url, text: sourceText(s) })),
        }
      },
    }),
    get_document: tool({
      description: 'Read one document in full by its id (from search results). Cite it by the index returned.',
      inputSchema: z.object({ id: z.uuid() }),
      execute: async ({ id }) => {
        const doc = await getDocument(deps, user, id)
        const cut = doc.body.length > MAX_BODY_CHARS ? `${doc.body.slice(0, MAX_BODY_CHARS)}…` : doc.body
        // A thread's message is read as it is quoted everywhere: who said it, and when.
        const body = doc.thread_id ? quoteMessage(doc.speaker, doc.occurred_at, cut.replace(/\s+/g, ' ').trim()) : cut
        const source = scope.sources.add({ document_id: doc.id, title: doc.title, url: doc.url, excerpt: body })
        return { index: source.index, id: doc.id, title: doc.title, kind: doc.kind, tags: doc.tags, text: body }
      },
    }),
    list_workspaces: tool({
      description: "List the user's workspaces (id, name, description, document count).",
      inputSchema: z.object({}),
      execute: async () => ({ workspaces: (await listWorkspaces(deps, user, { limit: 100 })).data }),
    }),
    get_workspace_context: tool({
      description: "A workspace's context pack: pinned items, routines, facts by topic, recent documents and stats.",
      inputSchema: z.object({ workspace_id: z.uuid().optional(), max_tokens: z.number().int().min(50).max(8000).optional() }),
      execute: async ({ workspace_id, max_tokens }) => {
        const id = workspace_id ?? (await resolveWorkspaceId(deps.db, user.id, scope.workspaceId ?? undefined))
        return getContextPack(deps, user, id, max_tokens ?? 2000)
      },
    }),
    save_learnings: tool({
      description:
        'Propose durable learnings (facts, preferences, decisions, routines, lessons) from this conversation. They are saved as ' +
        'drafts (status pending_approval) that become memories only when the user approves them; you cannot make a memory ' +
        'active yourself, so never claim they are already memories.',
      inputSchema: z.object({
        learnings: z
          .array(
            z.object({
              kind: z.enum(MEMORY_KINDS),
              title: z.string().min(1).max(500),
              body: z.string().min(1).max(20_000),
              tags: z.array(z.string().max(64)).max(50).optional(),
            }),
          )
          .min(1)
          .max(20),
      }),
      execute: async ({ learnings }) => {
        const workspace_id = await resolveWorkspaceId(deps.db, user.id, scope.workspaceId ?? undefined)
        const metadata = scope.conversationId ? { conversation_id: scope.conversationId } : undefined
        const { data } = await saveDrafts(deps, viaSurface(user, 'agent'), {
          workspace_id,
          source: 'agent',
          learnings: learnings.map((l) => ({ ...l, metadata })),
        })
        return { drafted: data.map((d) => ({ id: d.id, kind: d.kind, title: d.title, status: d.status })) }
      },
    }),
  }
}

/** The fields of the tools' results that compactResult reads; any of them may be missing. */
interface ToolOutput {
  id?: unknown
  title?: unknown
  index?: unknown
  results?: { title?: unknown }[]
  workspaces?: unknown[]
  workspace?: { name?: unknown }
  pinned?: unknown[]
  recent?: unknown[]
  drafted?: { id?: unknown }[]
}

/** What a `tool` event shows of a result: enough to follow the run, small enough for a UI line. */
export function compactResult(name: string, output: unknown): Record<string, unknown> {
  const o = (output ?? {}) as ToolOutput
  switch (name) {
    case 'search':
      return { results: o.results?.length ?? 0, titles: (o.results ?? []).slice(0, 5).map((r) => r.title) }
    case 'get_document':
      return { id: o.id, title: o.title, index: o.index }
    case 'list_workspaces':
      return { workspaces: o.workspaces?.length ?? 0 }
    case 'get_workspace_context':
      return { workspace: o.workspace?.name, pinned: o.pinned?.length ?? 0, recent: o.recent?.length ?? 0 }
    case 'save_learnings':
      return { drafted: o.drafted?.length ?? 0, ids: (o.drafted ?? []).map((d) => d.id) }
    default:
      return {}
  }
}
