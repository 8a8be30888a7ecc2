// Which real object each path parameter and id-valued field names during the fuzz: routes that delete get
// sacrificial objects, every other route the protected ones that must still exist afterwards.
import type { Actor, Fixtures } from './fixtures'

const RANDOM_UUID = '0190a000-0000-7000-8000-00000000f022'

/** True for operations that destroy what their path names (they get the sacrificial fixtures). */
export const destroys = (method: string, path: string) => method === 'DELETE' || path.endsWith('/forget')

/** The valid value of path parameter `name` of `method path`. New routes fall back to an unknown uuid (404). */
export function pathValue(f: Fixtures, method: string, path: string, name: string): string {
  const i = f.ids
  const doomed = destroys(method, path)
  if (name === 'provider') return 'github'
  if (name === 'wiki') return 'confluence'
  if (name === 'targetId') return i.linkedDoc
  if (path.startsWith('/api/documents/')) {
    if (path.endsWith('/approve')) return i.draftToApprove
    if (path.endsWith('/reject')) return i.draftToReject
    // DELETE …/links/{targetId} unlinks: its {id} is the protected document, which must survive it.
    if (path.includes('/links/')) return i.doc
    return doomed ? i.docToDelete : i.doc
  }
  if (path.startsWith('/api/workspaces/')) return doomed ? i.workspaceToDelete : i.workspace
  if (path.startsWith('/api/keys/')) return i.keyToDelete
  if (path.startsWith('/api/conversations/')) return doomed ? i.conversationToDelete : i.conversation
  if (path.startsWith('/api/connectors/connections/')) return i.connectionToDelete
  if (path.startsWith('/api/connectors/')) return doomed ? i.connectorToDelete : i.connector
  if (path.startsWith('/api/avatar/')) return i.avatar
  return RANDOM_UUID
}

/** The same kind of object, owned by the other user: it must answer exactly like a missing one. */
export function otherUsers(f: Fixtures, path: string, name: string): string {
  const o = f.other
  if (path.startsWith('/api/documents/')) return o.doc
  if (path.startsWith('/api/workspaces/')) return o.workspace
  if (path.startsWith('/api/keys/')) return o.key
  if (path.startsWith('/api/conversations/')) return o.conversation
  if (path.startsWith('/api/connectors/') && name === 'id') return o.connector
  return RANDOM_UUID
}

/** Valid values of body fields and query parameters, by name. */
export function namedValues(f: Fixtures, method: string, path: string): Record<string, unknown> {
  const i = f.ids
  const named: Record<string, unknown> = {
    workspace_id: i.workspace,
    default_workspace_id: i.workspace,
    target_id: i.linkedDoc,
    conversation_id: i.conversation,
    supersedes: i.doc,
    ids: [i.bulkDoc],
    password: 'correct horse battery',
    email: 'fuzz-valid@example.com',
    messages: [{ role: 'user', content: 'What fronts every service?' }],
    model: path === '/v1/embeddings' ? 'service-embed' : 'service-rag',
    input: 'quokka gateway',
    metadata: { note: 'fuzz' },
    config: {},
    q: 'quokka',
    question: 'What fronts every service?',
    message: 'What fronts every service?',
  }
  if (path === '/api/auth/sign-in') named.email = f.a.email
  if (path === '/mcp') Object.assign(named, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
  // The webhook declares no schema (its body is Stripe's event): the fuzz mutates an event of Stripe's shape.
  if (path === '/webhooks/stripe')
    named.__body = { id: 'evt_fuzz', type: 'checkout.session.completed', data: { object: { id: 'cs_fuzz' } } }
  void method
  return named
}

/** Who sends the request: sign-out and account deletion end their actor, so they get their own users. */
export function actorFor(f: Fixtures, path: string): Actor {
  if (path === '/api/account') return f.deleter
  if (path === '/api/auth/sign-out') return f.signer
  return f.a
}
