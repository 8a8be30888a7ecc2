// Schemas shared by every route: the error body, empty responses, ids in paths, and list pages.
import { t, type TSchema } from 'elysia'
import { CURSOR_PATTERN } from '../lib/cursor'
import { ERROR_CODE_LIST, type ErrorCode } from './error-codes'

type CodeLiteral = ReturnType<typeof t.Literal<ErrorCode>>

/** The closed set of error codes (src/http/error-codes.ts), an enum in the OpenAPI document. */
export const ErrorCodeSchema = t.Union(ERROR_CODE_LIST.map((code) => t.Literal(code)) as [CodeLiteral, ...CodeLiteral[]], {
  title: 'ErrorCode',
  description: 'What went wrong, as a stable code to branch on (the README lists each with what to do)',
})

/** The error body every route documents: `{ error, code }`, a message a person can act on and a code a program can. */
export const ErrorBody = t.Object({ error: t.String({ description: 'What is wrong, for a person' }), code: ErrorCodeSchema }, { title: 'Error' })

/** /v1's error body, OpenAI's shape (its SDKs read `error.message` and `error.code`), with our code in `code`. */
export const OpenAiErrorBody = t.Object(
  {
    error: t.Object({
      message: t.String(),
      type: t.String({ description: "OpenAI's error type: invalid_request_error, requests (rate limited) or server_error" }),
      param: t.Null(),
      code: ErrorCodeSchema,
    }),
  },
  { title: 'OpenAIError' },
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

/** The largest integer a query string may carry: src/http/formats.ts reads at most 15 digits. */
export const MAX_QUERY_INTEGER = 999_999_999_999_999

/** `?limit=` 1–100 (default 20) and an opaque `?cursor=` from the previous page's `next_cursor`. */
export const PageQuery = {
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, error: 'limit must be an integer from 1 to 100' })),
  cursor: t.Optional(t.String({ pattern: CURSOR_PATTERN, error: 'cursor must be the next_cursor of a previous page (22 characters)' })),
}

export const Page = <T extends TSchema>(item: T, title: string) =>
  t.Object({ data: t.Array(item), next_cursor: t.Nullable(t.String()) }, { title })
