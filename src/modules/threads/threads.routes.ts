// /api/threads: conversations sent from outside. A thread holds messages in order; each message is a document of
// kind message (GET, archive, forget or delete it under /api/documents), found by search like any document.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { created } from '../../http/created'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors, IdParams, NoContent } from '../../http/schemas'
import { writerOf } from '../documents/approval'
import * as S from './threads.schemas'
import { MAX_THREAD_BATCH } from './threads.model'
import type { MessageOrigin } from './threads.input'
import { extractLearnings, MAX_EXTRACT_CHARS, MAX_EXTRACT_MESSAGES } from './extraction.service'
import {
  appendMessages,
  createThread,
  deleteThread,
  forgetThread,
  getThread,
  listThreadMessages,
  listThreads,
  patchThread,
} from './threads.service'

const tags = ['threads']
const one = { auth: true, params: IdParams } as const

const originOf = (principal: { via: 'key' | 'session' }, source?: MessageOrigin['source']): MessageOrigin => ({
  writer: writerOf(principal),
  source: source ?? (principal.via === 'session' ? 'extension' : 'api'),
})

export function threadsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api/threads' })
    .use(authPlugin(deps))
    .post(
      '',
      async ({ user, principal, body, set }) => {
        // Every member is optional: no body at all starts an untitled thread, as {} does.
        const input = body ?? {}
        const { thread, created: isNew, results } = await createThread(deps, user, input, originOf(principal, input.source))
        if (isNew) created(set, `/api/threads/${thread.id}`, null)
        return { ...thread, ...(results ? { results } : {}) }
      },
      {
        auth: true,
        body: t.Optional(S.CreateThreadBody),
        response: { 201: S.CreatedThread, 200: S.CreatedThread, ...errors(400, 401, 402, 403, 404, 409, 413) },
        detail: {
          tags,
          summary:
            'Start a conversation, or name one again by its external_id (200; 409 when it names a thread of another workspace), optionally with its first messages',
          description:
            'Messages sent with it are appended as by POST /api/threads/{id}/messages, and `results` answers one result per message.',
        },
      },
    )
    .get('', ({ user, query }) => listThreads(deps, user, query), {
      auth: true,
      query: S.ThreadListQuery,
      response: { 200: S.ThreadPage, ...errors(400, 401, 404) },
      detail: { tags, summary: 'Threads, most recently started first (404 when workspace_id is not one of yours)' },
    })
    .get('/:id', ({ user, params }) => getThread(deps, user, params.id), {
      ...one,
      response: { 200: S.Thread, ...errors(400, 401, 404) },
      detail: { tags, summary: 'A thread with its message count and time span' },
    })
    .patch('/:id', ({ user, params, body }) => patchThread(deps, user, params.id, body), {
      ...one,
      body: S.PatchThreadBody,
      response: { 200: S.Thread, ...errors(400, 401, 404) },
      detail: { tags, summary: 'Rename a thread or replace its metadata' },
    })
    .delete(
      '/:id',
      async ({ user, params, set }) => {
        await deleteThread(deps, user, params.id)
        set.status = 204
      },
      {
        ...one,
        response: { 204: NoContent, ...errors(400, 401, 404) },
        detail: { tags, summary: 'Delete a thread and its messages' },
      },
    )
    .post(
      '/:id/forget',
      async ({ user, params, set }) => {
        await forgetThread(deps, user, params.id)
        set.status = 204
      },
      {
        ...one,
        response: { 204: NoContent, ...errors(400, 401, 404) },
        detail: {
          tags,
          summary: 'Forget a thread: every message purged from storage and search (each leaves a content-free tombstone), then the thread',
        },
      },
    )
    .post(
      '/:id/messages',
      ({ user, principal, params, body }) => appendMessages(deps, user, params.id, body.messages, originOf(principal, body.source)),
      {
        ...one,
        body: S.AppendBody,
        response: { 200: S.AppendResult, ...errors(400, 401, 402, 403, 404, 413) },
        detail: {
          tags,
          summary: `Append up to ${MAX_THREAD_BATCH} messages: 200 with one result per message, in order`,
          description:
            'A message sent again — the same client_id, or else the same position — updates that message (200); a message without a ' +
            'position goes after the last. An invalid message gets its own `{ status: 400, error }` and the others are written. A batch ' +
            'that would pass a plan cap is refused whole with 402 before anything is written, as POST /api/documents/bulk.',
        },
      },
    )
    .get('/:id/messages', ({ user, params, query }) => listThreadMessages(deps, user, params.id, query), {
      ...one,
      query: S.MessagesQuery,
      response: { 200: S.MessagesPage, ...errors(400, 401, 404) },
      detail: { tags, summary: "The thread's active messages in order, from a position on" },
    })
    .post(
      '/:id/extract',
      async ({ user, principal, params, request, set }) => {
        // A chat model's work, as an answer is: the same rate.
        await enforceRateLimit(deps, principal, 'ask_per_min', set.headers)
        return extractLearnings(deps, user, params.id, request.signal)
      },
      {
        ...one,
        response: { 200: S.Extraction, ...errors(400, 401, 402, 404, 409, 429, 502, 503) },
        detail: {
          tags,
          summary: `Propose learnings from the thread's new messages (at most ${MAX_EXTRACT_MESSAGES} a call) as drafts awaiting approval`,
          description:
            'A chat model reads the messages after `extracted_through` (at most ' +
            `${MAX_EXTRACT_MESSAGES} messages and ${MAX_EXTRACT_CHARS.toLocaleString('en')} characters; \`remaining\` says more wait) ` +
            'and proposes facts, preferences, decisions and routines. Each becomes a pending_approval draft in the review queue, ' +
            'citing the message ids it rests on in `metadata.evidence` (with `metadata.thread_id`); one that updates an active memory ' +
            'names it in `metadata.supersedes`, so approving it replaces that memory. A learning equal to an existing memory or ' +
            'draft, or citing no message of the thread, is `skipped` with the reason. All drafts and the new `extracted_through` are ' +
            'written together or not at all. 503 without a chat model (CHAT_MODEL); 502 when the model fails or answers malformed ' +
            "output twice — recorded as the thread's `extraction` { status: failed }; 409 when another extraction of the thread ran meanwhile. " +
            "Counts against the plan's ask rate (429).",
        },
      },
    )
}
