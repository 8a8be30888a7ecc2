// POST /api/ask and /api/agent/chat through the typed client, read as a stream of typed events (docs/decisions.md#streams):
// `tool` (agent only), `delta`s, then `sources` and `saved` — or `error` when it fails after it began.
import { api, ApiError, unwrap } from '../api/client'
import type { paths } from '../api/schema'
import { readEvents } from './sse'

export type Conversation = paths['/api/conversations/{id}']['get']['responses']['200']['content']['application/json']
export type ConversationSummary = paths['/api/conversations']['get']['responses']['200']['content']['application/json']['data'][number]
export type Message = Conversation['messages'][number]
export type Source = Message['sources'][number]

export type ToolStatus = 'call' | 'result' | 'error'
export interface ToolEvent {
  name: string
  status: ToolStatus
  detail: Record<string, unknown>
}

export type ChatEvent =
  | { type: 'delta'; text: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'saved'; conversation: ConversationSummary }
  | { type: 'error'; message: string }
  | { type: 'tool'; tool: ToolEvent }

/** `ask`: a grounded answer; `agent`: the tool-using agent (searches, reads, drafts learnings). */
export type ChatMode = 'ask' | 'agent'

export interface ChatInput {
  text: string
  conversation_id?: string
  workspace_id?: string
}

/** Resolves with the body once the service answered 200; a refusal (400, 401, 404, 429) is an ApiError with its
 * message, as for every other call, so the usual 401 and 429 handling applies before anything streams. */
export async function openChat(
  mode: ChatMode,
  { text, conversation_id, workspace_id }: ChatInput,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const stream =
    mode === 'ask'
      ? await unwrap(api.POST('/api/ask', { body: { question: text, conversation_id, workspace_id }, parseAs: 'stream', signal }))
      : await unwrap(api.POST('/api/agent/chat', { body: { message: text, conversation_id, workspace_id }, parseAs: 'stream', signal }))
  if (!stream) throw new ApiError(0, 'the service answered without a stream')
  return stream
}

const TYPES = new Set(['delta', 'sources', 'saved', 'error', 'tool'])

/** The stream's events; an unknown type (a newer service) is skipped rather than breaking the answer. */
export async function* chatEvents(stream: ReadableStream<Uint8Array>): AsyncGenerator<ChatEvent> {
  for await (const event of readEvents(stream)) {
    if (event && typeof event === 'object' && TYPES.has((event as { type?: string }).type ?? '')) yield event as ChatEvent
  }
}
