// /v1: the OpenAI-compatible surface — models and embeddings (chat completions arrive with answers).
import { Elysia } from 'elysia'
import type { Deps } from '../../deps'
import { authPlugin } from '../../http/auth'
import { enforceRateLimit } from '../../http/rate-limit'
import { errors } from '../../http/schemas'
import { createEmbeddings, listModels } from './embeddings.service'
import { EmbeddingsBody, EmbeddingsResponse, ModelList } from './v1.schemas'

const tags = ['openai-compatible']

export function v1Routes(deps: Deps) {
  return new Elysia({ prefix: '/v1' })
    .use(authPlugin(deps))
    .get('/models', () => listModels(deps), {
      auth: true,
      response: { 200: ModelList, ...errors(401) },
      detail: { tags, summary: 'Models: service-embed, with what backs it' },
    })
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
