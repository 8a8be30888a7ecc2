// /v1/chat/completions: OpenAI's chat format, answered by service-rag grounded in the caller's documents.
// The last user message is the retrieval query; earlier messages are history; the client's system messages
// are kept as extra instructions after the grounding rules. Citations come back in a top-level array; the
// caller's tools come back as OpenAI tool calls (finish_reason "tool_calls").
import { RAG_MODEL } from '../../ai/models'
import type { Deps } from '../../deps'
import type { ErrorCode } from '../../http/error-codes'
import type { Send } from '../../http/sse'
import type { SessionUser } from '../auth/sessions.service'
import { recordEvent } from '../usage/usage.service'
import { CHAT_FIELDS, chatTurnRequest } from './chat.convert'
import { citationsOf, generateTurn, prepareTurn, streamTurn, type ToolCallOut, type Turn, type Usage } from './turn.service'
import type { ChatCompletionBody } from './v1.schemas'

interface PreparedChat {
  id: string
  created: number
  turn: Turn
}

/** Checks the request and retrieves the sources; every 4xx happens here, before any streaming. */
export async function prepareChat(deps: Deps, user: SessionUser, body: typeof ChatCompletionBody.static): Promise<PreparedChat> {
  const turn = await prepareTurn(deps, user, chatTurnRequest(body), CHAT_FIELDS)
  return { id: `chatcmpl-${crypto.randomUUID().replaceAll('-', '')}`, created: Math.floor(deps.clock.now().getTime() / 1000), turn }
}

const usageOf = (u: Usage) => ({ prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output })

const wireCall = (c: ToolCallOut) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })

export async function completeChat(deps: Deps, user: SessionUser, chat: PreparedChat, signal: AbortSignal) {
  const result = await generateTurn(deps, chat.turn, signal)
  await recordEvent(deps, user.id, 'answer')
  const calls = result.toolCalls.length ? { tool_calls: result.toolCalls.map(wireCall) } : {}
  return {
    id: chat.id,
    object: 'chat.completion' as const,
    created: chat.created,
    model: RAG_MODEL,
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: result.text || (calls.tool_calls ? null : ''), refusal: null, ...calls },
        finish_reason: result.finish,
        logprobs: null,
      },
    ],
    usage: usageOf(result.usage),
    citations: citationsOf(chat.turn.sources, result.cited),
  }
}

/**
 * How a completion stream ends when it fails after it began, as OpenAI ends one: a last `data:` with an
 * `error` object and no [DONE]. OpenAI's SDKs throw it as an APIError with this message.
 */
export const errorChunk = (message: string, code: ErrorCode) => ({ error: { message, type: 'server_error', param: null, code } })

/** OpenAI's streaming format: a role chunk, content or tool-call chunks, the finish chunk with citations, [optionally usage], [DONE]. */
export async function streamChat(
  deps: Deps,
  user: SessionUser,
  chat: PreparedChat,
  includeUsage: boolean,
  send: Send<object | '[DONE]'>,
  signal: AbortSignal,
) {
  const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({
    id: chat.id,
    object: 'chat.completion.chunk',
    created: chat.created,
    model: RAG_MODEL,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...extra,
  })
  send(chunk({ role: 'assistant', content: '' }))
  let calls = 0
  const end = await streamTurn(deps, chat.turn, signal, {
    text: (content) => send(chunk({ content })),
    // Each call whole in one chunk: its index, id, name and all its arguments (clients accumulate by index).
    toolCall: (call) => send(chunk({ tool_calls: [{ index: calls++, ...wireCall(call) }] })),
  })
  if (signal.aborted) return
  // Counted behind the request (usage/events.buffer.ts): nothing is written here that could fail the stream.
  await recordEvent(deps, user.id, 'answer')
  send(chunk({}, end.finish, { citations: citationsOf(chat.turn.sources, end.cited) }))
  if (includeUsage) send({ ...chunk({}), choices: [], usage: usageOf(end.usage) })
  send('[DONE]')
}
