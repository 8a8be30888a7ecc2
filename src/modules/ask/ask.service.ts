// POST /api/ask: a grounded answer streamed as it is written. The question is answered from the caller's
// own documents (retrieved first, numbered as sources, sent with its first words and again after it), with the
// conversation's history as context; invalid citation markers are dropped on the way out; the exchange is stored
// with its sources once complete.
import { streamText } from 'ai'
import { CitationFilter, groundingInstructions, type Source } from '../../ai/grounding'
import type { Deps } from '../../deps'
import type { ErrorCode } from '../../http/error-codes'
import { AppError } from '../../http/errors'
import { type Send, StreamError, streamStep } from '../../http/sse'
import { getSettings } from '../account/settings.service'
import type { SessionUser } from '../auth/sessions.service'
import { openTurn, saveExchange, type Turn } from '../conversations/conversations.service'
import { rememberTurn } from '../threads/remember'
import { retrieveSources } from './retrieve.service'

export type AnswerEvent =
  | { type: 'delta'; text: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'saved'; conversation: Awaited<ReturnType<typeof saveExchange>> }
  | { type: 'error'; message: string; code: ErrorCode }
  | { type: 'tool'; tool: { name: string; status: 'call' | 'result' | 'error'; detail: Record<string, unknown> } }

/** How a stream of answer events ends when it fails after it began. */
export const errorEvent = (message: string, code: ErrorCode): AnswerEvent => ({ type: 'error', message, code })

export interface AskInput {
  question: string
  conversation_id?: string
  workspace_id?: string
}

/** Everything that can fail with a 4xx happens here, before the stream starts. */
export function prepareAsk(deps: Deps, user: SessionUser, input: AskInput): Promise<Turn> {
  return openTurn(deps, user, input)
}

export async function streamAnswer(
  deps: Deps,
  user: SessionUser,
  input: AskInput,
  turn: Turn,
  send: Send<AnswerEvent>,
  signal: AbortSignal,
): Promise<void> {
  const [sources, { answer_style }] = await streamStep('the sources could not be found', () =>
    Promise.all([retrieveSources(deps, user, input.question, { workspace_id: turn.workspace_id }), getSettings(deps.db, user.id)]),
  )
  const filter = new CitationFilter(sources.length)
  let answer = ''
  const emit = (text: string) => {
    if (!text) return
    // The sources go out with the first words (the dashboard shows them as the answer starts), and again after
    // the answer, as the documented order says (delta…, sources, saved): a client keeps the last sources it read.
    if (!answer) send({ type: 'sources', sources })
    answer += text
    send({ type: 'delta', text })
  }
  let failure: unknown = null
  const result = streamText({
    model: deps.chat.model,
    instructions: groundingInstructions(sources, answer_style),
    messages: [...turn.history, { role: 'user' as const, content: input.question }],
    abortSignal: signal,
    maxRetries: 1,
    onError: ({ error }) => {
      failure = error
    },
  })
  try {
    for await (const part of result.stream) {
      if (part.type === 'text-delta') emit(filter.push(part.text))
      else if (part.type === 'error') failure = part.error
      else if (part.type === 'finish' && part.finishReason === 'interrupted') failure = new Error(INTERRUPTED)
    }
  } catch (error) {
    // A stream that breaks while being read: the client must hear it, not see a cut answer.
    failure = error
  }
  if (signal.aborted) return
  if (failure) throw new StreamError(`the answer could not be completed: ${messageOf(failure)}`, { cause: failure, code: 'provider_error' })
  emit(filter.flush())
  send({ type: 'sources', sources })
  const conversation = await streamStep('the answer could not be saved', () =>
    saveExchange(deps, user, turn, input.question, answer.trim(), sources),
  )
  send({ type: 'saved', conversation })
  await rememberTurn(deps, user, { surface: 'ask', conversation }, { question: input.question, answer, sources })
}

type Saved = Extract<AnswerEvent, { type: 'saved' }>['conversation']
type ToolStep = Extract<AnswerEvent, { type: 'tool' }>['tool']

/**
 * A whole stream of answer events as one answer, for a caller that asked for JSON: the text as saved in the
 * conversation, its sources, the conversation, and the agent's tool steps in order.
 */
export function answerOf(events: AnswerEvent[]): { answer: string; sources: Source[]; conversation: Saved; tools: ToolStep[] } {
  let answer = ''
  let sources: Source[] = []
  let conversation: Saved | undefined
  const tools: ToolStep[] = []
  for (const event of events) {
    if (event.type === 'delta') answer += event.text
    else if (event.type === 'sources') sources = event.sources
    else if (event.type === 'saved') conversation = event.conversation
    else if (event.type === 'tool') tools.push(event.tool)
  }
  // Only a producer stopped by its client ends without `saved`, and that client reads no answer.
  if (!conversation) throw new AppError(500, 'the answer ended before it was saved')
  return { answer: answer.trim(), sources, conversation, tools }
}

/** The provider's stream ended with no finish: the answer is cut, and must be reported as such. */
export const INTERRUPTED = "the model's stream ended before the answer was complete"

export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300)
