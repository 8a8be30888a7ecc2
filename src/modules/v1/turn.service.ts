// One grounded turn of a /v1 conversation, whatever the wire format (chat completions or responses): the
// checks every request gets, the retrieval on the last user message, and the model call with the caller's
// own tools, tool choice and output format passed through. Chat and responses only translate to and from it.
import { generateText, jsonSchema, tool, type ModelMessage, type Output, type ToolChoice, type ToolSet } from 'ai'
import { filterCitations, groundingInstructions, type Source } from '../../ai/grounding'
import { resolveModel } from './model-aliases'
import type { Deps } from '../../deps'
import { AppError, badRequest } from '../../http/errors'
import { INTERRUPTED, streamModel } from '../../ai/model-stream'
import { getSettings } from '../account/settings.service'
import { retrieveSources } from '../ask/retrieve.service'
import type { SessionUser } from '../auth/sessions.service'
import { findWorkspace } from '../workspaces/workspaces.service'

export interface FunctionTool {
  name: string
  description?: string
  parameters?: Record<string, unknown>
}

export type JsonFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string; description?: string; schema: Record<string, unknown> }

/** What the wire names the fields, so a 400 points at the caller's own field. */
export interface FieldNames {
  messages: string
  tools: string
  format: string
}

export interface TurnRequest {
  model: string
  workspace_id?: string
  /** The client's system and developer instructions, kept after the grounding rules. */
  system: string[]
  /** User and assistant turns, tool calls and tool results, in order. */
  messages: ModelMessage[]
  tools: FunctionTool[]
  toolChoice?: 'auto' | 'none' | 'required' | { name: string }
  format?: JsonFormat
  maxOutputTokens?: number
  temperature?: number
  topP?: number
  /** Stop sequences, passed to the chat model (the extractive answerer writes no continuation to stop). */
  stop?: string[]
}

export interface Turn {
  instructions: string
  messages: ModelMessage[]
  sources: Source[]
  tools?: ToolSet
  toolChoice?: ToolChoice<ToolSet>
  output?: Output.Output<string, string, never>
  json: boolean
  settings: { maxOutputTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] }
}

export type Finish = 'stop' | 'length' | 'tool_calls' | 'content_filter'
export interface ToolCallOut {
  id: string
  name: string
  arguments: string
}
export interface Usage {
  input: number
  output: number
}
export interface TurnResult {
  text: string
  cited: Set<number>
  toolCalls: ToolCallOut[]
  finish: Finish
  usage: Usage
}

const lastUserText = (messages: ModelMessage[]) => {
  const m = messages.findLast((x) => x.role === 'user')
  if (!m) return ''
  return typeof m.content === 'string' ? m.content : m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n')
}

/** The caller's format as an AI SDK output that passes the model's text through as it is (no parse, no throw). */
const passThrough = (format: JsonFormat): Output.Output<string, string, never> => ({
  name: 'json',
  responseFormat: Promise.resolve(
    format.type === 'json_schema'
      ? { type: 'json', schema: format.schema as never, name: format.name, description: format.description }
      : { type: 'json' },
  ),
  parseCompleteOutput: async ({ text }: { text: string }) => text,
  parsePartialOutput: async () => undefined,
  createElementStreamTransform: () => undefined,
})

/**
 * Checks the request and retrieves the sources; every 4xx happens here, before any streaming. The built-in
 * extractive answerer quotes sources: it cannot call the caller's tools nor write to a JSON schema, so such a
 * request is refused with the reason instead of being answered as if the tools or schema were not there.
 */
export async function prepareTurn(deps: Deps, user: SessionUser, request: TurnRequest, names: FieldNames): Promise<Turn> {
  resolveModel(deps.config, request.model, 'chat')
  const last = request.messages.at(-1)
  const question = lastUserText(request.messages).trim()
  if (!last || (last.role !== 'user' && last.role !== 'tool') || !question) {
    throw badRequest(`${names.messages}: the last message must be a user message with text (or a tool result that follows one)`)
  }
  const wantsTools = request.tools.length > 0 && request.toolChoice !== 'none'
  const forced = typeof request.toolChoice === 'object' ? request.toolChoice.name : undefined
  if (forced !== undefined && !request.tools.some((t) => t.name === forced))
    throw badRequest(`tool_choice: names ${forced}, which is not among the tools`)
  if (deps.chat.backedBy === 'extractive') {
    const why = 'service-rag is the built-in extractive answerer (no CHAT_MODEL is configured), which quotes your documents'
    if (wantsTools)
      throw badRequest(
        `${names.tools}: ${why} and cannot call your tools; configure CHAT_MODEL to pass tools through, or send the request without tools`,
      )
    if (last.role === 'tool') throw badRequest(`${names.messages}: ${why} and cannot continue from tool results; configure CHAT_MODEL`)
    if (request.format)
      throw badRequest(`${names.format}: ${why} and cannot answer in JSON; configure CHAT_MODEL for JSON output, or ask for text`)
  }
  if (request.workspace_id) await findWorkspace(deps.db, user.id, request.workspace_id)
  const [sources, { answer_style }] = await Promise.all([
    retrieveSources(deps, user, question, { workspace_id: request.workspace_id }),
    getSettings(deps.db, user.id),
  ])
  const system = request.system.map((s) => s.trim()).filter(Boolean)
  const tools = wantsTools
    ? Object.fromEntries(
        request.tools.map((t) => [
          t.name,
          tool({ description: t.description, inputSchema: jsonSchema(t.parameters ?? { type: 'object', properties: {} }) }),
        ]),
      )
    : undefined
  const choice = request.toolChoice
  return {
    instructions:
      groundingInstructions(sources, answer_style) + (system.length ? `\n\nThe client's instructions:\n${system.join('\n')}` : ''),
    messages: request.messages,
    sources,
    tools,
    toolChoice: tools && choice ? (typeof choice === 'string' ? choice : { type: 'tool', toolName: choice.name }) : undefined,
    output: request.format ? passThrough(request.format) : undefined,
    json: request.format !== undefined,
    settings: {
      maxOutputTokens: request.maxOutputTokens,
      temperature: request.temperature,
      topP: request.topP,
      stopSequences: request.stop,
    },
  }
}

const finishOf = (reason: string): Finish =>
  reason === 'length' ? 'length' : reason === 'content-filter' ? 'content_filter' : reason === 'tool-calls' ? 'tool_calls' : 'stop'

const argumentsOf = (input: unknown) => (typeof input === 'string' ? input : JSON.stringify(input ?? {}))

const callOptions = (deps: Deps, turn: Turn, signal: AbortSignal) => ({
  model: deps.chat.model,
  instructions: turn.instructions,
  messages: turn.messages,
  tools: turn.tools,
  toolChoice: turn.toolChoice,
  output: turn.output,
  abortSignal: signal,
  maxRetries: 1,
  ...turn.settings,
})

/** JSON is the caller's format: markers are read for the citations but the text is left as the model wrote it. */
function citedText(turn: Turn, text: string) {
  const filtered = filterCitations(text, turn.sources.length)
  return turn.json ? { text, cited: filtered.cited } : filtered
}

export async function generateTurn(deps: Deps, turn: Turn, signal: AbortSignal): Promise<TurnResult> {
  const result = await generateText(callOptions(deps, turn, signal)).catch((error: Error) => {
    if (signal.aborted) throw error
    deps.log.warn('chat completion failed', { error: String(error) })
    // The provider failed, not this service: 502 names it, instead of an opaque 500.
    throw new AppError(502, `the chat model failed: ${error.message.slice(0, 300)}`)
  })
  if (result.finishReason === 'interrupted') throw new AppError(502, `the chat model failed: ${INTERRUPTED}`)
  const { text, cited } = citedText(turn, result.text)
  return {
    text: turn.json ? text : text.trim(),
    cited,
    toolCalls: result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: argumentsOf(c.input) })),
    finish: finishOf(result.finishReason),
    usage: { input: result.totalUsage.inputTokens ?? 0, output: result.totalUsage.outputTokens ?? 0 },
  }
}

export interface TurnSink {
  text(delta: string): void
  toolCall(call: ToolCallOut): void
}

/** Streams the turn into `sink` (text already citation-checked, JSON as written) and returns how it ended; a
 * failure throws StreamError. A client that left gets nothing more: an empty end, which its caller does not send. */
export async function streamTurn(
  deps: Deps,
  turn: Turn,
  signal: AbortSignal,
  sink: TurnSink,
): Promise<Omit<TurnResult, 'text' | 'toolCalls'>> {
  const end = await streamModel(
    callOptions(deps, turn, signal),
    { citable: turn.json ? null : () => turn.sources.length, failed: 'the completion could not be finished' },
    { text: sink.text, toolCall: ({ id, name, input }) => sink.toolCall({ id, name, arguments: argumentsOf(input) }) },
  )
  if (!end) return { cited: new Set(), finish: 'stop', usage: { input: 0, output: 0 } }
  return { cited: citedText(turn, end.raw).cited, finish: finishOf(end.finishReason), usage: end.usage }
}

export const citationsOf = (sources: Source[], cited: Set<number>) =>
  sources
    .filter((s) => cited.has(s.index))
    .map((s) => ({
      index: s.index,
      document_id: s.document_id,
      title: s.title,
      url: s.url,
      excerpt: s.excerpt,
      ...(s.location ? { location: s.location } : {}),
    }))
