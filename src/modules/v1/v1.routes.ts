// /v1: the OpenAI-compatible surface — models, grounded chat completions and embeddings.
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors } from '../../http/schemas'
import { sseResponse } from '../../http/sse'
import { completeChat, errorChunk, prepareChat, streamChat } from './chat.service'
import { createEmbeddings, listModels } from './embeddings.service'
import { ChatCompletion, ChatCompletionBody, EmbeddingsBody, EmbeddingsResponse, ModelList } from './v1.schemas'

const tags = ['openai-compatible']

export function v1Routes(deps: Deps) {
  return new Elysia({ prefix: '/v1' })
    .use(authPlugin(deps))
    .get('/models', () => listModels(deps), {
      auth: true,
      response: { 200: ModelList, ...errors(401) },
      detail: { tags, summary: 'Models: service-rag and service-embed, with what backs each' },
    })
    .post(
      '/chat/completions',
      async ({ request, user, principal, body, set }) => {
        await enforceRateLimit(deps, principal, 'ask_per_min', set.headers, true)
        const chat = await prepareChat(deps, user, body)
        // Both answers are Responses (one JSON, one a stream), so the handler has one return type.
        if (!body.stream) return Response.json(await completeChat(deps, user, chat, request.signal), { headers: set.headers as Record<string, string> })
        const includeUsage = body.stream_options?.include_usage === true
        return sseResponse<object | '[DONE]'>(request, deps.log, (send, signal) => streamChat(deps, user, chat, includeUsage, send, signal), {
          headers: set.headers,
          encode: (e) => (e === '[DONE]' ? 'data: [DONE]\n\n' : `data: ${JSON.stringify(e)}\n\n`),
          failure: errorChunk,
        })
      },
      {
        auth: true,
        body: ChatCompletionBody,
        response: { 200: ChatCompletion, ...errors(400, 401, 404, 429, 502) },
        detail: { tags, summary: "Chat completions in OpenAI's format, grounded in your documents, with citations; streaming or not; rate-limited per key and plan" },
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
        response: { 200: EmbeddingsResponse, ...errors(400, 401, 403, 404, 429, 503) },
        detail: { tags, summary: "Embeddings in OpenAI's format (float or base64), rate-limited per key and plan; 503 without a model" },
      },
    )
}
