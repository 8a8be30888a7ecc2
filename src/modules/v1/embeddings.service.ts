// /v1/embeddings and /v1/models: service-embed through OpenAI's request and response formats (text or token ids).
import { embedDocuments } from '../../embedding/embeddings'
import { EMBED_MODEL, RAG_MODEL } from '../../ai/models'
import type { Deps } from '../../deps'
import { AppError, badRequest, modelUnavailable } from '../../http/errors'
import { modelNamed, resolveModel } from './model-aliases'
import { decodeTokenInput, isTokenInput, type TokenInput } from './token-input'

export { EMBED_MODEL }

export function listModels(deps: Deps) {
  const created = Math.floor(new Date('2026-01-01T00:00:00Z').getTime() / 1000)
  const status = deps.embeddingStatus
  return {
    object: 'list' as const,
    data: [
      {
        id: RAG_MODEL,
        object: 'model' as const,
        created,
        owned_by: 'service',
        description:
          deps.chat.backedBy === 'extractive'
            ? 'grounded answers by the built-in extractive answerer'
            : `grounded answers by ${deps.chat.backedBy}`,
        available: true,
      },
      {
        id: EMBED_MODEL,
        object: 'model' as const,
        created,
        owned_by: 'service',
        description: status.available ? `embeddings by ${deps.embedder!.id}` : `unavailable: ${status.reason}`,
        available: status.available,
      },
    ],
  }
}

/** One model of the list (an alias gives the model it names), as OpenAI's `GET /v1/models/{id}` answers; any other id is a 404. */
export function getModel(deps: Deps, id: string) {
  const named = modelNamed(deps.config, id)
  const model = listModels(deps).data.find((m) => m.id === named)
  if (!model) throw new AppError(404, `model ${id} does not exist; use ${RAG_MODEL} or ${EMBED_MODEL}`)
  return model
}

/** OpenAI's token counts are model-specific; four characters a token is the usual estimate. */
const estimateTokens = (texts: string[]) => texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0)

const toBase64 = (vector: number[]) => Buffer.from(new Float32Array(vector).buffer).toString('base64')

export async function createEmbeddings(
  deps: Deps,
  body: { model: string; input: string | string[] | TokenInput; encoding_format?: 'float' | 'base64'; dimensions?: number },
) {
  // The embedder's own id (local:…, openai:…) is taken too: it is what the vectors are recorded with.
  if (body.model !== deps.embedder?.id) resolveModel(deps.config, body.model, 'embed')
  if (!deps.embedder) throw modelUnavailable(`no embedding model is available: ${deps.embeddingStatus.reason}`)
  // Token ids are counted as they came; text is estimated.
  const { texts: inputs, tokens } = isTokenInput(body.input)
    ? await decodeTokenInput(body.input)
    : { texts: [body.input].flat(), tokens: estimateTokens([body.input].flat()) }
  if (inputs.some((i) => i.length === 0)) throw badRequest('input must not contain empty strings')
  // The model failing now (its process died twice on this input, an endpoint down) is the service's to say.
  const embedded = await embedDocuments(deps.embedder, inputs).catch((error: Error) => {
    throw modelUnavailable(`the embedding model failed: ${error.message}`)
  })
  // No vector (a zero one, whose cosine is NaN) for a text with nothing to embed: refused like an empty string.
  const empty = embedded.indexOf(null)
  if (empty >= 0) throw badRequest(`${inputs.length > 1 ? `input[${empty}]` : 'input'} has nothing to embed (no letters or digits)`)
  const vectors = embedded as number[][]
  if (body.dimensions !== undefined && body.dimensions !== vectors[0]?.length) {
    throw badRequest(`dimensions: ${deps.embedder.id} makes ${vectors[0]?.length}-dimensional vectors and cannot shorten them`)
  }
  return {
    object: 'list' as const,
    data: vectors.map((v, index) => ({
      object: 'embedding' as const,
      index,
      embedding: body.encoding_format === 'base64' ? toBase64(v) : v,
    })),
    model: EMBED_MODEL,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  }
}
