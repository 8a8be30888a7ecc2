// The memory agent: a multi-step tool loop over the caller's documents. It searches, reads, looks at
// workspace context and may propose learnings as drafts; every tool call and result is streamed as a `tool`
// event, the answer as `delta`s (citations checked against the sources the tools found), then `sources`
// and `saved`. A disconnect aborts the loop; a provider failure ends the stream with an `error` event.
import { isStepCount, streamText } from 'ai'
import type { Deps } from '../deps'
import { type Send, StreamError, streamStep } from '../http/sse'
import type { AnswerEvent } from '../modules/ask/ask.service'
import { INTERRUPTED, messageOf } from '../modules/ask/ask.service'
import type { SessionUser } from '../modules/auth/sessions.service'
import { saveExchange, type Turn } from '../modules/conversations/conversations.service'
import { rememberTurn } from '../modules/threads/remember'
import { CitationFilter } from './grounding'
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
  const tools = agentTools({ deps, user, workspaceId: turn.workspace_id, conversationId: turn.id, sources })
  let failure: unknown = null
  let answer = ''
  // Citations are checked against the sources known when the text arrives; tools run before the text.
  let filter = new CitationFilter(0)
  const result = streamText({
    model: deps.chat.model,
    instructions: INSTRUCTIONS + (turn.workspace_id ? `\nThe conversation works in workspace ${turn.workspace_id}.` : ''),
    messages: [...turn.history, { role: 'user' as const, content: message }],
    tools,
    stopWhen: isStepCount(MAX_STEPS),
    abortSignal: signal,
    maxRetries: 1,
    onError: ({ error }) => {
      failure = error
    },
  })
  const say = (text: string) => {
    if (!text) return
    answer += text
    send({ type: 'delta', text })
  }
  try {
    for await (const part of result.stream) {
      switch (part.type) {
        case 'tool-call':
          send({ type: 'tool', tool: { name: part.toolName, status: 'call', detail: (part.input ?? {}) as Record<string, unknown> } })
          break
        case 'tool-result':
          send({ type: 'tool', tool: { name: part.toolName, status: 'result', detail: compactResult(part.toolName, part.output) } })
          break
        case 'tool-error':
          send({ type: 'tool', tool: { name: part.toolName, status: 'error', detail: { message: messageOf(part.error) } } })
          break
        case 'start-step':
          say(filter.flush())
          filter = new CitationFilter(sources.list.length)
          break
        case 'text-delta':
          say(filter.push(part.text))
          break
        case 'error':
          failure = part.error
          break
        case 'finish':
          if (part.finishReason === 'interrupted') failure = new Error(INTERRUPTED)
          break
      }
    }
  } catch (error) {
    // A stream that breaks while being read: the client must hear it, not see a cut answer.
    failure = error
  }
  if (signal.aborted) return
  if (failure) throw new StreamError(`the agent could not finish: ${messageOf(failure)}`, { cause: failure, code: 'provider_error' })
  say(filter.flush())
  send({ type: 'sources', sources: sources.list })
  const conversation = await streamStep('the answer could not be saved', () =>
    saveExchange(deps, user, turn, message, answer.trim(), sources.list),
  )
  send({ type: 'saved', conversation })
  await rememberTurn(deps, user, { surface: 'agent', conversation }, { question: message, answer, sources: sources.list })
}
