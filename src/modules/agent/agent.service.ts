// The memory agent: a multi-step tool loop over the caller's documents. It searches, reads, looks at
// workspace context and may propose learnings as drafts; every tool call and result is streamed as a `tool`
// event, the answer as `delta`s (citations checked against the sources the tools found), then `sources`
// and `saved`. A disconnect aborts the loop; a provider failure ends the stream with an `error` event.
import { isStepCount } from 'ai'
import type { Deps } from '../../deps'
import type { Send } from '../../http/sse'
import { type AnswerEvent, streamAnswerEvents } from '../ask/answer-stream'
import type { SessionUser } from '../auth/sessions.service'
import type { Turn } from '../conversations/conversations.service'
import { agentTools, compactResult } from './tools/agent.tools'
import { SourceRegistry } from './tools/source-registry'

/** Model steps per message: search, read a document or two, maybe draft learnings, answer. */
export const MAX_STEPS = 6

const INSTRUCTIONS = [
  "You are the user's memory assistant. Their documents and memories are reachable only through your tools.",
  'Search before answering a question about their knowledge; read a document in full when a passage is not enough.',
  'Answer only from what the tools returned, citing each statement with the [index] of its source. Say so when nothing relevant was found.',
  'When the user states a durable fact, preference, decision, routine or lesson worth remembering, propose it with save_learnings; it becomes a draft that only they can approve, so tell them it awaits their approval.',
].join('\n')

export async function runAgent(
  deps: Deps,
  user: SessionUser,
  message: string,
  turn: Turn,
  send: Send<AnswerEvent>,
  signal: AbortSignal,
): Promise<void> {
  const sources = new SourceRegistry()
  const call = {
    model: deps.chat.model,
    instructions: INSTRUCTIONS + (turn.workspace_id ? `\nThe conversation works in workspace ${turn.workspace_id}.` : ''),
    messages: [...turn.history, { role: 'user' as const, content: message }],
    tools: agentTools({ deps, user, workspaceId: turn.workspace_id, conversationId: turn.id, sources }),
    stopWhen: isStepCount(MAX_STEPS),
    abortSignal: signal,
    maxRetries: 1,
  }
  // Citations are checked against the sources known when a step starts: tools run between steps, before its text.
  const run = { surface: 'agent', turn, question: message, call, sources: () => sources.list, sourcesFirst: false } as const
  await streamAnswerEvents(deps, user, { ...run, toolDetail: compactResult, failed: 'the agent could not finish' }, send)
}
