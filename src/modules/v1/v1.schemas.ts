// Request and response schemas of the OpenAI-compatible /v1 routes (OpenAI's own shapes).
import { t } from 'elysia'
import { EMBED_MODEL, RAG_MODEL } from '../../ai/models'
import { literals, Location } from '../documents/documents.schemas'
import { Text } from '../../http/schemas'
import type { ServiceModel } from '../../config'
import { documentedIds } from './model-aliases'
import { MAX_INPUT_TOKENS, MAX_REQUEST_TOKENS } from './token-input'

/** The one model an endpoint serves and its default aliases, as an enum in the document; another id is OpenAI's
 * 404 (`model … does not exist`), which the service answers itself rather than a validation 400. */
export const ModelId = (id: ServiceModel) =>
  t.String({
    enum: documentedIds(id),
    description: `${id} (GET /v1/models lists the models), or an alias of it: these and those MODEL_ALIASES adds; the response names ${id}`,
  })

export const Model = t.Object({
  id: t.String(),
  object: t.Literal('model'),
  created: t.Integer(),
  owned_by: t.String(),
  description: t.String({ description: 'What backs this model here' }),
  available: t.Boolean(),
})
export const ModelList = t.Object({ object: t.Literal('list'), data: t.Array(Model) }, { title: 'ModelList' })

// Not empty, as at OpenAI: there is nothing to embed in "".
const Input = Text({ minLength: 1, maxLength: 32_768, error: 'each input must be a string of 1 to 32768 characters' })
const TokenIds = t.Array(t.Integer({ description: 'A cl100k_base token id' }), {
  minItems: 1,
  maxItems: MAX_INPUT_TOKENS,
  description: `One text as cl100k_base token ids (1 to ${MAX_INPUT_TOKENS}), decoded to the text it stands for`,
})

export const EmbeddingsBody = t.Object({
  model: ModelId(EMBED_MODEL),
  input: t.Union(
    [
      Input,
      t.Array(Input, { minItems: 1, maxItems: 2048 }),
      TokenIds,
      t.Array(TokenIds, { minItems: 1, maxItems: 2048, description: 'Several texts as token id arrays' }),
    ],
    {
      error: `input must be a string, an array of 1 to 2048 strings, an array of 1 to ${MAX_INPUT_TOKENS} token ids, or an array of 1 to 2048 such arrays`,
      description: `Text, or cl100k_base token ids as tiktoken makes them (LangChain's OpenAIEmbeddings sends these); ${MAX_REQUEST_TOKENS} token ids in one request at most`,
    },
  ),
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

const TextPart = t.Object({ type: t.String(), text: t.Optional(t.String()) }, { additionalProperties: t.Unknown() })
const ToolCall = t.Object(
  {
    id: Text({ maxLength: 200 }),
    type: t.Optional(t.Literal('function')),
    function: t.Object({ name: Text({ maxLength: 200 }), arguments: Text({ maxLength: 100_000 }) }),
  },
  { additionalProperties: t.Unknown() },
)
const ChatMessage = t.Object(
  {
    role: literals(['system', 'developer', 'user', 'assistant', 'tool'] as const),
    content: t.Optional(
      t.Union([Text({ maxLength: 100_000 }), t.Array(TextPart, { maxItems: 100 }), t.Null()], {
        error: 'content must be a string or an array of text parts',
      }),
    ),
    name: t.Optional(t.String()),
    tool_calls: t.Optional(t.Nullable(t.Array(ToolCall, { maxItems: 128 }))),
    tool_call_id: t.Optional(Text({ maxLength: 200 })),
  },
  { additionalProperties: t.Unknown() },
)

/** A function the caller offers its model; `parameters` is a JSON schema, passed to the chat model as given. */
export const FunctionParameters = t.Record(t.String(), t.Unknown(), { description: 'JSON schema of the arguments' })
const ChatTool = t.Object(
  {
    type: t.Literal('function', {
      error: "only 'function' tools are supported here, not the tools OpenAI hosts (web_search, file_search, …)",
    }),
    function: t.Object({
      name: Text({ minLength: 1, maxLength: 64 }),
      description: t.Optional(t.String()),
      parameters: t.Optional(FunctionParameters),
      strict: t.Optional(t.Nullable(t.Boolean())),
    }),
  },
  { additionalProperties: t.Unknown() },
)
export const ToolChoiceMode = literals(['auto', 'none', 'required'] as const)
const ResponseFormat = t.Union(
  [
    t.Object({ type: literals(['text', 'json_object'] as const) }),
    t.Object({
      type: t.Literal('json_schema'),
      json_schema: t.Object({
        name: t.String(),
        description: t.Optional(t.String()),
        schema: t.Optional(FunctionParameters),
        strict: t.Optional(t.Nullable(t.Boolean())),
      }),
    }),
  ],
  { error: "response_format must be { type: 'text' | 'json_object' } or { type: 'json_schema', json_schema: { name, schema } }" },
)

export const ChatCompletionBody = t.Object(
  {
    model: ModelId(RAG_MODEL),
    messages: t.Array(ChatMessage, { minItems: 1, maxItems: 200, error: 'messages must be an array of 1 to 200 messages' }),
    stream: t.Optional(t.Nullable(t.Boolean())),
    stream_options: t.Optional(t.Nullable(t.Object({ include_usage: t.Optional(t.Boolean()) }, { additionalProperties: t.Unknown() }))),
    temperature: t.Optional(t.Nullable(t.Number({ minimum: 0, maximum: 2 }))),
    top_p: t.Optional(t.Nullable(t.Number({ minimum: 0, maximum: 1 }))),
    max_tokens: t.Optional(t.Nullable(t.Integer({ minimum: 1 }))),
    max_completion_tokens: t.Optional(t.Nullable(t.Integer({ minimum: 1 }))),
    tools: t.Optional(t.Array(ChatTool, { maxItems: 128 })),
    tool_choice: t.Optional(
      t.Union([ToolChoiceMode, t.Object({ type: t.Literal('function'), function: t.Object({ name: t.String() }) })], {
        error: "tool_choice must be 'auto', 'none', 'required' or { type: 'function', function: { name } }",
      }),
    ),
    response_format: t.Optional(ResponseFormat),
    n: t.Optional(t.Nullable(t.Integer({ minimum: 1, maximum: 1, error: 'n: only 1 choice is supported' }))),
    user: t.Optional(t.String()),
    workspace_id: t.Optional(
      t.String({
        format: 'uuid',
        error: 'workspace_id must be a UUID',
        description: 'Retrieve only from this workspace (an extension of the OpenAI format)',
      }),
    ),
  },
  { additionalProperties: t.Unknown() },
)

export const Citation = t.Object({
  index: t.Integer(),
  document_id: t.String(),
  title: t.Nullable(t.String()),
  url: t.Nullable(t.String()),
  excerpt: t.Nullable(t.String()),
  location: t.Optional(Location),
})

/** OpenAI's shape of a choice's token log probabilities: always null, as none are computed. */
const Logprobs = t.Nullable(t.Object({ content: t.Nullable(t.Array(t.Object({ token: t.String(), logprob: t.Number() }))) }), {
  description: 'Always null: token log probabilities are not computed',
})

export const ChatCompletion = t.Object(
  {
    id: t.String(),
    object: t.Literal('chat.completion'),
    created: t.Integer(),
    model: t.String(),
    choices: t.Array(
      t.Object({
        index: t.Integer(),
        message: t.Object({
          role: t.Literal('assistant'),
          content: t.Nullable(t.String()),
          refusal: t.Nullable(t.String(), { description: 'Always null: the model does not refuse here' }),
          tool_calls: t.Optional(t.Array(ToolCall)),
        }),
        finish_reason: t.String(),
        logprobs: Logprobs,
      }),
    ),
    usage: t.Object({ prompt_tokens: t.Integer(), completion_tokens: t.Integer(), total_tokens: t.Integer() }),
    citations: t.Array(Citation, { description: 'The sources the answer cites; [n] in the content is the citation with index n' }),
  },
  {
    title: 'ChatCompletion',
    description: 'Or, with stream: true, text/event-stream of chat.completion.chunk objects ending with data: [DONE]',
  },
)
