// Where the service lives (the options page sets it), the workspace last saved to, and — only if the person pastes
// one — an API key, in extension storage. Without a key the service's own session cookie authenticates every call.
import { ext } from './browser'

export const DEFAULT_SERVICE_URL = 'http://localhost:3000'

/** Origins the manifest grants at install (a local service on any port); others are asked for at runtime. */
export const BUILT_IN_ORIGINS = ['http://localhost/*', 'http://127.0.0.1/*']

/** A service URL as typed → `scheme://host[:port][/path]` without a trailing slash, or an error naming what is wrong. */
export function normalizeServiceUrl(input: string): { url: string } | { error: string } {
  let u: URL
  // "localhost:3000" parses as a URL of scheme "localhost:": an address needs its scheme spelled out.
  if (!/^[a-z][a-z\d+.-]*:\/\//i.test(input.trim())) return { error: 'Enter a full address, such as http://localhost:3000' }
  try {
    u = new URL(input.trim())
  } catch {
    return { error: 'Enter a full address, such as http://localhost:3000' }
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: 'The address must start with http:// or https://' }
  if (u.username || u.password) return { error: 'The address must not contain a user name or password' }
  return { url: `${u.origin}${u.pathname}`.replace(/\/+$/, '') }
}

/** The host permission pattern that covers the service (match patterns take no port). */
export function originPattern(serviceUrl: string): string {
  const u = new URL(serviceUrl)
  return `${u.protocol}//${u.hostname}/*`
}

export async function getServiceUrl(): Promise<string> {
  const { serviceUrl } = await ext.storage.local.get(['serviceUrl'])
  return typeof serviceUrl === 'string' && serviceUrl ? serviceUrl : DEFAULT_SERVICE_URL
}

export async function setServiceUrl(url: string): Promise<void> {
  await ext.storage.local.set({ serviceUrl: url })
}

/**
 * The API key the person pasted in the options (created in the dashboard's API keys), or ''. With one, every call
 * sends it as a Bearer token instead of the cookie: the service's cookie rule (ALLOWED_ORIGINS, read at start) does
 * not apply to a key, so the extension works without a line added and a restart.
 */
export async function getApiKey(): Promise<string> {
  const { apiKey } = await ext.storage.local.get(['apiKey'])
  return typeof apiKey === 'string' ? apiKey : ''
}

/** '' removes it: back to the session cookie. */
export async function setApiKey(key: string): Promise<void> {
  await ext.storage.local.set({ apiKey: key })
}

/** The workspace the person saved to last (a context-menu save goes there too); null: the account's default. */
export async function getLastWorkspace(): Promise<string | null> {
  const { workspaceId } = await ext.storage.local.get(['workspaceId'])
  return typeof workspaceId === 'string' && workspaceId ? workspaceId : null
}

export async function setLastWorkspace(workspaceId: string | null): Promise<void> {
  await ext.storage.local.set({ workspaceId: workspaceId ?? '' })
}

export async function hasHostPermission(serviceUrl: string): Promise<boolean> {
  return ext.permissions.contains({ origins: [originPattern(serviceUrl)] })
}

/** Links into the dashboard: exactly these routes. */
export const dashboard = {
  signIn: (service: string) => `${service}/app/sign-in`,
  document: (service: string, id: string) => `${service}/app/documents/${encodeURIComponent(id)}`,
  search: (service: string, q: string) => `${service}/app/search?q=${encodeURIComponent(q)}`,
}
