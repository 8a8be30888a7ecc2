// Schemas shared by every route: the error body, empty responses, ids in paths, and list pages.
import { t, type TSchema } from 'elysia'
import { FormatRegistry, TypeRegistry } from 'elysia/type-system'
import { CURSOR_PATTERN } from '../lib/cursor'
import { TIME_FORMS } from '../lib/time-range'
import { ERROR_CODE_LIST, type ErrorCode, MCP_REFUSED } from './error-codes'

type CodeLiteral = ReturnType<typeof t.Literal<ErrorCode>>

/** The closed set of error codes (src/http/error-codes.ts), an enum in the OpenAPI document. */
export const ErrorCodeSchema = t.Union(ERROR_CODE_LIST.map((code) => t.Literal(code)) as [CodeLiteral, ...CodeLiteral[]], {
  title: 'ErrorCode',
  description: 'What went wrong, as a stable code to branch on (the README lists each with what to do)',
})

/** The error body every route documents: `{ error, code }`, a message a person can act on and a code a program can. */
export const ErrorBody = t.Object(
  { error: t.String({ description: 'What is wrong, for a person' }), code: ErrorCodeSchema },
  { title: 'Error' },
)

/** /v1's error body, OpenAI's shape (its SDKs read `error.message` and `error.code`), with our code in `code`. */
export const OpenAiErrorBody = t.Object(
  {
    error: t.Object({
      message: t.String(),
      type: t.String({ description: "OpenAI's error type: invalid_request_error, requests (rate limited) or server_error" }),
      param: t.Nullable(t.String(), { description: 'The request member at fault; null here' }),
      code: ErrorCodeSchema,
    }),
  },
  { title: 'OpenAIError' },
)

/** /mcp's 401 and 403: a JSON-RPC error (MCP clients show `error.message`), our code in `error.data.code`. */
export const McpErrorBody = t.Object(
  {
    jsonrpc: t.Literal('2.0'),
    id: t.Union([t.String(), t.Integer(), t.Null()], { description: "The request's id, null when it had none" }),
    error: t.Object({ code: t.Literal(MCP_REFUSED), message: t.String(), data: t.Object({ code: ErrorCodeSchema }) }),
  },
  { title: 'McpError' },
)

/** `errors(400, 404)` → the response map entries for those statuses. */
export function errors<const S extends number>(...statuses: S[]): Record<S, typeof ErrorBody> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorBody])) as Record<S, typeof ErrorBody>
}

/** `openAiErrors(400, 404)`: the same for /v1, in OpenAI's error shape. */
export function openAiErrors<const S extends number>(...statuses: S[]): Record<S, typeof OpenAiErrorBody> {
  return Object.fromEntries(statuses.map((s) => [s, OpenAiErrorBody])) as Record<S, typeof OpenAiErrorBody>
}

export const NoContent = t.Void({ description: 'No content' })

export const Uuid = (description?: string) => t.String({ format: 'uuid', error: 'must be a UUID', description })

export const IdParams = t.Object({ id: Uuid() })

export const Timestamp = t.String({ format: 'date-time' })

/** A time a list or search filters by: a date-time or a date (read strictly by lib/time-range.ts's readTimeRange). */
export const TimeBound = (name: 'after' | 'before', description: string) =>
  t.Union([t.String({ format: 'date', maxLength: 10 }), t.String({ format: 'date-time', maxLength: 40 })], {
    description: `${description}. ${TIME_FORMS[0]!.toUpperCase()}${TIME_FORMS.slice(1)}; a + in a time zone is sent as %2B`,
    error: `${name} must be ${TIME_FORMS}`,
  })

/** `?after=` and `?before=`: only what happened (documents.occurred_at) in [after, before). */
export const TimeQuery = {
  after: t.Optional(TimeBound('after', 'Only what happened (occurred_at) at or after this time: inclusive')),
  before: t.Optional(TimeBound('before', 'Only what happened (occurred_at) before this time: exclusive')),
}

/** The largest integer a query string may carry: src/http/formats.ts reads at most 15 digits. */
export const MAX_QUERY_INTEGER = 999_999_999_999_999

/** `?limit=` 1–100 (default 20) and an opaque `?cursor=` from the previous page's `next_cursor`. */
export const PageQuery = {
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, error: 'limit must be an integer from 1 to 100' })),
  cursor: t.Optional(t.String({ pattern: CURSOR_PATTERN, error: 'cursor must be the next_cursor of a previous page (22 characters)' })),
}

export const Page = <T extends TSchema>(item: T, title: string) =>
  t.Object({ data: t.Array(item), next_cursor: t.Nullable(t.String()) }, { title })

// A string whose minLength and maxLength count characters (Unicode code points), as JSON Schema does and as
// PostgreSQL's varchar does. t.String counts UTF-16 units (`value.length`), so 60 emoji (120 units) were
// refused as "more than 100 characters" though the document allows them. Same schema in the document;
// checked here (pattern with the `u` flag, and the named format) by its own kind.
// Compiled once per pattern: this check runs on every request that carries a bounded string.
const patterns = new Map<string, RegExp>()
const patternOf = (source: string) => patterns.get(source) ?? patterns.set(source, new RegExp(source, 'u')).get(source)!

TypeRegistry.Set<TextOptions>('Text', (schema, value) => {
  if (typeof value !== 'string') return false
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    let n = 0
    for (const _ of value) if (++n > (schema.maxLength ?? Infinity)) return false
    if (n < (schema.minLength ?? 0)) return false
  }
  if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) return false
  if (schema.format !== undefined) {
    const check = FormatRegistry.Get(schema.format)
    if (!check?.(value)) return false
  }
  return true
})

// TypeBox's Kind symbol (a registered symbol, so the same one TypeBox reads).
const Kind = Symbol.for('TypeBox.Kind')
type StringOptions = NonNullable<Parameters<typeof t.String>[0]>
type TextOptions = Pick<StringOptions, 'minLength' | 'maxLength' | 'pattern' | 'format' | 'description' | 'default' | 'examples'> & {
  error?: string
}

/** t.String with lengths in characters; its `error` says the bounds when none is given. */
export function Text(options: TextOptions) {
  const bounds =
    options.minLength && options.maxLength !== undefined
      ? `must be ${options.minLength} to ${options.maxLength} characters`
      : options.maxLength !== undefined
        ? `must be at most ${options.maxLength} characters`
        : `must be at least ${options.minLength} characters`
  return t.Unsafe<string>({ error: bounds, ...options, type: 'string', [Kind]: 'Text' })
}
