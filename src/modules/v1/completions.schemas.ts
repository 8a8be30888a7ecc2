// Request and response schemas of POST /v1/completions, OpenAI's legacy text completions (unknown fields accepted).
import { t } from 'elysia'
import { RAG_MODEL } from '../../ai/models'
import { Text } from '../../http/schemas'
import { Citation, ModelId } from './v1.schemas'

/** Each prompt is answered on its own (retrieval and a model call), so an array is bounded like a small batch. */
export const MAX_PROMPTS = 16

// Each prompt is a question: it must have text (the schema says so, so a generated client knows).
const Prompt = Text({ minLength: 1, maxLength: 100_000, pattern: '\\S' })
const one = (field: string, why: string) =>
  t.Optional(t.Nullable(t.Integer({ minimum: 1, maximum: 1, error: `${field}: only 1 is supported (${why})` })))

export const CompletionBody = t.Object(
  {
    model: ModelId(RAG_MODEL),
    prompt: t.Union([Prompt, t.Array(Prompt, { minItems: 1, maxItems: MAX_PROMPTS })], {
      error: `prompt must be a string with text (the question) or an array of 1 to ${MAX_PROMPTS} of them (token arrays are not supported here: send the text)`,
      description: 'The question, answered from your documents; an array gets one choice per prompt, in order',
    }),
    max_tokens: t.Optional(t.Nullable(t.Integer({ minimum: 1, error: 'max_tokens must be a positive integer' }))),
    temperature: t.Optional(t.Nullable(t.Number({ minimum: 0, maximum: 2 }))),
    top_p: t.Optional(t.Nullable(t.Number({ minimum: 0, maximum: 1 }))),
    stop: t.Optional(
      t.Nullable(
        t.Union([Text({ minLength: 1, maxLength: 200 }), t.Array(Text({ minLength: 1, maxLength: 200 }), { maxItems: 4 })], {
          error: 'stop must be a string or an array of up to 4 strings',
          description: 'Passed to the configured chat model (the built-in extractive answerer ignores it)',
        }),
      ),
    ),
    n: one('n', 'one choice per prompt'),
    best_of: one('best_of', 'one candidate per prompt'),
    stream: t.Optional(t.Nullable(t.Boolean())),
    stream_options: t.Optional(t.Nullable(t.Object({ include_usage: t.Optional(t.Boolean()) }, { additionalProperties: t.Unknown() }))),
    echo: t.Optional(t.Nullable(t.Boolean({ description: 'Start each choice with its prompt' }))),
    logprobs: t.Optional(
      t.Nullable(
        t.Integer({
          minimum: 0,
          maximum: 0,
          error: 'logprobs: not available here (service-rag gives no token probabilities); send null or leave it out',
        }),
      ),
    ),
    suffix: t.Optional(
      t.Nullable(
        t.String({
          maxLength: 0,
          error: 'suffix: not supported (service-rag answers the prompt as a question, it does not fill in text before a suffix)',
        }),
      ),
    ),
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

/** OpenAI's legacy shape, for generators (a null-only member has no type in them); always null here. */
const CompletionLogprobs = t.Nullable(
  t.Object({
    tokens: t.Array(t.String()),
    token_logprobs: t.Array(t.Number()),
    text_offset: t.Array(t.Integer()),
  }),
  { description: 'Always null: token log probabilities are not computed' },
)

export const TextCompletion = t.Object(
  {
    id: t.String(),
    object: t.Literal('text_completion'),
    created: t.Integer(),
    model: t.String(),
    choices: t.Array(
      t.Object({
        text: t.String(),
        index: t.Integer({ description: 'The prompt this choice answers' }),
        logprobs: CompletionLogprobs,
        finish_reason: t.String(),
        citations: t.Array(Citation, { description: 'The sources this text cites (an extension); [n] in the text is citation n' }),
      }),
    ),
    usage: t.Object({ prompt_tokens: t.Integer(), completion_tokens: t.Integer(), total_tokens: t.Integer() }),
  },
  {
    title: 'TextCompletion',
    description: 'Or, with stream: true, text/event-stream of text_completion chunks ending with data: [DONE]',
  },
)
