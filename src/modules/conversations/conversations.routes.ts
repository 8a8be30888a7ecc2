// /api/conversations: the history of ask and agent chat (the sources answers used: sources.routes.ts).
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { ifMatched, tagged } from '../../http/etag'
import { errors, IdParams, NoContent } from '../../http/schemas'
import { Conversation, ConversationListQuery, ConversationPage, ConversationSummary, UpdateConversationBody } from './conversations.schemas'
import { deleteConversation, getConversation, listConversations, updateConversation } from './conversations.service'

const tags = ['ask']

export function conversationsRoutes(deps: Deps) {
  return new Elysia({ prefix: '/api' })
    .use(authPlugin(deps))
    .get('/conversations', ({ user, query }) => listConversations(deps, user, query), {
      auth: true,
      query: ConversationListQuery,
      response: { 200: ConversationPage, ...errors(400, 401, 404) },
      detail: { tags, summary: 'Conversations, newest first (404 when workspace_id is not one of yours)' },
    })
    .get('/conversations/:id', async ({ user, params, set }) => tagged(set, await getConversation(deps, user, params.id)), {
      auth: true,
      params: IdParams,
      response: { 200: Conversation, ...errors(400, 401, 404) },
      detail: { tags, summary: 'A conversation with its messages and their sources (ETag; If-None-Match answers 304)' },
    })
    .patch(
      '/conversations/:id',
      ({ user, params, body, request }) =>
        ifMatched(
          deps,
          user.id,
          request,
          (d) => getConversation(d, user, params.id),
          (d) => updateConversation(d, user, params.id, body),
        ),
      {
        auth: true,
        params: IdParams,
        body: UpdateConversationBody,
        response: { 200: ConversationSummary, ...errors(400, 401, 404, 412) },
        detail: {
          tags,
          summary: 'Rename a conversation or change its workspace (If-Match: the ETag of GET /conversations/{id}, else 412)',
        },
      },
    )
    .delete(
      '/conversations/:id',
      async ({ user, params, set, request }) => {
        await ifMatched(
          deps,
          user.id,
          request,
          (d) => getConversation(d, user, params.id),
          (d) => deleteConversation(d, user, params.id),
        )
        set.status = 204
      },
      {
        auth: true,
        params: IdParams,
        response: { 204: NoContent, ...errors(400, 401, 404, 412) },
        detail: { tags, summary: 'Delete a conversation and its messages (If-Match: only if unchanged, else 412)' },
      },
    )
}
