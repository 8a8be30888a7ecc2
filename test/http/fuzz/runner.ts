// Sends the variants a few at a time, each with a timeout, and judges every answer: no 5xx, no hang, no
// dropped connection, and every 4xx a JSON `{ error }` with a message.
import { ERROR_CODE_LIST } from '../../../src/http/error-codes'
import { rawRequest, RequestTimeout } from './raw-http'
import type { Variant } from './variants'

export interface Outcome {
  variant: Variant
  /** The HTTP status, or "timeout" / "dropped" when no answer came. */
  status: number | 'timeout' | 'dropped' | 'not sent'
  excerpt: string
  problem?: string
}

export interface RunOptions {
  concurrency: number
  timeoutMs: number
  /** A wedged server makes every later request time out too: stop after this many. */
  maxTimeouts: number
}

export async function runVariants(base: string, variants: Variant[], options: RunOptions): Promise<Outcome[]> {
  const url = new URL(base)
  const outcomes: Outcome[] = new Array(variants.length)
  let next = 0
  let timeouts = 0
  const worker = async () => {
    while (next < variants.length) {
      const i = next++
      const variant = variants[i]!
      if (timeouts >= options.maxTimeouts) {
        outcomes[i] = { variant, status: 'not sent', excerpt: '', problem: `not sent: the server stopped answering (${timeouts} timeouts)` }
        continue
      }
      outcomes[i] = await send(url, variant, options.timeoutMs)
      if (outcomes[i]!.status === 'timeout') timeouts++
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, worker))
  return outcomes
}

async function send(url: URL, variant: Variant, timeoutMs: number): Promise<Outcome> {
  try {
    const res = await rawRequest(
      url,
      { method: variant.method, target: variant.target, headers: variant.headers, body: variant.body },
      timeoutMs,
    )
    const excerpt = res.body.replace(/\s+/g, ' ').slice(0, 160)
    return {
      variant,
      status: res.status,
      excerpt,
      problem: judge(res.status, res.headers['content-type'], res.body, variant.op.endsWith(' /mcp'), / \/oauth\//.test(variant.op)),
    }
  } catch (error) {
    if (error instanceof RequestTimeout) return { variant, status: 'timeout', excerpt: '', problem: `hang: ${error.message}` }
    return { variant, status: 'dropped', excerpt: String(error), problem: `no answer: ${String(error)}` }
  }
}

/** Why the answer breaks the rule, or undefined when it keeps it. */
export function judge(status: number, contentType: string | undefined, body: string, jsonRpc = false, oauth = false): string | undefined {
  if (!Number.isInteger(status)) return 'no parsable status line'
  if (status >= 500) return `${status}`
  if (status < 400) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return `${status} without a JSON body (content-type ${contentType ?? 'none'})`
  }
  const error = (parsed as { error?: unknown } | null)?.error
  // MCP's transport answers in its protocol's own envelope: { jsonrpc: "2.0", error: { code, message } }.
  if (jsonRpc && (parsed as { jsonrpc?: unknown }).jsonrpc === '2.0' && typeof (error as { message?: unknown })?.message === 'string')
    return undefined
  // OAuth's endpoints answer RFC 6749's { error: <OAuth code>, error_description }.
  if (oauth && typeof error === 'string' && typeof (parsed as { error_description?: unknown }).error_description === 'string')
    return undefined
  // `{ error, code }`, or on /v1 OpenAI's `{ error: { message, type, param, code } }`; the code from the closed set.
  const { message, code } =
    typeof error === 'string'
      ? { message: error, code: (parsed as { code?: unknown }).code }
      : ((error ?? {}) as { message?: unknown; code?: unknown })
  if (typeof message !== 'string' || !message.trim())
    return `${status} body has no error message ({ error: string } or { error: { message } })`
  if (!ERROR_CODE_LIST.includes(code as never)) return `${status} body has no error code of the closed set: ${JSON.stringify(code)}`
  return undefined
}

/** "412 requests, 74 operations, 200×30 400×350 …" */
export function histogram(outcomes: Outcome[]): string {
  const counts = new Map<string, number>()
  for (const o of outcomes) counts.set(String(o.status), (counts.get(String(o.status)) ?? 0) + 1)
  return [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}×${count}`)
    .join(' ')
}

/** One line per failure, grouped so the same cause on many fields reads as one entry with a count. */
export function failureReport(outcomes: Outcome[]): string[] {
  const groups = new Map<string, { count: number; example: Outcome }>()
  const unsent = outcomes.filter((o) => o.status === 'not sent')
  for (const o of outcomes) {
    if (!o.problem || o.status === 'not sent') continue
    const group = `${o.variant.op} | ${o.variant.cls} | ${o.status} | ${o.excerpt.slice(0, 100)}`
    const g = groups.get(group)
    if (g) g.count++
    else groups.set(group, { count: 1, example: o })
  }
  const lines = [...groups.values()].map(
    ({ count, example: o }) =>
      `${o.variant.method} ${o.variant.op.split(' ')[1]} [${o.variant.cls}] ${o.variant.name.slice(0, 90)} → ${o.problem}: ${o.excerpt.slice(0, 120)}` +
      (count > 1 ? ` (×${count} similar)` : ''),
  )
  if (unsent.length)
    lines.push(
      `${unsent.length} requests not sent: the server had stopped answering (the first was ${unsent[0]!.variant.method} ${unsent[0]!.variant.target.slice(0, 80)})`,
    )
  return lines
}

/** Classes of input no route should take: a 2xx to one means the route accepted what its schema forbids. */
const NEVER_VALID = new Set(['non-object', 'malformed', 'wrong-type', 'nul', 'surrogate', 'deep', 'query-int'])

/** Not a failure of the fuzz (the issue asks for no 5xx), but a lead for the next fix: "METHOD /path [cls] name → 201". */
export function acceptedReport(outcomes: Outcome[]): string[] {
  const seen = new Map<string, number>()
  for (const o of outcomes) {
    if (typeof o.status !== 'number' || o.status >= 300 || !NEVER_VALID.has(o.variant.cls)) continue
    if (o.variant.op.endsWith(' /mcp')) continue // JSON-RPC answers 200 with its own error inside
    if (o.variant.name.includes('extra field')) continue // unknown fields may be ignored
    const line = `${o.variant.op} [${o.variant.cls}] ${o.variant.name.slice(0, 70)} → ${o.status}`
    seen.set(line, (seen.get(line) ?? 0) + 1)
  }
  return [...seen.keys()]
}
