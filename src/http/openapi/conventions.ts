// What every operation of /openapi/json says beyond its route's schemas: its method-like name and short
// summary, `security: []` when public, parameter descriptions, the headers of README "HTTP conventions"
// (Idempotency-Key, If-Match, If-None-Match, ETag, Location, RateLimit-*, Retry-After, x-request-id), the
// answers they bring (304, 409, 412, 422), and the event streams declared as `text/event-stream`.
import { FORMAT_CONTENT_TYPES } from '../../files/file-format'
import { requirementOf } from '../../modules/keys/key-scopes'
import { OPERATIONS, PARAMETERS } from './operations'
import { AnswerEvent, ChatCompletionChunk, CompletionChunk, ResponseStreamEvent } from './streams'

type Json = Record<string, any>

/** The error body of an operation: `{ error, code }`, or OpenAI's shape on /v1 (src/http/error-codes.ts). */
const errorContent = (path: string) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${path.startsWith('/v1/') ? 'OpenAIError' : 'Error'}` } },
})
const header = (name: string) => ({ $ref: `#/components/headers/${name}` })
const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` })

export const HEADERS: Json = {
  RequestId: {
    description: 'The id of this request (yours from `x-request-id` if you sent one), also in the log',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'A strong validator of the representation: send it back in If-None-Match (304) or If-Match (412 if changed)',
    schema: { type: 'string' },
  },
  Location: { description: 'The path of the created object', schema: { type: 'string' } },
  RateLimitLimit: { description: 'Requests allowed per minute on your plan', schema: { type: 'integer' } },
  RateLimitRemaining: { description: 'Requests left in this minute', schema: { type: 'integer' } },
  RateLimitReset: { description: 'Seconds until the minute resets', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
  IdempotentReplayed: {
    description: '`true` when this is the replay of an earlier answer to the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
}

export const PARAMETER_COMPONENTS: Json = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe (Stripe semantics): the same key with the same request replays the first answer for 24 hours; with another body it is a 422; while the first still runs the retry waits, then 409. 1–255 printable ASCII characters, a UUID for example. Not with a streamed answer.',
    schema: { type: 'string', pattern: '^[ -~]{1,255}$' },
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'Only if the object still has this ETag (from your last read); otherwise 412 and nothing changes',
    schema: { type: 'string' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An ETag you hold: 304 with no body while it is current',
    schema: { type: 'string' },
  },
}

/** What each answer means, where the route says no more than its status. */
const STATUS: Record<string, string> = {
  200: 'OK',
  201: 'Created (Location names it)',
  202: 'Accepted',
  400: 'Invalid request: `error` names what is wrong',
  401: 'No valid API key, token or session',
  402: 'A limit of your plan is reached: `error` says which, and the plan that lifts it',
  403: 'Not allowed with these credentials (or from this origin)',
  404: "Not found (another user's object is not found either)",
  409: 'Conflicts with the current state (`code` conflict), or an Idempotency-Key still in progress (`code` idempotency_in_progress)',
  412: 'If-Match does not match the current ETag: nothing changed',
  413: 'The body is too large',
  415: 'Unsupported media type',
  422: 'This Idempotency-Key was used with another request',
  429: 'Rate limited: retry after Retry-After seconds',
  502: 'An upstream service (model provider, Stripe, a connector) failed',
  503: 'Not available on this server: no model loaded (`code` model_unavailable), or not configured (`code` service_unavailable)',
}

/** Single-object reads and writes that carry an ETag (README "HTTP conventions"). */
const ETAGGED = [
  '/api/documents/{id}',
  '/api/workspaces/{id}',
  '/api/conversations/{id}',
  '/api/settings',
  '/api/profile',
  '/api/connectors/{id}',
]
/**
 * Operations whose 200 may be `text/event-stream`, and the schema of one event. /api/ask and /api/agent/chat
 * stream by default and answer JSON when asked (`Accept: application/json`, `"stream": false`); /v1 the other
 * way round (`"stream": true`). Both are declared, JSON first, so generators give the typed method JSON.
 */
const STREAMS: Record<string, { schema: Json; byDefault: boolean }> = {
  'POST /api/ask': { schema: AnswerEvent, byDefault: true },
  'POST /api/agent/chat': { schema: AnswerEvent, byDefault: true },
  'POST /v1/chat/completions': { schema: ChatCompletionChunk, byDefault: false },
  'POST /v1/responses': { schema: ResponseStreamEvent, byDefault: false },
  'POST /v1/completions': { schema: CompletionChunk, byDefault: false },
}
export const STREAM_SCHEMAS = { AnswerEvent, ChatCompletionChunk, CompletionChunk, ResponseStreamEvent }

/** `/api/documents/{id}/links` → "The document's id". */
function idOf(path: string): string {
  const collection = /([a-z]+)\/\{id\}/.exec(path)?.[1] ?? 'object'
  return `The ${collection.replace(/s$/, '')}'s id`
}

const streamRef = (schema: Json) => ({ $ref: `#/components/schemas/${schema.title}` })

/** What an API key needs for the operation (key-scopes.ts), as `x-key-scope` and a line of its description. */
function describeScope(path: string, method: string, op: Json): void {
  const need = requirementOf(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'))
  op['x-key-scope'] = need
  op.description = [
    op.description,
    need === 'person'
      ? 'Key scope: none — a person signed in only (API keys get 403).'
      : `Key scope: \`${need}\` (a key without it gets 403; a session holds every scope).`,
  ]
    .filter(Boolean)
    .join('\n\n')
}

export function annotate(key: string, path: string, method: string, op: Json): void {
  const named = OPERATIONS[key]
  const routeText = [op.summary, op.description].filter(Boolean).join('\n\n')
  if (named) {
    op.operationId = named[0]
    op.summary = named[1]
    op.description = routeText || named[1]
  }
  const isPublic = !op.security?.length
  if (isPublic) op.security = []
  for (const p of op.parameters ?? []) {
    if (p.$ref) continue
    p.description ??= p.schema?.description ?? PARAMETERS[p.name] ?? (p.name === 'id' ? idOf(path) : undefined)
  }
  // A JSON body whose every field is optional may be left out altogether: the server takes none as `{}`.
  const body = op.requestBody?.content?.['application/json']?.schema
  if (body?.type === 'object' && !body.required?.length && !body.minProperties) op.requestBody.required = false
  // Binary answers are not JSON: the avatar is image bytes under the image's own type.
  if (key === 'GET /api/avatar/{id}' && op.responses?.['200']) {
    const binary = { schema: { type: 'string', format: 'binary' } }
    op.responses['200'].content = { 'image/png': binary, 'image/jpeg': binary, 'image/webp': binary, 'image/gif': binary }
  }
  // An uploaded file's original comes back under its own format's type (src/files/formats.ts).
  if (key === 'GET /api/documents/{id}/file' && op.responses?.['200']) {
    const binary = { schema: { type: 'string', format: 'binary' } }
    op.responses['200'].content = Object.fromEntries(Object.values(FORMAT_CONTENT_TYPES).map((type) => [type.split(';')[0]!, binary]))
  }
  // The account archive is a zip both ways: the export's answer, and the import's body (multipart or bare).
  if (key === 'GET /api/account/export' && op.responses?.['200'])
    op.responses['200'].content = { 'application/zip': { schema: { type: 'string', format: 'binary' } } }
  if (key === 'POST /api/account/import' && op.requestBody?.content)
    op.requestBody.content['application/zip'] = { schema: { type: 'string', format: 'binary' } }
  const responses: Json = (op.responses ??= {})
  const ERROR = errorContent(path)
  if (!isPublic && key !== 'POST /mcp') {
    describeScope(path, method, op)
    responses['403'] ??= { description: 'The API key lacks the scope this operation needs, or it takes a person signed in', content: ERROR }
  }
  const params: Json[] = (op.parameters ??= [])

  // Idempotency-Key: every authenticated write; the routes that stream by default refuse it.
  const stream = STREAMS[key]
  const writes = ['post', 'patch', 'delete'].includes(method) && !isPublic
  const idempotent = writes && !stream?.byDefault && key !== 'POST /mcp'
  if (idempotent) {
    params.push(parameter('IdempotencyKey'))
    responses['400'] ??= {
      description: 'Invalid request (an Idempotency-Key that is not 1–255 printable ASCII characters)',
      content: ERROR,
    }
    responses['409'] ??= {
      description: 'A request with this Idempotency-Key is still in progress (retry after Retry-After)',
      content: ERROR,
    }
    responses['422'] ??= { description: 'This Idempotency-Key was used with another request', content: ERROR }
  }
  // The edge refuses before any route (src/http/input-guard.ts, body-limit.ts): these apply to every operation.
  responses['431'] ??= {
    description: 'The request line and headers together are larger than 256 KiB (a long query string)',
    content: ERROR,
  }
  if (op.requestBody) responses['413'] ??= { description: STATUS[413], content: ERROR }
  if (ETAGGED.includes(path)) {
    if (method === 'get') {
      params.push(parameter('IfNoneMatch'))
      responses['304'] = { description: 'Not modified: your ETag is current', headers: { ETag: header('ETag') } }
    }
    if ((method === 'patch' || method === 'delete') && responses['412']) params.push(parameter('IfMatch'))
  }
  if (stream) {
    const ok = (responses['200'] ??= { description: 'OK' })
    ok.content = { ...ok.content, 'text/event-stream': { schema: streamRef(stream.schema) } }
    ok.description = stream.byDefault
      ? 'A stream of server-sent events; with `Accept: application/json` or `"stream": false`, the whole answer as one JSON object'
      : 'The answer; with `"stream": true`, a stream of server-sent events'
  }
  // Registration and sign-in count per address and per email, not per minute of a plan: no RateLimit-* there.
  const limited = Boolean(responses['429']) && key !== 'POST /oauth/register' && key !== 'POST /api/auth/sign-in'
  for (const [status, response] of Object.entries(responses) as [string, Json][]) {
    if (response.$ref) continue
    if (/^Response for status \d+$/.test(response.description ?? '') && STATUS[status]) response.description = STATUS[status]
    const headers: Json = (response.headers ??= {})
    headers['x-request-id'] = header('RequestId')
    if (status === '201') headers.Location = header('Location')
    if (ETAGGED.includes(path) && status === '200' && method !== 'delete') headers.ETag = header('ETag')
    if (limited) {
      headers['RateLimit-Limit'] = header('RateLimitLimit')
      headers['RateLimit-Remaining'] = header('RateLimitRemaining')
      headers['RateLimit-Reset'] = header('RateLimitReset')
    }
    if (status === '429' || (status === '409' && idempotent)) headers['Retry-After'] = header('RetryAfter')
    if (idempotent && /^[24]/.test(status)) headers['Idempotent-Replayed'] = header('IdempotentReplayed')
  }
  if (!params.length) delete op.parameters
}
