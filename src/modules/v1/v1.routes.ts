// /v1: the OpenAI-compatible surface — models, grounded chat completions, responses and embeddings; legacy
// completions and stored responses are in their own routes files, mounted here.
import { Elysia, t } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { openAiErrors } from '../../http/schemas'
import { sseResponse } from '../../http/sse'
import { completeChat, errorChunk, prepareChat, streamChat } from './chat.service'
import { completionsRoutes } from './completions.routes'
import { createEmbeddings, getModel, listModels } from './embeddings.service'
import { ResponseObject, ResponsesBody } from './responses.schemas'
import { completeResponse, prepareResponse, streamResponse } from './responses.service'
import { storedResponsesRoutes } from './stored-responses.routes'
import { ChatCompletion, ChatCompletionBody, EmbeddingsBody, EmbeddingsResponse, Model, ModelList } from './v1.schemas'

/** Responses events on the wire as OpenAI sends them: `event: <type>` and the event, numbered in order. */
function responsesEncoder() {
  let sequence = 0
  return (e: { type: string }) => `event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: sequence++ })}\n\n`
}

const tags = ['openai-compatible']

export function v1Routes(deps: Deps) {
  return new Elysia({ prefix: '/v1' })
    .use(authPlugin(deps))
    .use(completionsRoutes(deps))
    .use(storedResponsesRoutes(deps))
    .get('/models', () => listModels(deps), {
      auth: true,
      response: { 200: ModelList, ...openAiErrors(401) },
      detail: { tags, summary: 'Models: service-rag and service-embed, with what backs each' },
    })
    .get('/models/:id', ({ params }) => getModel(deps, params.id), {
      auth: true,
      params: t.Object({ id: t.String({ description: 'service-rag or service-embed' }) }),
      response: { 200: Model, ...openAiErrors(401, 404) },
      detail: { tags, summary: 'One model: what backs it and whether it is available; 404 for any other id' },
    })
    .post(
      '/chat/completions',
      async ({ request, user, principal, body, set }) => {
        await enforceRateLimit(deps, principal, 'ask_per_min', set.headers, true)
        const chat = await prepareChat(deps, user, body)
        // Both answers are Responses (one JSON, one a stream), so the handler has one return type.
        if (!body.stream)
          return Response.json(await completeChat(deps, user, chat, request.signal), { headers: set.headers as Record<string, string> })
        const includeUsage = body.stream_options?.include_usage === true
        return sseResponse<object | '[DONE]'>(
          request,
          deps.log,
          (send, signal) => streamChat(deps, user, chat, includeUsage, send, signal),
          {
            headers: set.headers,
            encode: (e) => (e === '[DONE]' ? 'data: [DONE]\n\n' : `data: ${JSON.stringify(e)}\n\n`),
            failure: errorChunk,
          },
        )
      },
      {
        auth: true,
        body: ChatCompletionBody,
        response: { 200: ChatCompletion, ...openAiErrors(400, 401, 404, 429, 502) },
        detail: {
          tags,
          summary:
            "Chat completions in OpenAI's format, grounded in your documents, with citations; streaming or not; rate-limited per key and plan",
        },
      },
    )
    .post(
      '/responses',
      async ({ request, user, principal, body, set }) => {
        await enforceRateLimit(deps, principal, 'ask_per_min', set.headers, true)
        const prepared = await prepareResponse(deps, user, body)
        if (!body.stream)
          return Response.json(await completeResponse(deps, user, prepared, request.signal), {
            headers: set.headers as Record<string, string>,
          })
        return sseResponse(request, deps.log, (send, signal) => streamResponse(deps, user, prepared, send, signal), {
          headers: set.headers,
          encode: responsesEncoder(),
          // OpenAI's stream error event; its SDKs throw it as an APIError with this message.
          failure: (message, code) => ({ type: 'error', code, message, param: null }),
        })
      },
      {
        auth: true,
        body: ResponsesBody,
        response: { 200: ResponseObject, ...openAiErrors(400, 401, 404, 429, 502) },
        detail: {
          tags,
          summary:
            "OpenAI's Responses API, grounded in your documents: input, instructions, previous_response_id, function tools, text.format; citations as file_citation annotations; streaming or not; rate-limited per key and plan",
        },
      },
    )
    .post(
      '/embeddings',
      async ({ principal, body, set }) => {
        await enforceRateLimit(deps, principal, 'embeddings_per_min', set.headers, true)
        return createEmbeddings(deps, body)
      },
      {
        auth: true,
        body: EmbeddingsBody,
        response: { 200: EmbeddingsResponse, ...openAiErrors(400, 401, 403, 404, 429, 503) },
        detail: { tags, summary: "Embeddings in OpenAI's format (float or base64), rate-limited per key and plan; 503 without a model" },
      },
    )
}
