// /v1/chat/completions: OpenAI's chat format, answered by service-rag grounded in the caller's documents.
// The last user message is the retrieval query; earlier messages are history; the client's system messages
// are kept as extra instructions after the grounding rules. Citations come back in a top-level array.
import { generateText, streamText } from 'ai'
import type { ModelMessage } from 'ai'
import { CitationFilter, filterCitations, groundingInstructions, type Source } from '../../ai/grounding'
import { RAG_MODEL } from '../../ai/models'
import type { Deps } from '../../deps'
import { AppError, badRequest } from '../../http/errors'
import { type Send, StreamError, streamStep } from '../../http/sse'
import { INTERRUPTED, messageOf } from '../ask/ask.service'
import { retrieveSources } from '../ask/retrieve.service'
import { getSettings } from '../account/settings.service'
import type { SessionUser } from '../auth/sessions.service'
import { recordEvent } from '../usage/usage.service'
import { findWorkspace } from '../workspaces/workspaces.service'
import type { ChatCompletionBody } from './v1.schemas'

type Body = typeof ChatCompletionBody.static

interface PreparedChat {
  id: string
  created: number
  instructions: string
  messages: ModelMessage[]
  sources: Source[]
  settings: { maxOutputTokens?: number; temperature?: number; topP?: number }
}

const textOf = (content: Body['messages'][number]['content']) =>
  typeof content === 'string' ? content : (content ?? []).flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('\n')

/** Checks the request and retrieves the sources; every 4xx happens here, before any streaming. */
export async function prepareChat(deps: Deps, user: SessionUser, body: Body): Promise<PreparedChat> {
  if (body.model !== RAG_MODEL) throw new AppError(404, `model ${body.model} does not exist; use ${RAG_MODEL}`)
  if (body.workspace_id) await findWorkspace(deps.db, user.id, body.workspace_id)
  const last = body.messages[body.messages.length - 1]!
  const question = textOf(last.content).trim()
  if (last.role !== 'user' || !question) throw badRequest('messages: the last message must be a user message with text')
  const system = body.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content).trim()).filter(Boolean)
  const messages: ModelMessage[] = body.messages.flatMap((m): ModelMessage[] =>
    m.role === 'user' || m.role === 'assistant' ? [{ role: m.role, content: textOf(m.content) }] : [],
  )
  const [sources, { answer_style }] = await Promise.all([retrieveSources(deps, user, question, { workspace_id: body.workspace_id }), getSettings(deps.db, user.id)])
  const instructions = groundingInstructions(sources, answer_style) + (system.length ? `\n\nThe client's instructions:\n${system.join('\n')}` : '')
  return {
    id: `chatcmpl-${crypto.randomUUID().replaceAll('-', '')}`,
    created: Math.floor(deps.clock.now().getTime() / 1000),
    instructions,
    messages,
    sources,
    settings: { maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined, temperature: body.temperature ?? undefined, topP: body.top_p ?? undefined },
  }
}

const citationsOf = (sources: Source[], cited: Set<number>) =>
  sources.filter((s) => cited.has(s.index)).map((s) => ({ index: s.index, document_id: s.document_id, title: s.title, url: s.url, excerpt: s.excerpt }))

const usageOf = (usage: { inputTokens: number | undefined; outputTokens: number | undefined }) => {
  const prompt = usage.inputTokens ?? 0
  const completion = usage.outputTokens ?? 0
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
}

export async function completeChat(deps: Deps, user: SessionUser, chat: PreparedChat, signal: AbortSignal) {
  const result = await generateText({ model: deps.chat.model, instructions: chat.instructions, messages: chat.messages, abortSignal: signal, maxRetries: 1, ...chat.settings }).catch(
    (error: Error) => {
      if (signal.aborted) throw error
      deps.log.warn('chat completion failed', { error: String(error) })
      // The provider failed, not this service: 502 names it, instead of an opaque 500.
      throw new AppError(502, `the chat model failed: ${error.message.slice(0, 300)}`)
    },
  )
  if (result.finishReason === 'interrupted') throw new AppError(502, `the chat model failed: ${INTERRUPTED}`)
  const { text, cited } = filterCitations(result.text, chat.sources.length)
  await recordEvent(deps, user.id, 'answer')
  return {
    id: chat.id,
    object: 'chat.completion' as const,
    created: chat.created,
    model: RAG_MODEL,
    choices: [{ index: 0, message: { role: 'assistant' as const, content: text.trim(), refusal: null }, finish_reason: finishReason(result.finishReason), logprobs: null }],
    usage: usageOf(result.totalUsage),
    citations: citationsOf(chat.sources, cited),
  }
}

const finishReason = (reason: string) => (reason === 'length' ? 'length' : reason === 'content-filter' ? 'content_filter' : 'stop')

/**
 * How a completion stream ends when it fails after it began, as OpenAI ends one: a last `data:` with an
 * `error` object and no [DONE]. OpenAI's SDKs throw it as an APIError with this message.
 */
export const errorChunk = (message: string) => ({ error: { message, type: 'server_error', param: null, code: null } })

/** OpenAI's streaming format: a role chunk, content chunks, the finish chunk with citations, [optionally usage], [DONE]. */
export async function streamChat(deps: Deps, user: SessionUser, chat: PreparedChat, includeUsage: boolean, send: Send<object | '[DONE]'>, signal: AbortSignal) {
  const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({
    id: chat.id,
    object: 'chat.completion.chunk',
    created: chat.created,
    model: RAG_MODEL,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...extra,
  })
  send(chunk({ role: 'assistant', content: '' }))
  const filter = new CitationFilter(chat.sources.length)
  let failure: unknown = null
  const result = streamText({
    model: deps.chat.model,
    instructions: chat.instructions,
    messages: chat.messages,
    abortSignal: signal,
    maxRetries: 1,
    ...chat.settings,
    onError: ({ error }) => {
      failure = error
    },
  })
  let reason = 'stop'
  let usage = { inputTokens: 0 as number | undefined, outputTokens: 0 as number | undefined }
  try {
    for await (const part of result.stream) {
      if (part.type === 'text-delta') {
        const text = filter.push(part.text)
        if (text) send(chunk({ content: text }))
      } else if (part.type === 'finish') {
        if (part.finishReason === 'interrupted') failure = new Error(INTERRUPTED)
        reason = finishReason(part.finishReason)
        usage = part.totalUsage
      } else if (part.type === 'error') failure = part.error
    }
  } catch (error) {
    failure = error
  }
  if (signal.aborted) return
  if (failure) throw new StreamError(`the completion could not be finished: ${messageOf(failure)}`, { cause: failure })
  const rest = filter.flush()
  if (rest) send(chunk({ content: rest }))
  // Counted before the finish chunk: a completion that cannot be counted ends in an error, not a finish.
  await streamStep('the completion could not be recorded', () => recordEvent(deps, user.id, 'answer'))
  send(chunk({}, reason, { citations: citationsOf(chat.sources, filter.cited) }))
  if (includeUsage) send({ ...chunk({}), choices: [], usage: usageOf(usage) })
  send('[DONE]')
}
