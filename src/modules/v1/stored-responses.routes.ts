// GET and DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items: the caller's stored responses
// (OpenAI's retrieve, delete and input_items.list), mounted under /v1 by v1.routes.ts.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { openAiErrors } from '../../http/schemas'
import { DeletedResponse, InputItemList, InputItemsQuery, ResponseIdParams, ResponseObject } from './responses.schemas'
import { deleteStoredResponse, getStoredResponse, listInputItems } from './stored-responses.service'

const tags = ['openai-compatible']

export function storedResponsesRoutes(deps: Deps) {
  return new Elysia()
    .use(authPlugin(deps))
    .get('/responses/:id', ({ user, params }) => getStoredResponse(deps.db, user.id, params.id), {
      auth: true,
      params: ResponseIdParams,
      response: { 200: ResponseObject, ...openAiErrors(401, 404) },
      detail: {
        tags,
        summary: 'A stored response (one made without store: false), as it was answered; 404 once deleted or for another user',
      },
    })
    .delete('/responses/:id', ({ user, params }) => deleteStoredResponse(deps.db, user.id, params.id), {
      auth: true,
      params: ResponseIdParams,
      response: { 200: DeletedResponse, ...openAiErrors(401, 404) },
      detail: {
        tags,
        summary:
          'Delete a stored response: it can no longer be retrieved nor continued by previous_response_id, nor can any response that continues it',
      },
    })
    .get('/responses/:id/input_items', ({ user, params, query }) => listInputItems(deps.db, user.id, params.id, query), {
      auth: true,
      params: ResponseIdParams,
      query: InputItemsQuery,
      response: { 200: InputItemList, ...openAiErrors(400, 401, 404) },
      detail: { tags, summary: "A stored response's own input items, newest first unless order=asc, paged by limit and after" },
    })
}
