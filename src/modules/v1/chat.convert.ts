// A chat-completions request in OpenAI's shape → the wire-neutral turn: messages (with assistant tool calls and
// tool results tied by call id), tools, tool_choice, response_format and the token limit.
import type { AssistantContent, ModelMessage } from 'ai'
import { badRequest } from '../../http/errors'
import type { FieldNames, JsonFormat, TurnRequest } from './turn.service'
import type { ChatCompletionBody } from './v1.schemas'

type Body = typeof ChatCompletionBody.static
type Message = Body['messages'][number]

export const CHAT_FIELDS: FieldNames = { messages: 'messages', tools: 'tools', format: 'response_format' }

export const textOf = (content: Message['content']) =>
  typeof content === 'string'
    ? content
    : (content ?? []).flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('\n')

/** Arguments arrive as a JSON string; the model layer takes the parsed value (a string that is not JSON stays a string). */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

interface WireToolCall {
  id: string
  function: { name: string; arguments: string }
}

function toMessages(messages: Message[]): ModelMessage[] {
  const names = new Map<string, string>()
  return messages.flatMap((m, i): ModelMessage[] => {
    if (m.role === 'user') return [{ role: 'user', content: textOf(m.content) }]
    if (m.role === 'assistant') {
      const calls = (m.tool_calls ?? []) as WireToolCall[]
      for (const c of calls) names.set(c.id, c.function.name)
      const text = textOf(m.content)
      const content: AssistantContent = [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...calls.map((c) => ({
          type: 'tool-call' as const,
          toolCallId: c.id,
          toolName: c.function.name,
          input: parseArguments(c.function.arguments),
        })),
      ]
      return [{ role: 'assistant', content }]
    }
    if (m.role === 'tool') {
      const id = m.tool_call_id
      const name = id ? names.get(id) : undefined
      if (!id || !name) throw badRequest(`messages[${i}].tool_call_id: must name a tool call of an earlier assistant message`)
      return [
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: id, toolName: name, output: { type: 'text', value: textOf(m.content) } }],
        },
      ]
    }
    return []
  })
}

function formatOf(format: Body['response_format']): JsonFormat | undefined {
  if (!format || format.type === 'text') return undefined
  if (!('json_schema' in format)) return { type: 'json_object' }
  const spec = format.json_schema
  if (!spec?.schema) throw badRequest('response_format.json_schema.schema: a JSON schema is required for type json_schema')
  return { type: 'json_schema', name: spec.name, description: spec.description, schema: spec.schema }
}

export function chatTurnRequest(body: Body): TurnRequest {
  const choice = body.tool_choice
  return {
    model: body.model,
    workspace_id: body.workspace_id,
    system: body.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)),
    messages: toMessages(body.messages),
    tools: (body.tools ?? []).map((t) => ({
      name: t.function.name,
      description: t.function.description,
      parameters: t.function.parameters,
    })),
    toolChoice: choice == null ? undefined : typeof choice === 'string' ? choice : { name: choice.function.name },
    format: formatOf(body.response_format),
    maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
  }
}
