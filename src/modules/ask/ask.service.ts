// POST /api/ask: a grounded answer streamed as it is written. The question is answered from the caller's
// own documents (retrieved first, numbered as sources, sent with its first words and again after it), with the
// conversation's history as context; invalid citation markers are dropped on the way out; the exchange is stored
// with its sources once complete.
import { groundingInstructions } from '../../ai/grounding'
import type { Deps } from '../../deps'
import { type Send, streamStep } from '../../http/sse'
import { getSettings } from '../account/settings.service'
import type { SessionUser } from '../auth/sessions.service'
import { openTurn, type Turn } from '../conversations/conversations.service'
import { type AnswerEvent, streamAnswerEvents } from './answer-stream'
import { retrieveSources } from './retrieve.service'

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
  const call = {
    model: deps.chat.model,
    instructions: groundingInstructions(sources, answer_style),
    messages: [...turn.history, { role: 'user' as const, content: input.question }],
    abortSignal: signal,
    maxRetries: 1,
  }
  const run = { surface: 'ask', turn, question: input.question, call, sources: () => sources, sourcesFirst: true } as const
  await streamAnswerEvents(deps, user, { ...run, failed: 'the answer could not be completed' }, send)
}
