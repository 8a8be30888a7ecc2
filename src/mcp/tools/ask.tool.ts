// MCP tool ask: POST /api/ask, read to the end of its event stream (deltas, sources, saved), and handed back
// as one answer with its sources and the conversation it was saved in.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { readSseEvents } from '../../lib/sse-events'
import type { Logger } from '../../log'
import { callApi, toolHandler, ToolFailure, type ApiCaller } from '../mcp.tool'
import { AskBody } from '../../modules/conversations/conversations.schemas'
import { routeInput } from './route-input'

const Source = z.object({
  index: z.number().int().describe('The answer cites this source as [index]'),
  document_id: z.string(),
  title: z.string().nullable(),
  url: z.string().nullable(),
  excerpt: z.string().nullable(),
})
type Source = z.infer<typeof Source>

type AskEvent =
  | { type: 'delta'; text: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'saved'; conversation: { id: string } }
  | { type: 'error'; message: string }

export function registerAskTool(server: McpServer, api: ApiCaller | null, log?: Logger) {
  server.registerTool(
    'ask',
    {
      title: 'Ask a question',
      description:
        'Answer a question from your documents and memories, citing them as [n] (sources[n-1]). The exchange is saved ' +
        'as a conversation; pass its conversation_id to ask a follow-up.',
      // POST /api/ask's fields but `stream` (the tool reads the stream itself).
      inputSchema: routeInput(AskBody, ['question', 'conversation_id', 'workspace_id'], { describe: { question: 'The question' } }),
      outputSchema: {
        answer: z.string(),
        sources: z.array(Source),
        conversation_id: z.string(),
      },
      // Saving the conversation adds to it; asking again adds another exchange.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    toolHandler('ask', api, log, async (api, input, signal) => {
      const res = await callApi(api, 'POST', '/api/ask', input, signal)
      if (!res.body) throw new ToolFailure('ask answered with an empty stream')
      return readAnswer(res.body)
    }),
  )
}

async function readAnswer(body: ReadableStream<Uint8Array>) {
  let answer = ''
  let sources: Source[] = []
  let conversationId: string | null = null
  // Read to the end rather than leave at `saved`: leaving early would cancel the stream under the producer.
  for await (const { data } of readSseEvents(body)) {
    let event: AskEvent
    try {
      event = JSON.parse(data) as AskEvent
    } catch {
      throw new ToolFailure('ask sent an event that is not JSON')
    }
    if (event.type === 'delta') answer += event.text
    else if (event.type === 'sources')
      sources = event.sources.map(({ index, document_id, title, url, excerpt }) => ({ index, document_id, title, url, excerpt }))
    else if (event.type === 'error') throw new ToolFailure(`ask failed: ${event.message}`)
    else if (event.type === 'saved') conversationId = event.conversation.id
  }
  // A finished answer ends with `saved` (docs/decisions.md#streams); anything less is a truncated answer, not a result.
  if (conversationId === null) throw new ToolFailure('ask ended before the answer was complete')
  return { answer, sources, conversation_id: conversationId }
}
