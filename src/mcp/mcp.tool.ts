// What every MCP tool shares: the REST caller it adapts, one call with the API's errors as ToolFailures, and
// the wrapper that turns a tool's outcome into a structured result or an isError result, never a crash.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { Logger } from '../log'

/** One call of the service's REST API with the caller's key; stdio fetches over HTTP, /mcp calls the app in-process. */
export type ApiCaller = (method: string, path: string, body?: unknown, signal?: AbortSignal) => Promise<Response>

/** A tool's request body as sent: a form (a file upload) as multipart, anything else as JSON. */
export function encodeBody(body: unknown): { body?: BodyInit; headers: Record<string, string> } {
  if (body === undefined) return { headers: {} }
  if (body instanceof FormData) return { body, headers: {} } // the boundary goes in the content-type fetch writes
  return { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
}

export const NO_TOKEN_MESSAGE = 'no API token: set SERVICE_TOKEN or pass --token'

/** A failure the caller can act on: its message is what the tool answers. */
export class ToolFailure extends Error {}

/** `/api/search?q=…` with the defined parameters only. */
export function withQuery(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value))
  const text = query.toString()
  return text ? `${path}?${text}` : path
}

/** The response of a 2xx answer; any other status becomes a ToolFailure carrying the API's `{ error }` and status. */
export async function callApi(api: ApiCaller, method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  const res = await api(method, path, body, signal)
  if (res.ok) return res
  const text = await res.text().catch(() => '')
  let message = text.trim() || res.statusText || 'request failed'
  try {
    const parsed = JSON.parse(text) as { error?: unknown }
    if (typeof parsed.error === 'string') message = parsed.error
  } catch {
    // Not JSON (a proxy's error page): the text itself is the best message there is.
  }
  throw new ToolFailure(`${message} (HTTP ${res.status} from ${method} ${path.split('?')[0]})`)
}

export async function callJson<T>(api: ApiCaller, method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const res = await callApi(api, method, path, body, signal)
  return (await res.json()) as T
}

type Extra = { signal: AbortSignal }
type Run<A> = (api: ApiCaller, args: A, signal: AbortSignal) => Promise<Record<string, unknown>>

/**
 * The tool callback around `run`: its object becomes structuredContent plus the same JSON as text (for clients
 * that read only text, as the MCP spec recommends); any failure becomes an isError result with its message.
 * Without an API caller (no token) every tool says how to give one.
 */
export function toolHandler<A>(name: string, api: ApiCaller | null, log: Logger | undefined, run: Run<A>) {
  return async (args: A, extra: Extra): Promise<CallToolResult> => {
    if (!api) return toolError(NO_TOKEN_MESSAGE)
    try {
      const structured = await run(api, args, extra.signal)
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured }
    } catch (error) {
      if (error instanceof ToolFailure) return toolError(error.message)
      // Not the API's answer: the service is unreachable or answered something unreadable.
      log?.warn('mcp tool failed', { tool: name, error: String(error) })
      return toolError(`${name} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true }
}
