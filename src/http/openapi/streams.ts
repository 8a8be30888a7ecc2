// The event streams of the API as OpenAPI declares them: `text/event-stream` whose schema is one event's
// `data` (what openapi-typescript and hey-api type each event as), for /api/ask, /api/agent/chat, and /v1
// chat completions and responses with `"stream": true`.
import { ERROR_CODE_LIST } from '../error-codes'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const event = (type: string, properties: Record<string, unknown>, description: string) => ({
  type: 'object',
  title: `${type[0]!.toUpperCase()}${type.slice(1)}Event`,
  description,
  required: ['type', ...Object.keys(properties)],
  properties: { type: { type: 'string', const: type }, ...properties },
})

/** One event of POST /api/ask and /api/agent/chat (`data: <json>` lines), told apart by `type`. */
export const AnswerEvent = {
  title: 'AnswerEvent',
  description:
    'One server-sent event of an answer: `tool` events (agent only) as tools run, `delta`s of the answer text, then `sources` and `saved`; a failure after the stream began ends it with `error`.',
  oneOf: [
    event(
      'tool',
      {
        tool: {
          type: 'object',
          required: ['name', 'status', 'detail'],
          properties: {
            name: { type: 'string', description: 'The tool the agent called' },
            status: { type: 'string', enum: ['call', 'result', 'error'] },
            detail: { type: 'object', additionalProperties: true, description: 'Its arguments (call) or a digest of its result' },
          },
        },
      },
      'A tool call of the agent, or its result',
    ),
    event('delta', { text: { type: 'string' } }, 'The next piece of the answer; [n] cites source n'),
    event('sources', { sources: { type: 'array', items: ref('Source') } }, 'The sources the answer may cite'),
    event('saved', { conversation: ref('ConversationSummary') }, 'The exchange is saved in this conversation'),
    event(
      'error',
      { message: { type: 'string' }, code: { type: 'string', enum: ERROR_CODE_LIST } },
      'The stream failed after it began; the last event',
    ),
  ],
  discriminator: { propertyName: 'type' },
}

/** One `data:` line of a streamed chat completion; the stream ends with `data: [DONE]`. */
export const ChatCompletionChunk = {
  title: 'ChatCompletionChunk',
  description: "One chunk of a streamed chat completion, in OpenAI's shape; the stream ends with the line `data: [DONE]`.",
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'chat.completion.chunk' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'delta', 'finish_reason'],
        properties: {
          index: { type: 'integer' },
          delta: {
            type: 'object',
            properties: {
              role: { type: 'string', const: 'assistant' },
              content: { type: 'string' },
              tool_calls: { type: 'array', items: { type: 'object', additionalProperties: true } },
            },
          },
          finish_reason: { type: ['string', 'null'], enum: ['stop', 'length', 'tool_calls', null] },
          logprobs: {
            type: ['object', 'null'],
            description: 'Always null: token log probabilities are not computed',
            required: ['content'],
            properties: {
              content: {
                type: ['array', 'null'],
                items: {
                  type: 'object',
                  required: ['token', 'logprob'],
                  properties: { token: { type: 'string' }, logprob: { type: 'number' } },
                },
              },
            },
          },
        },
      },
    },
    usage: { type: ['object', 'null'], additionalProperties: true, description: 'On the last chunk with stream_options.include_usage' },
  },
  additionalProperties: true,
}

/** One event of a streamed response (`event: <type>` then `data: <json>`), numbered by sequence_number. */
export const ResponseStreamEvent = {
  title: 'ResponseStreamEvent',
  description:
    "One event of a streamed response, in OpenAI's Responses shape: response.created, response.in_progress, response.output_item.added, response.content_part.added, response.output_text.delta…, response.output_text.annotation.added…, response.output_text.done, response.content_part.done, response.output_item.done, then response.completed (or response.incomplete); a failure after the start ends with `error`.",
  type: 'object',
  required: ['type', 'sequence_number'],
  properties: {
    type: { type: 'string', description: 'The event type, also sent as the SSE `event:` field' },
    sequence_number: { type: 'integer', description: 'The order of the event in the stream, from 0' },
    response: {
      ...ref('ResponseObject'),
      description: 'On response.created, response.in_progress, response.completed and response.incomplete',
    },
    delta: { type: 'string', description: 'On response.output_text.delta and response.function_call_arguments.delta' },
    item_id: { type: 'string' },
    output_index: { type: 'integer' },
    content_index: { type: 'integer' },
    message: { type: 'string', description: 'On error' },
    code: { type: 'string', enum: ERROR_CODE_LIST, description: 'On error' },
  },
  additionalProperties: true,
}

/** One chunk of a streamed legacy completion (POST /v1/completions); the stream ends with `data: [DONE]`. */
export const CompletionChunk = {
  title: 'CompletionChunk',
  description:
    "One chunk of a streamed text completion, in OpenAI's shape: text pieces of each prompt's choice in turn, its last chunk with finish_reason and citations; the stream ends with the line `data: [DONE]`.",
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { type: 'string', const: 'text_completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'text', 'finish_reason'],
        properties: {
          index: { type: 'integer', description: 'The prompt this text answers' },
          text: { type: 'string' },
          finish_reason: { type: ['string', 'null'], enum: ['stop', 'length', 'content_filter', null] },
          logprobs: {
            type: ['object', 'null'],
            description: 'Always null: token log probabilities are not computed',
            properties: {
              tokens: { type: 'array', items: { type: 'string' } },
              token_logprobs: { type: 'array', items: { type: 'number' } },
              text_offset: { type: 'array', items: { type: 'integer' } },
            },
          },
          citations: {
            type: 'array',
            items: { type: 'object', additionalProperties: true },
            description: "On the choice's last chunk: the sources its text cites, as in the non-streamed answer",
          },
        },
      },
    },
    usage: { type: ['object', 'null'], additionalProperties: true, description: 'On the last chunk with stream_options.include_usage' },
  },
  additionalProperties: true,
}
