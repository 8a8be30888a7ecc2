// The event stream ask and the agent share, over the one model loop (ai/model-stream.ts): `tool` steps as they
// happen, `delta`s, `sources`, then the exchange saved and `saved`; what the turn teaches is remembered last.
import type { Source } from '../../ai/grounding'
import { messageOf, type ModelCall, streamModel } from '../../ai/model-stream'
import type { Deps } from '../../deps'
import type { ErrorCode } from '../../http/error-codes'
import { AppError } from '../../http/errors'
import { type Send, streamStep } from '../../http/sse'
import type { SessionUser } from '../auth/sessions.service'
import { saveExchange, type Turn } from '../conversations/conversations.service'
import { rememberTurn } from '../threads/remember'

export type AnswerEvent =
  | { type: 'delta'; text: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'saved'; conversation: Awaited<ReturnType<typeof saveExchange>> }
  | { type: 'error'; message: string; code: ErrorCode }
  | { type: 'tool'; tool: { name: string; status: 'call' | 'result' | 'error'; detail: Record<string, unknown> } }

/** How a stream of answer events ends when it fails after it began. */
export const errorEvent = (message: string, code: ErrorCode): AnswerEvent => ({ type: 'error', message, code })

export interface AnswerRun {
  surface: 'ask' | 'agent'
  turn: Turn
  question: string
  call: ModelCall
  /** The sources the answer may cite: ask's, found before it starts; the agent's, as its tools find them. */
  sources: () => Source[]
  /** Ask shows its sources with the first words (the dashboard lists them as the answer starts) and again after
   * the answer, as the documented order says (delta…, sources, saved); the agent's come once, after it. */
  sourcesFirst: boolean
  /** What a tool's result shows the client. */
  toolDetail?: (name: string, output: unknown) => Record<string, unknown>
  /** The client's message when the model fails: "<failed>: <reason>". */
  failed: string
}

export async function streamAnswerEvents(deps: Deps, user: SessionUser, run: AnswerRun, send: Send<AnswerEvent>): Promise<void> {
  let answer = ''
  const end = await streamModel(
    run.call,
    { citable: () => run.sources().length, failed: run.failed },
    {
      text: (text) => {
        if (run.sourcesFirst && !answer) send({ type: 'sources', sources: run.sources() })
        answer += text
        send({ type: 'delta', text })
      },
      toolCall: ({ name, input }) =>
        send({ type: 'tool', tool: { name, status: 'call', detail: (input ?? {}) as Record<string, unknown> } }),
      toolResult: ({ name, output }) =>
        send({ type: 'tool', tool: { name, status: 'result', detail: run.toolDetail?.(name, output) ?? {} } }),
      toolError: ({ name, error }) => send({ type: 'tool', tool: { name, status: 'error', detail: { message: messageOf(error) } } }),
    },
  )
  if (!end) return
  const sources = run.sources()
  send({ type: 'sources', sources })
  const conversation = await streamStep('the answer could not be saved', () =>
    saveExchange(deps, user, run.turn, run.question, answer.trim(), sources),
  )
  send({ type: 'saved', conversation })
  await rememberTurn(deps, user, { surface: run.surface, conversation }, { question: run.question, answer, sources })
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
