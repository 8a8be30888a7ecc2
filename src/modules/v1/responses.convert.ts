// A Responses API request → the wire-neutral turn: the stored conversation of `previous_response_id`, then
// this request's input items (messages, function calls and their outputs, references to stored items)
// turned into model messages; function tools, tool_choice, text.format and max_output_tokens.
import type { AssistantContent, ModelMessage, ToolContent } from 'ai'
import type { Db } from '../../../db/client'
import { badRequest, notFound } from '../../http/errors'
import { parseArguments } from './chat.convert'
import { findItems, loadConversation, type Item } from './responses.store'
import type { ResponsesBody } from './responses.schemas'
import type { FieldNames, JsonFormat, TurnRequest } from './turn.service'

type Body = typeof ResponsesBody.static

export const RESPONSES_FIELDS: FieldNames = { messages: 'input', tools: 'tools', format: 'text.format' }

const TEXT_PARTS = new Set(['input_text', 'output_text', 'text'])

/** The text of a message's content: a string or a list of text parts; anything else is refused by name. */
function textOf(content: unknown, where: string): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) throw badRequest(`${where}: must be a string or a list of content parts`)
  return content
    .map((part, j) => {
      const p = part as { type?: string; text?: unknown; refusal?: unknown }
      if (p.type === 'refusal' && typeof p.refusal === 'string') return p.refusal
      if (!p.type || !TEXT_PARTS.has(p.type) || typeof p.text !== 'string')
        throw badRequest(`${where}[${j}]: only text parts (input_text, output_text) are supported, not ${p.type}`)
      return p.text
    })
    .join('\n')
}

const kindOf = (item: Item) => (typeof item.type === 'string' ? item.type : 'message')

/** This request's items, with `item_reference`s replaced by the stored items they name. */
async function resolveInput(db: Db, userId: string, input: Body['input']): Promise<Item[]> {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }]
  const items = input as Item[]
  const refs = items.filter((i) => i.type === 'item_reference').map((i) => String(i.id))
  const found = await findItems(db, userId, refs)
  return items.flatMap((item, i): Item[] => {
    if (item.type !== 'item_reference') return [item]
    const stored = found.get(String(item.id))
    if (!stored) throw notFound(`input[${i}]: item ${item.id} not found`)
    return [stored]
  })
}

/** Items → model messages: function calls join the assistant message before them; outputs find their call's name. */
function toMessages(items: Item[], offset: number): { messages: ModelMessage[]; system: string[] } {
  const messages: ModelMessage[] = []
  const system: string[] = []
  const names = new Map<string, string>()
  const lastAssistant = (): Exclude<AssistantContent, string> => {
    const last = messages.at(-1)
    if (last?.role === 'assistant' && Array.isArray(last.content)) return last.content
    const content: Exclude<AssistantContent, string> = []
    messages.push({ role: 'assistant', content })
    return content
  }
  items.forEach((item, n) => {
    const where = n >= offset ? `input[${n - offset}]` : `previous_response_id (item ${n})`
    const kind = kindOf(item)
    if (kind === 'message') {
      const text = textOf(item.content, `${where}.content`)
      if (item.role === 'system' || item.role === 'developer') system.push(text)
      else if (item.role === 'user') messages.push({ role: 'user', content: text })
      else if (item.role === 'assistant') lastAssistant().push({ type: 'text', text })
      else throw badRequest(`${where}.role: must be user, assistant, system or developer`)
    } else if (kind === 'function_call') {
      if (typeof item.call_id !== 'string' || typeof item.name !== 'string')
        throw badRequest(`${where}: a function_call needs call_id and name`)
      names.set(item.call_id, item.name)
      lastAssistant().push({
        type: 'tool-call',
        toolCallId: item.call_id,
        toolName: item.name,
        input: parseArguments(String(item.arguments ?? '{}')),
      })
    } else if (kind === 'function_call_output') {
      const name = names.get(String(item.call_id))
      if (!name) throw badRequest(`${where}.call_id: must name a function_call earlier in the conversation`)
      const output = typeof item.output === 'string' ? item.output : textOf(item.output, `${where}.output`)
      const part: ToolContent[number] = {
        type: 'tool-result',
        toolCallId: String(item.call_id),
        toolName: name,
        output: { type: 'text', value: output },
      }
      const last = messages.at(-1)
      if (last?.role === 'tool') last.content.push(part)
      else messages.push({ role: 'tool', content: [part] })
    } else if (kind !== 'reasoning') {
      // Reasoning items carry nothing a model here reads; anything else is a hosted tool's item.
      throw badRequest(`${where}.type: ${kind} items are not supported (messages, function_call, function_call_output, item_reference are)`)
    }
  })
  return { messages, system }
}

function toolsOf(tools: Body['tools']): TurnRequest['tools'] {
  return (tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description ?? undefined,
    parameters: tool.parameters ?? undefined,
  }))
}

function formatOf(text: Body['text']): JsonFormat | undefined {
  const format = text?.format
  if (!format || format.type === 'text') return undefined
  if (format.type === 'json_object') return { type: 'json_object' }
  if (!format.schema) throw badRequest('text.format.schema: a JSON schema is required for type json_schema')
  return { type: 'json_schema', name: format.name, description: format.description, schema: format.schema }
}

export interface ResponsesTurn {
  request: TurnRequest
  /** This request's items, references resolved: what is stored as the response's input. */
  input: Item[]
}

export async function responsesTurnRequest(db: Db, userId: string, body: Body): Promise<ResponsesTurn> {
  const history = body.previous_response_id ? await loadConversation(db, userId, body.previous_response_id) : []
  const input = await resolveInput(db, userId, body.input)
  const { messages, system } = toMessages([...history, ...input], history.length)
  const choice = body.tool_choice
  return {
    input,
    request: {
      model: body.model,
      workspace_id: body.workspace_id,
      system: [...(body.instructions ? [body.instructions] : []), ...system],
      messages,
      tools: toolsOf(body.tools),
      toolChoice: choice == null ? undefined : typeof choice === 'string' ? choice : { name: choice.name },
      format: formatOf(body.text),
      maxOutputTokens: body.max_output_tokens ?? undefined,
      temperature: body.temperature ?? undefined,
      topP: body.top_p ?? undefined,
    },
  }
}
