// What an API key may do. A key carries scopes chosen when it is made; each route needs one scope (or a person
// signed in), read from the table below. A session (the person in the dashboard or the extension) holds them all.
import { forbidden } from '../../http/errors'

export const KEY_SCOPES = ['read', 'write', 'keys'] as const
export type KeyScope = (typeof KEY_SCOPES)[number]

/** Keys made without a choice: read and write the person's knowledge, never manage keys. */
export const DEFAULT_KEY_SCOPES: KeyScope[] = ['read', 'write']

export const SCOPE_DESCRIPTIONS: Record<KeyScope, string> = {
  read: 'read: list, read, search and ask (also POST /api/ask, whose exchange is kept as a conversation, /v1/chat/completions, /v1/completions, /v1/embeddings); for a read-only widget',
  write: 'write: add, change and delete documents, memory drafts, workspaces, conversations, settings and connectors',
  keys: 'keys: list, create and revoke keys — only keys it made, with no more scopes than its own',
}

/** `person`: a person signed in with a session only, never a key (credentials, the account, approvals). */
export type Requirement = KeyScope | 'person'

// Routes that do not change anything though they are POSTs: they need `read`.
const READ_POSTS = new Set(['/api/ask', '/v1/chat/completions', '/v1/completions', '/v1/embeddings'])

// Routes a key never reaches, whatever its scopes: they change how the account is signed in to, or end it, or make a
// draft an agent proposed into a memory (the approval rule of src/modules/documents/approval.ts), or open the
// payment pages (Stripe's portal shows the billing details and cancels the plan).
const PERSON_ONLY = new Set([
  'DELETE /api/account',
  'POST /api/billing/checkout',
  'POST /api/billing/portal',
  'POST /api/documents/:id/approve',
  'POST /api/documents/:id/unapprove',
  'POST /api/auth/password',
  'GET /api/sessions',
  'DELETE /api/sessions',
  'DELETE /api/sessions/:id',
  'POST /api/auth/verify-email',
  'GET /api/auth/oauth/:provider/link',
])

/** What `method route` (Elysia's route pattern, e.g. /api/documents/:id) needs of its caller. */
export function requirementOf(method: string, route: string): Requirement {
  if (PERSON_ONLY.has(`${method} ${route}`)) return 'person'
  if (route === '/api/keys' || route.startsWith('/api/keys/')) return 'keys'
  if (method === 'GET' || method === 'HEAD' || READ_POSTS.has(route)) return 'read'
  return 'write'
}

/** The caller's scopes allow `requirement`, else 403 naming what is missing. */
export function assertAllowed(caller: { via: 'key' | 'session'; scopes: readonly KeyScope[] }, requirement: Requirement): void {
  if (caller.via === 'session') return
  if (requirement === 'person')
    throw forbidden(
      'this takes a person signed in (the dashboard): an API key never changes credentials, sessions, the account or billing, nor approves drafts',
    )
  if (!caller.scopes.includes(requirement))
    throw forbidden(`this API key lacks the "${requirement}" scope (it has: ${caller.scopes.join(', ') || 'none'}); create a key with it`)
}

/** Scopes from the database or a request, in the table's order, unknown ones dropped. */
export const asScopes = (values: readonly string[]): KeyScope[] => KEY_SCOPES.filter((scope) => values.includes(scope))
