// MCP tools over threads (conversations): add_messages (POST /api/threads, or POST /api/threads/:id/messages, source
// "mcp"), read_thread (GET /api/threads/:id/messages) and list_threads (GET /api/threads). Each message is a document
// of kind message: search finds it, get_document reads it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Logger } from '../../log'
import { MAX_THREAD_BATCH } from '../../modules/threads/threads.model'
import { AppendBody, CreateThreadBody, MessageIn, MessagesQuery, ThreadListQuery } from '../../modules/threads/threads.schemas'
import { callApi, callJson, toolHandler, ToolFailure, withQuery, type ApiCaller } from '../mcp.tool'
import { PAGE, routeInput, routeList } from './route-input'
import { ADDITIVE, Id, READ_ONLY, type ApiDocument } from './tool.schemas'

interface ApiMessage extends ApiDocument {
  position: number
  speaker: string
  occurred_at: string
}
interface ApiAppend {
  results: ({ status: number; document: ApiMessage } | { status: number; error: string; code: string })[]
  created: number
  updated: number
  failed: number
}
interface ApiThread {
  id: string
  workspace_id: string
  title: string
  external_id: string | null
  conversation_id: string | null
  message_count: number
  first_occurred_at: string | null
  last_occurred_at: string | null
  updated_at: string
}

// A message as the API takes it. The API checks each on its own (a message with neither speaker nor role is refused in
// its result, the others are written); a value no message may hold is refused here, for the whole call.
const MessageInput = z.object(
  routeInput(MessageIn, ['content', 'speaker', 'role', 'occurred_at', 'position', 'client_id', 'tags', 'metadata'], {
    describe: { content: 'What was said' },
  }),
)

const ThreadSummary = {
  id: z.string(),
  workspace_id: z.string(),
  title: z.string(),
  external_id: z.string().nullable(),
  conversation_id: z.string().nullable().describe('The ask or agent conversation it remembers, if any'),
  message_count: z.number().int(),
  first_occurred_at: z.string().nullable(),
  last_occurred_at: z.string().nullable(),
  updated_at: z.string(),
}
const summaryOf = (t: ApiThread) => ({
  id: t.id,
  workspace_id: t.workspace_id,
  title: t.title,
  external_id: t.external_id,
  conversation_id: t.conversation_id,
  message_count: t.message_count,
  first_occurred_at: t.first_occurred_at,
  last_occurred_at: t.last_occurred_at,
  updated_at: t.updated_at,
})

/** Per message only what an agent needs to refer to it again, or why it was refused. */
const compact = (done: ApiAppend) => ({
  created: done.created,
  updated: done.updated,
  failed: done.failed,
  results: done.results.map((r) =>
    'error' in r
      ? { status: r.status, error: r.error, code: r.code }
      : { status: r.status, id: r.document.id, position: r.document.position },
  ),
})

export function registerThreadTools(server: McpServer, api: ApiCaller | null, log?: Logger) {
  server.registerTool(
    'add_messages',
    {
      title: 'Add messages of a conversation',
      description:
        `Store up to ${MAX_THREAD_BATCH.toLocaleString('en')} messages of a conversation (a thread), in order, each with its speaker (or role), ` +
        'text and the time it was said. Name the thread by thread_id, or by your own external_id (the first call with it ' +
        'starts the thread, later calls append to it); with neither, a new thread starts. A message sent again (the same ' +
        'client_id, or else the same position) updates it instead of duplicating it. Each message becomes a document of ' +
        'kind message that search finds; answers one result per message, in order (a refused one says why, the others are stored).',
      inputSchema: {
        thread_id: Id('The thread to append to (from add_messages or list_threads)').optional(),
        ...routeInput(CreateThreadBody, ['external_id', 'title', 'workspace_id'], {
          describe: { title: 'The title of a thread this call starts' },
        }),
        messages: routeList(AppendBody, 'messages', MessageInput, 'The messages, in order'),
      },
      outputSchema: {
        thread_id: z.string(),
        started: z.boolean().describe('true: this call started the thread'),
        created: z.number().int(),
        updated: z.number().int(),
        failed: z.number().int(),
        results: z.array(
          z.object({
            status: z.number().int().describe('201 stored, 200 a message sent again updated, 4xx refused'),
            id: z.string().optional().describe('The message (a document: get_document reads it)'),
            position: z.number().int().optional(),
            error: z.string().optional(),
            code: z.string().optional().describe('The error code of a refused message (README "Error codes")'),
          }),
        ),
      },
      annotations: ADDITIVE(false),
    },
    toolHandler('add_messages', api, log, async (api, { thread_id, messages, ...start }, signal) => {
      if (thread_id) {
        // Silently ignoring them would store the messages where the caller did not mean to.
        if (Object.values(start).some((v) => v !== undefined))
          throw new ToolFailure('give thread_id alone, or external_id, title and workspace_id to name or start a thread: not both')
        const done = await callJson<ApiAppend>(
          api,
          'POST',
          `/api/threads/${encodeURIComponent(thread_id)}/messages`,
          { messages, source: 'mcp' },
          signal,
        )
        return { thread_id, started: false, ...compact(done) }
      }
      const res = await callApi(api, 'POST', '/api/threads', { ...start, messages, source: 'mcp' }, signal)
      const thread = (await res.json()) as ApiThread & { results: ApiAppend }
      return { thread_id: thread.id, started: res.status === 201, ...compact(thread.results) }
    }),
  )

  server.registerTool(
    'read_thread',
    {
      title: 'Read a conversation',
      description:
        "A thread's messages in order with their speaker and time, a page at a time: pass next_position as from_position " +
        'for the next page (null on the last).',
      inputSchema: {
        thread_id: Id('The thread (from add_messages or list_threads)'),
        ...routeInput(MessagesQuery, ['from_position', 'limit'], { describe: { limit: 'Messages per page (default 100)' } }),
      },
      outputSchema: {
        messages: z.array(
          z.object({ id: z.string(), position: z.number().int(), speaker: z.string(), occurred_at: z.string(), content: z.string() }),
        ),
        next_position: z.number().int().nullable(),
      },
      annotations: READ_ONLY,
    },
    toolHandler('read_thread', api, log, async (api, { thread_id, ...page }, signal) => {
      const path = withQuery(`/api/threads/${encodeURIComponent(thread_id)}/messages`, page)
      const found = await callJson<{ data: ApiMessage[]; next_position: number | null }>(api, 'GET', path, undefined, signal)
      return {
        messages: found.data.map((m) => ({
          id: m.id,
          position: m.position,
          speaker: m.speaker,
          occurred_at: m.occurred_at,
          content: m.body,
        })),
        next_position: found.next_position,
      }
    }),
  )

  server.registerTool(
    'list_threads',
    {
      title: 'List conversations',
      description: 'Your threads, most recently started first, with their message counts and time spans.',
      inputSchema: routeInput(ThreadListQuery, ['workspace_id', 'limit', 'cursor'], { describe: PAGE }),
      outputSchema: { threads: z.array(z.object(ThreadSummary)), next_cursor: z.string().nullable() },
      annotations: READ_ONLY,
    },
    toolHandler('list_threads', api, log, async (api, query, signal) => {
      const found = await callJson<{ data: ApiThread[]; next_cursor: string | null }>(
        api,
        'GET',
        withQuery('/api/threads', query),
        undefined,
        signal,
      )
      return { threads: found.data.map(summaryOf), next_cursor: found.next_cursor }
    }),
  )
}
