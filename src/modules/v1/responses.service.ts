// /v1/responses: OpenAI's Responses API over the same grounded turn as chat completions. Output is a message
// item whose text carries the [n] markers, each one also a `file_citation` annotation naming the document, and
// `function_call` items for the caller's tools. Responses are stored (unless `store: false`) so that
// `previous_response_id` and `item_reference` work; streaming sends the Responses event sequence.
import { RAG_MODEL } from '../../ai/models'
import type { Deps } from '../../deps'
import type { Send } from '../../http/sse'
import { streamStep } from '../../http/sse'
import type { SessionUser } from '../auth/sessions.service'
import { recordEvent } from '../usage/usage.service'
import { RESPONSES_FIELDS, responsesTurnRequest } from './responses.convert'
import type { ResponsesBody } from './responses.schemas'
import { rememberResponse } from './responses.remember'
import { saveResponse, type Item } from './responses.store'
import { citationsOf, generateTurn, prepareTurn, streamTurn, type Finish, type ToolCallOut, type Turn, type Usage } from './turn.service'

type Body = typeof ResponsesBody.static

export interface PreparedResponse {
  id: string
  created: number
  body: Body
  input: Item[]
  turn: Turn
}

const hex = () => crypto.randomUUID().replaceAll('-', '')

/** Checks the request, loads the conversation and retrieves the sources; every 4xx happens here, before any streaming. */
export async function prepareResponse(deps: Deps, user: SessionUser, body: Body): Promise<PreparedResponse> {
  const { request, input } = await responsesTurnRequest(deps.db, user.id, body)
  const turn = await prepareTurn(deps, user, request, RESPONSES_FIELDS)
  return { id: `resp_${hex()}`, created: Math.floor(deps.clock.now().getTime() / 1000), body, input, turn }
}

/** One `file_citation` per marker in the text, at the marker's position, naming the cited document. */
function annotationsOf(r: PreparedResponse, text: string) {
  if (r.turn.json) return []
  const byIndex = new Map(r.turn.sources.map((s) => [s.index, s]))
  return [...text.matchAll(/\[(\d+)\]/g)].flatMap((m) => {
    const source = byIndex.get(Number(m[1]))
    return source
      ? [{ type: 'file_citation' as const, file_id: source.document_id, filename: source.title ?? 'Untitled', index: m.index }]
      : []
  })
}

const messageItem = (r: PreparedResponse, id: string, text: string, status: 'in_progress' | 'completed') => ({
  type: 'message' as const,
  id,
  status,
  role: 'assistant' as const,
  content: status === 'completed' ? [textPart(r, text)] : [],
})
const textPart = (r: PreparedResponse, text: string) => ({
  type: 'output_text' as const,
  text,
  annotations: annotationsOf(r, text),
  logprobs: [],
})
const callItem = (call: ToolCallOut, status: 'in_progress' | 'completed') => ({
  type: 'function_call' as const,
  id: `fc_${hex()}`,
  call_id: call.id,
  name: call.name,
  arguments: status === 'completed' ? call.arguments : '',
  status,
})

const usageOf = (u: Usage) => ({
  input_tokens: u.input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: u.output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.input + u.output,
})

/** The response object; `end` absent while it is in progress. The request's settings are echoed as OpenAI does. */
function responseObject(r: PreparedResponse, output: Item[], end?: { finish: Finish; usage: Usage; cited: Set<number> }) {
  const incomplete = end?.finish === 'length' ? 'max_output_tokens' : end?.finish === 'content_filter' ? 'content_filter' : null
  const b = r.body
  return {
    id: r.id,
    object: 'response' as const,
    created_at: r.created,
    status: !end ? ('in_progress' as const) : incomplete ? ('incomplete' as const) : ('completed' as const),
    error: null,
    incomplete_details: incomplete ? { reason: incomplete } : null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    model: RAG_MODEL,
    output,
    parallel_tool_calls: true,
    previous_response_id: b.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: b.store !== false,
    temperature: b.temperature ?? null,
    text: { format: b.text?.format ?? { type: 'text' } },
    tool_choice: b.tool_choice ?? 'auto',
    tools: b.tools ?? [],
    top_p: b.top_p ?? null,
    truncation: 'disabled',
    usage: end ? usageOf(end.usage) : null,
    user: null,
    metadata: (b as { metadata?: unknown }).metadata ?? {},
    citations: end ? citationsOf(r.turn.sources, end.cited) : [],
  }
}

const ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco' }
/** Input items keep the client's ids; the others get one, so GET …/input_items can page by `after`. */
const withId = (item: Item): Item =>
  typeof item.id === 'string' ? item : { id: `${ID_PREFIX[String(item.type ?? 'message')] ?? 'item'}_${hex()}`, ...item }

/** Counts the answer and keeps the response for later turns and reads; both before the client hears it is complete. */
async function finishResponse(deps: Deps, user: SessionUser, r: PreparedResponse, done: ReturnType<typeof responseObject>) {
  await recordEvent(deps, user.id, 'answer')
  if (r.body.store === false) return
  const { output, ...response } = done
  await saveResponse(deps.db, {
    id: r.id,
    user_id: user.id,
    previous_response_id: r.body.previous_response_id ?? null,
    input: r.input.map(withId),
    output,
    response,
  })
  await rememberResponse(deps, user, r, output)
}

export async function completeResponse(deps: Deps, user: SessionUser, r: PreparedResponse, signal: AbortSignal) {
  const result = await generateTurn(deps, r.turn, signal)
  const output: Item[] = [
    ...(result.text || result.toolCalls.length === 0 ? [messageItem(r, `msg_${hex()}`, result.text, 'completed')] : []),
    ...result.toolCalls.map((c) => callItem(c, 'completed')),
  ]
  const done = responseObject(r, output, result)
  await finishResponse(deps, user, r, done)
  return done
}

type Event = { type: string; [field: string]: unknown }

/** The Responses event stream; `send` numbers the events. A failure after the start ends with an `error` event. */
export async function streamResponse(deps: Deps, user: SessionUser, r: PreparedResponse, send: Send<Event>, signal: AbortSignal) {
  const output: Item[] = []
  let open: { id: string; index: number; text: string } | null = null
  send({ type: 'response.created', response: responseObject(r, []) })
  send({ type: 'response.in_progress', response: responseObject(r, []) })

  const openMessage = () => {
    if (open) return open
    open = { id: `msg_${hex()}`, index: output.length, text: '' }
    output.push(messageItem(r, open.id, '', 'in_progress'))
    send({ type: 'response.output_item.added', output_index: open.index, item: output[open.index] })
    send({
      type: 'response.content_part.added',
      item_id: open.id,
      output_index: open.index,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    })
    return open
  }
  const closeMessage = () => {
    if (!open) return
    const { id, index, text } = open
    const at = { item_id: id, output_index: index, content_index: 0 }
    const part = textPart(r, text)
    part.annotations.forEach((annotation, n) =>
      send({ type: 'response.output_text.annotation.added', ...at, annotation_index: n, annotation }),
    )
    send({ type: 'response.output_text.done', ...at, text, logprobs: [] })
    send({ type: 'response.content_part.done', ...at, part })
    output[index] = messageItem(r, id, text, 'completed')
    send({ type: 'response.output_item.done', output_index: index, item: output[index] })
    open = null
  }

  const end = await streamTurn(deps, r.turn, signal, {
    text: (delta) => {
      const m = openMessage()
      m.text += delta
      send({ type: 'response.output_text.delta', item_id: m.id, output_index: m.index, content_index: 0, delta, logprobs: [] })
    },
    toolCall: (call) => {
      closeMessage()
      const index = output.length
      const item = callItem(call, 'in_progress')
      output.push(item)
      send({ type: 'response.output_item.added', output_index: index, item })
      send({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: call.arguments })
      send({
        type: 'response.function_call_arguments.done',
        item_id: item.id,
        output_index: index,
        name: call.name,
        arguments: call.arguments,
      })
      output[index] = { ...item, arguments: call.arguments, status: 'completed' }
      send({ type: 'response.output_item.done', output_index: index, item: output[index] })
    },
  })
  if (signal.aborted) return
  // An answer with nothing in it is still a message, as a model's empty reply is.
  if (output.length === 0) openMessage()
  closeMessage()
  const done = responseObject(r, output, end)
  await streamStep('the response could not be recorded', () => finishResponse(deps, user, r, done))
  send({ type: done.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: done })
}
