// Calls of the service's API with the dashboard's session cookie (credentials: include) — or, when the person pasted
// one in the options, an API key as a Bearer token (no cookie) — and what each failure means for the person.
import { extensionOrigin } from './browser'
import { getApiKey } from './settings'

/** Why a call failed, in the terms the popup explains: each kind has its own remedy. */
export type Problem =
  | { kind: 'unreachable'; message: string }
  | { kind: 'signed-out'; message: string }
  | { kind: 'origin-refused'; message: string; setting: string }
  | { kind: 'failed'; status: number; message: string }

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message)
  }
}

export interface User {
  id: string
  email: string
  name: string | null
}

export interface Workspace {
  id: string
  name: string
}

export interface SavedDocument {
  id: string
  title: string
  url: string | null
  deduplicated: boolean
}

/** An uploaded file's state: its text is read in the background (processing), then done or failed with the reason. */
export interface FileState {
  name: string
  format: string
  status: 'processing' | 'done' | 'failed'
  error: string | null
}

export interface UploadedDocument extends SavedDocument {
  file: FileState
}

export interface SearchHit {
  document: { id: string; title: string; url: string | null }
  snippet: string
}

export interface IngestInput {
  title: string
  body: string
  url?: string
  excerpt?: string
  kind: 'webpage' | 'note'
  tags?: string[]
  workspace_id?: string
  metadata?: Record<string, unknown>
}

/** The line that lets this extension write with the cookie: the service refuses cookie writes from other origins (CSRF). */
export function allowedOriginsSetting(): string {
  return `ALLOWED_ORIGINS=${extensionOrigin()}`
}

async function call<T>(service: string, method: string, path: string, body?: unknown): Promise<T> {
  const key = await getApiKey()
  let res: Response
  try {
    res = await fetch(service + path, {
      method,
      credentials: key ? 'omit' : 'include',
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        // A FormData body sets its own multipart content type, boundary included.
        ...(body === undefined || body instanceof FormData ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
    })
  } catch {
    throw new ApiError({ kind: 'unreachable', message: `Cannot reach the service at ${service}. Is it running, and is the address right?` })
  }
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    // Not JSON: a proxy's page or not this service at all; reported below by status.
  }
  if (res.ok) return parsed as T
  const error =
    typeof (parsed as { error?: unknown } | null)?.error === 'string' ? (parsed as { error: string }).error : `HTTP ${res.status}`
  if (res.status === 401 && key)
    throw new ApiError({
      kind: 'failed',
      status: 401,
      message: `${service} refused the API key in the extension's options (revoked or mistyped). Paste a new one there, or remove it to use the dashboard's sign-in.`,
    })
  if (res.status === 401)
    throw new ApiError({
      kind: 'signed-out',
      message: `You are not signed in to ${service}. Sign in to its dashboard, then open this again.`,
    })
  // The service's CSRF rule: a cookie-authenticated write from an origin missing from ALLOWED_ORIGINS.
  if (res.status === 403 && /origin/i.test(error)) {
    const setting = allowedOriginsSetting()
    throw new ApiError({
      kind: 'origin-refused',
      setting,
      message:
        'The service does not accept saves from this extension yet. Add this line to its environment (several origins: separate them with commas) and restart it:',
    })
  }
  if (res.status === 429) {
    const wait = res.headers.get('retry-after')
    throw new ApiError({ kind: 'failed', status: 429, message: wait ? `${error} Try again in ${wait} s.` : error })
  }
  throw new ApiError({ kind: 'failed', status: res.status, message: error })
}

export const getSession = (service: string) => call<{ user: User }>(service, 'GET', '/api/auth/session').then((r) => r.user)

export async function listWorkspaces(service: string): Promise<Workspace[]> {
  const page = await call<{ data: Workspace[] }>(service, 'GET', '/api/workspaces?limit=100')
  return page.data
}

export async function getDefaultWorkspace(service: string): Promise<string | null> {
  const settings = await call<{ default_workspace_id: string | null }>(service, 'GET', '/api/settings')
  return settings.default_workspace_id
}

/**
 * Whether the service lets this extension write with the cookie, asked before the person fills the form: an empty
 * ingest is authenticated (and its Origin checked) before its body is validated, so 403 means refused and 400 allowed.
 * Nothing is stored either way.
 */
export async function checkWritesAllowed(service: string): Promise<void> {
  try {
    await call(service, 'POST', '/api/documents', {})
  } catch (error) {
    if (error instanceof ApiError && error.problem.kind === 'failed' && error.problem.status === 400) return
    throw error
  }
}

export const saveDocument = (service: string, input: IngestInput) =>
  call<SavedDocument>(service, 'POST', '/api/documents', { ...input, source: 'extension' })

/** A file as the dashboard would upload it (multipart): 202 processing, or 200 when the same file is already there. */
export function uploadFile(
  service: string,
  file: { bytes: Uint8Array; name: string; type: string },
  fields: { workspace_id?: string; tags?: string[] } = {},
): Promise<UploadedDocument> {
  const form = new FormData()
  form.append('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type }), file.name)
  if (fields.workspace_id) form.append('workspace_id', fields.workspace_id)
  if (fields.tags?.length) form.append('tags', fields.tags.join(','))
  return call<UploadedDocument>(service, 'POST', '/api/documents/files', form)
}

export const getDocument = (service: string, id: string) =>
  call<{ id: string; title: string; file?: FileState }>(service, 'GET', `/api/documents/${encodeURIComponent(id)}`)

export async function search(service: string, q: string, limit = 8): Promise<SearchHit[]> {
  const found = await call<{ results: SearchHit[] }>(service, 'GET', `/api/search?q=${encodeURIComponent(q)}&limit=${limit}`)
  return found.results
}

export function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) return error.problem
  return { kind: 'failed', status: 0, message: error instanceof Error ? error.message : String(error) }
}
