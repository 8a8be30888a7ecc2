// Request and response schemas of the OpenAI-compatible /v1 routes (OpenAI's own shapes).
import { t } from 'elysia'
import { literals } from '../documents/documents.schemas'

export const Model = t.Object({
  id: t.String(),
  object: t.Literal('model'),
  created: t.Integer(),
  owned_by: t.String(),
  description: t.String({ description: 'What backs this model here' }),
  available: t.Boolean(),
})
export const ModelList = t.Object({ object: t.Literal('list'), data: t.Array(Model) }, { title: 'ModelList' })

const Input = t.String({ maxLength: 32_768, error: 'each input must be a string of at most 32768 characters' })

export const EmbeddingsBody = t.Object({
  model: t.String({ description: 'service-embed' }),
  input: t.Union([Input, t.Array(Input, { minItems: 1, maxItems: 2048 })], { error: 'input must be a string or an array of 1 to 2048 strings' }),
  encoding_format: t.Optional(literals(['float', 'base64'] as const)),
  dimensions: t.Optional(t.Integer({ minimum: 1 })),
  user: t.Optional(t.String()),
})

export const EmbeddingsResponse = t.Object(
  {
    object: t.Literal('list'),
    data: t.Array(
      t.Object({
        object: t.Literal('embedding'),
        index: t.Integer(),
        embedding: t.Union([t.Array(t.Number()), t.String({ description: 'base64 of little-endian float32' })]),
      }),
    ),
    model: t.String(),
    usage: t.Object({ prompt_tokens: t.Integer(), total_tokens: t.Integer() }),
  },
  { title: 'EmbeddingsResponse' },
)
