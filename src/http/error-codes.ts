// The closed set of error codes: every error body carries one beside its message, the OpenAPI document declares
// them as an enum and the README lists them, all from this table, so a client tells cases apart without parsing
// English. A status maps to its default code; a thrower names another only where one status has two meanings.

/** Each code: the status it comes with, and what a client should do about it (the README's table). */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    action: 'Fix the request: `error` names the field, parameter or header that is wrong. Retrying it unchanged fails again.',
  },
  unauthenticated: {
    status: 401,
    action:
      'Send a valid API key (`Authorization: Bearer svc_…`) or sign in again: the key is missing, wrong, revoked or regenerated, or the session ended.',
  },
  plan_limit: {
    status: 402,
    action: 'A limit of your plan is reached (`error` names it): delete something, or upgrade to the plan the message names.',
  },
  forbidden: {
    status: 403,
    action:
      'These credentials may not do this (a cookie write from a foreign `Origin`, an MCP token outside `/mcp`, an API key approving a draft): use the credentials the message names.',
  },
  not_found: { status: 404, action: "No such object, route or model for you (another user's object is not found either): check the id." },
  method_not_allowed: { status: 405, action: 'The path exists with other methods: use one listed in `Allow`.' },
  conflict: {
    status: 409,
    action: 'The request conflicts with the current state (a taken email, a connector not connected): read the state again, then decide.',
  },
  idempotency_in_progress: {
    status: 409,
    action: 'A request with this `Idempotency-Key` is still running: retry after `Retry-After` seconds to get its answer.',
  },
  precondition_failed: {
    status: 412,
    action:
      '`If-Match` no longer matches: the object changed since you read it. Fetch it again (the answer carries the current `ETag`) and reapply your change.',
  },
  payload_too_large: {
    status: 413,
    action: 'The body (or a field of it, such as a document body over 1 MiB) is too large: send less, or split it.',
  },
  unsupported_media_type: {
    status: 415,
    action: 'Send the body as `application/json` (or the media type the operation names, such as a PNG, JPEG, WebP or GIF avatar).',
  },
  idempotency_key_reused: { status: 422, action: 'This `Idempotency-Key` was used with another request: use a new key for a new request.' },
  rate_limited: { status: 429, action: 'Wait `Retry-After` seconds (see `RateLimit-*`), then retry; or upgrade for a higher limit.' },
  headers_too_large: {
    status: 431,
    action: 'The request line and headers are over 256 KiB: shorten the query string or drop large headers.',
  },
  internal: { status: 500, action: 'A fault of the service: retry later; if it persists, report the `x-request-id`.' },
  provider_error: {
    status: 502,
    action: 'An upstream service (the chat model, Stripe, an OAuth or connector provider) failed: retry later.',
  },
  service_unavailable: {
    status: 503,
    action:
      'The service cannot serve this now: a dependency is not configured (billing, an OAuth provider; ask the operator), or it is starting or its database is down (retry later).',
  },
  model_unavailable: {
    status: 503,
    action: 'No model is loaded on this server (or it failed): retry later, or ask the operator to configure one.',
  },
  insufficient_storage: {
    status: 507,
    action:
      "The disk holding the service's data is full, or down to the reserve kept for reads (`DISK_RESERVE_MB`): reads work; ask the operator to free space, then retry — no restart is needed.",
  },
} as const satisfies Record<string, { status: number; action: string }>

export type ErrorCode = keyof typeof ERROR_CODES

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[]

/** The code of a status that has one meaning; the first code listed for a status is its default. */
const DEFAULT_BY_STATUS = new Map<number, ErrorCode>()
for (const code of ERROR_CODE_LIST)
  if (!DEFAULT_BY_STATUS.has(ERROR_CODES[code].status)) DEFAULT_BY_STATUS.set(ERROR_CODES[code].status, code)

export const codeForStatus = (status: number): ErrorCode =>
  DEFAULT_BY_STATUS.get(status) ?? (status >= 500 ? 'internal' : 'invalid_request')

/** OpenAI's error `type` for a status, as its SDKs and proxies read it. */
const openAiType = (status: number) => (status >= 500 ? 'server_error' : status === 429 ? 'requests' : 'invalid_request_error')

/** `/v1` speaks OpenAI's wire format, errors included. */
export const isOpenAiPath = (pathname: string) => pathname === '/v1' || pathname.startsWith('/v1/')

/** /mcp refuses a caller (401, 403) in JSON-RPC's envelope: the Python MCP SDK shows the `error.message` of a
 * JSON-RPC error body and, for any other body, only "Server returned an error response". */
export const isMcpRefusal = (pathname: string, status: number) => pathname === '/mcp' && (status === 401 || status === 403)

/** The code of those refusals: the one the MCP SDKs' transport gives its own HTTP-level refusals (406, 405, …).
 * Not -32001, which both SDKs read as their own request timeout. */
export const MCP_REFUSED = -32000

export type ErrorBody = { error: string; code: ErrorCode }
export type OpenAiErrorBody = { error: { message: string; type: string; param: null; code: ErrorCode } }
export type McpErrorBody = {
  jsonrpc: '2.0'
  id: string | number | null
  error: { code: number; message: string; data: { code: ErrorCode } }
}

/** The JSON-RPC id of a parsed /mcp body, when it has a usable one. */
export const rpcIdOf = (body: unknown): string | number | null => {
  const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : null
}

/**
 * The body of an error answer: `{ error, code }`; OpenAI's `{ error: { message, type, param, code } }` on /v1;
 * on /mcp's 401 and 403, a JSON-RPC error for the request `rpcId` with our code in `error.data.code`.
 */
export function errorBody(
  pathname: string,
  status: number,
  message: string,
  code: ErrorCode = codeForStatus(status),
  rpcId: string | number | null = null,
): ErrorBody | OpenAiErrorBody | McpErrorBody {
  if (isOpenAiPath(pathname)) return { error: { message, type: openAiType(status), param: null, code } }
  if (isMcpRefusal(pathname, status)) return { jsonrpc: '2.0', id: rpcId, error: { code: MCP_REFUSED, message, data: { code } } }
  return { error: message, code }
}

/** An error answer written outside the error mapper (before routing: CORS, 405, the path guard, startup). */
export function errorResponse(
  request: Request,
  status: number,
  message: string,
  options: { code?: ErrorCode; headers?: HeadersInit } = {},
): Response {
  const headers = new Headers(options.headers)
  headers.set('content-type', 'application/json')
  return new Response(JSON.stringify(errorBody(new URL(request.url).pathname, status, message, options.code)), { status, headers })
}
