// Request and response schemas of POST /v1/responses (OpenAI's Responses API shapes; unknown fields accepted).
import { t } from 'elysia'
import { literals } from '../documents/documents.schemas'
import { RAG_MODEL } from '../../ai/models'
import { Citation, FunctionParameters, ModelId, ToolChoiceMode } from './v1.schemas'
import { Text } from '../../http/schemas'

/** An input item: a message `{ role, content }`, a `function_call`, a `function_call_output` or an `item_reference`. */
const InputItem = t.Object(
  {
    type: t.Optional(t.String()),
    role: t.Optional(t.String()),
    content: t.Optional(t.Unknown()),
    id: t.Optional(t.String()),
    call_id: t.Optional(t.String()),
    name: t.Optional(t.String()),
    arguments: t.Optional(t.String()),
    output: t.Optional(t.Unknown()),
  },
  { additionalProperties: t.Unknown() },
)

// Only function tools: the tools OpenAI hosts (web_search, file_search, …) do not exist here.
const Tool = t.Object(
  {
    type: t.Literal('function', {
      error: "only 'function' tools are supported here, not the tools OpenAI hosts (web_search, file_search, …)",
    }),
    name: Text({
      minLength: 1,
      maxLength: 64,
      error: 'a function tool needs a name of 1 to 64 characters (the tools OpenAI hosts, such as web_search, are not supported here)',
    }),
    description: t.Optional(t.Nullable(t.String())),
    parameters: t.Optional(t.Nullable(FunctionParameters)),
  },
  { additionalProperties: t.Unknown() },
)

const TextFormat = t.Object(
  {
    type: literals(['text', 'json_object', 'json_schema'] as const),
    name: t.Optional(t.String()),
    description: t.Optional(t.String()),
    schema: t.Optional(FunctionParameters),
    strict: t.Optional(t.Nullable(t.Boolean())),
  },
  { additionalProperties: t.Unknown() },
)

export const ResponsesBody = t.Object(
  {
    model: ModelId(RAG_MODEL),
    input: t.Union([Text({ minLength: 1, maxLength: 100_000 }), t.Array(InputItem, { minItems: 1, maxItems: 500 })], {
      error: 'input must be a non-empty string or a list of 1 to 500 input items',
    }),
    instructions: t.Optional(t.Nullable(Text({ maxLength: 100_000 }))),
    previous_response_id: t.Optional(t.Nullable(Text({ maxLength: 200 }))),
    stream: t.Optional(t.Nullable(t.Boolean())),
    store: t.Optional(t.Nullable(t.Boolean({ description: 'Keep the response for previous_response_id (default true)' }))),
    max_output_tokens: t.Optional(t.Nullable(t.Integer({ minimum: 1, error: 'max_output_tokens must be a positive integer' }))),
    temperature: t.Optional(t.Nullable(t.Number({ minimum: 0, maximum: 2 }))),
    top_p: t.Optional(t.Nullable(t.Number({ minimum: 0, maximum: 1 }))),
    tools: t.Optional(t.Nullable(t.Array(Tool, { maxItems: 128 }))),
    tool_choice: t.Optional(
      t.Nullable(
        t.Union([ToolChoiceMode, t.Object({ type: t.Literal('function'), name: t.String() }, { additionalProperties: t.Unknown() })], {
          error: "tool_choice must be 'auto', 'none', 'required' or { type: 'function', name }",
        }),
      ),
    ),
    text: t.Optional(t.Nullable(t.Object({ format: t.Optional(t.Nullable(TextFormat)) }, { additionalProperties: t.Unknown() }))),
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

const Annotation = t.Object({
  type: t.Literal('file_citation'),
  file_id: t.String({ description: 'The cited document id' }),
  filename: t.String(),
  index: t.Integer(),
})

const OutputItem = t.Union([
  t.Object({
    type: t.Literal('message'),
    id: t.String(),
    status: t.String(),
    role: t.Literal('assistant'),
    content: t.Array(
      t.Object({ type: t.Literal('output_text'), text: t.String(), annotations: t.Array(Annotation), logprobs: t.Array(t.Unknown()) }),
    ),
  }),
  t.Object({
    type: t.Literal('function_call'),
    id: t.String(),
    call_id: t.String(),
    name: t.String(),
    arguments: t.String(),
    status: t.String(),
  }),
])

export const ResponseObject = t.Object(
  {
    id: t.String(),
    object: t.Literal('response'),
    created_at: t.Integer(),
    status: literals(['completed', 'incomplete', 'in_progress', 'failed'] as const),
    error: t.Nullable(t.Object({ code: t.String(), message: t.String() }), { description: 'Always null: a failure is an error answer' }),
    incomplete_details: t.Nullable(t.Object({ reason: t.String() })),
    instructions: t.Nullable(t.String()),
    max_output_tokens: t.Nullable(t.Integer()),
    model: t.String(),
    output: t.Array(OutputItem),
    previous_response_id: t.Nullable(t.String()),
    store: t.Boolean(),
    usage: t.Nullable(
      t.Object({
        input_tokens: t.Integer(),
        input_tokens_details: t.Object({ cached_tokens: t.Integer() }),
        output_tokens: t.Integer(),
        output_tokens_details: t.Object({ reasoning_tokens: t.Integer() }),
        total_tokens: t.Integer(),
      }),
    ),
    citations: t.Array(Citation, {
      description: 'The sources the answer cites (an extension); the same as the annotations, with titles, urls and excerpts',
    }),
  },
  {
    title: 'ResponseObject',
    additionalProperties: t.Unknown(),
    description:
      'Or, with stream: true, text/event-stream of Responses events: response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta…, response.output_text.annotation.added…, response.output_text.done, response.content_part.done, response.output_item.done, then response.completed (or response.incomplete); a failure after the start ends with an `error` event',
  },
)

export const ResponseIdParams = t.Object({
  id: t.String({ description: "The response's id (resp_…); any other id, or another user's, is 404" }),
})

export const DeletedResponse = t.Object(
  { id: t.String(), object: t.Literal('response'), deleted: t.Literal(true) },
  { title: 'DeletedResponse' },
)

export const InputItemsQuery = t.Object({
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, error: 'limit must be an integer from 1 to 100' })),
  order: t.Optional(literals(['asc', 'desc'] as const, 'desc (the default): the last input item first')),
  after: t.Optional(t.String({ description: "An item id: list the items after it (the previous page's last_id)" })),
})

export const InputItemList = t.Object(
  {
    object: t.Literal('list'),
    data: t.Array(t.Object({ id: t.String(), type: t.String() }, { additionalProperties: t.Unknown() }), {
      description: "The response's own input items (messages, function_call, function_call_output), as sent; not the earlier turns",
    }),
    first_id: t.Nullable(t.String()),
    last_id: t.Nullable(t.String()),
    has_more: t.Boolean(),
  },
  { title: 'InputItemList' },
)
