// /v1/completions: OpenAI's legacy text completions (what LlamaIndex's OpenAILike and other older clients call),
// answered by the same grounded turn as chat completions: each prompt is a question, retrieved for and answered
// from the caller's documents, one choice per prompt. Citations ride on each choice, as on a chat completion.
import { RAG_MODEL } from '../../ai/models'
import type { Deps } from '../../deps'
import type { Send } from '../../http/sse'
import type { SessionUser } from '../auth/sessions.service'
import { recordEvent } from '../usage/usage.service'
import type { CompletionBody } from './completions.schemas'
import { citationsOf, generateTurn, prepareTurn, streamTurn, type FieldNames, type Turn, type Usage } from './turn.service'

type Body = typeof CompletionBody.static

const FIELDS: FieldNames = { messages: 'prompt', tools: 'tools', format: 'response_format' }

interface PreparedCompletion {
  id: string
  created: number
  prompts: string[]
  turns: Turn[]
  echo: boolean
}

export const promptsOf = (body: Body): string[] => (typeof body.prompt === 'string' ? [body.prompt] : body.prompt)

/** Checks every prompt and retrieves its sources; every 4xx happens here, before any streaming. */
export async function prepareCompletion(deps: Deps, user: SessionUser, body: Body): Promise<PreparedCompletion> {
  const prompts = promptsOf(body)
  const stop = body.stop == null ? undefined : typeof body.stop === 'string' ? [body.stop] : body.stop
  const turns: Turn[] = []
  for (const prompt of prompts) {
    const request = {
      model: body.model,
      workspace_id: body.workspace_id,
      system: [],
      messages: [{ role: 'user' as const, content: prompt }],
      tools: [],
      maxOutputTokens: body.max_tokens ?? undefined,
      temperature: body.temperature ?? undefined,
      topP: body.top_p ?? undefined,
      stop,
    }
    turns.push(await prepareTurn(deps, user, request, FIELDS))
  }
  const hex = crypto.randomUUID().replaceAll('-', '')
  return { id: `cmpl-${hex}`, created: Math.floor(deps.clock.now().getTime() / 1000), prompts, turns, echo: body.echo === true }
}

const usageOf = (usages: Usage[]) => {
  const input = usages.reduce((sum, u) => sum + u.input, 0)
  const output = usages.reduce((sum, u) => sum + u.output, 0)
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output }
}

export async function complete(deps: Deps, user: SessionUser, c: PreparedCompletion, signal: AbortSignal) {
  const choices = []
  const usages: Usage[] = []
  for (const [index, turn] of c.turns.entries()) {
    const result = await generateTurn(deps, turn, signal)
    await recordEvent(deps, user.id, 'answer')
    usages.push(result.usage)
    choices.push({
      text: (c.echo ? c.prompts[index] : '') + result.text,
      index,
      logprobs: null,
      finish_reason: result.finish,
      citations: citationsOf(turn.sources, result.cited),
    })
  }
  return { id: c.id, object: 'text_completion' as const, created: c.created, model: RAG_MODEL, choices, usage: usageOf(usages) }
}

/** OpenAI's streaming format: each prompt's text pieces in turn, its last chunk with finish_reason, [usage], [DONE]. */
export async function streamCompletion(
  deps: Deps,
  user: SessionUser,
  c: PreparedCompletion,
  includeUsage: boolean,
  send: Send<object | '[DONE]'>,
  signal: AbortSignal,
) {
  const chunk = (choices: object[], extra: object = {}) => ({
    id: c.id,
    object: 'text_completion',
    created: c.created,
    model: RAG_MODEL,
    choices,
    ...extra,
  })
  const piece = (index: number, text: string, finish: string | null = null, extra: object = {}) =>
    chunk([{ text, index, logprobs: null, finish_reason: finish, ...extra }])
  const usages: Usage[] = []
  for (const [index, turn] of c.turns.entries()) {
    if (c.echo) send(piece(index, c.prompts[index]!))
    const end = await streamTurn(deps, turn, signal, {
      text: (text) => send(piece(index, text)),
      // No tools are offered to a completion, so the model has none to call.
      toolCall: () => {},
    })
    if (signal.aborted) return
    await recordEvent(deps, user.id, 'answer')
    usages.push(end.usage)
    send(piece(index, '', end.finish, { citations: citationsOf(turn.sources, end.cited) }))
  }
  if (includeUsage) send(chunk([], { usage: usageOf(usages) }))
  send('[DONE]')
}
