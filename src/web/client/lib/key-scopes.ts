// What an API key may do, in the words the API uses (src/modules/keys/key-scopes.ts): the browser cannot import
// the server's file, so test/web/key-scopes.test.ts holds this copy to it word for word.
export const KEY_SCOPES = ['read', 'write', 'keys'] as const
export type KeyScope = (typeof KEY_SCOPES)[number]

/** What a new key gets unless the person chooses otherwise (the API's own default). */
export const DEFAULT_KEY_SCOPES: readonly KeyScope[] = ['read', 'write']

export const SCOPE_DESCRIPTIONS: Record<KeyScope, string> = {
  read: 'read: list, read, search and ask (also POST /api/ask, whose exchange is kept as a conversation, /v1/chat/completions, /v1/completions, /v1/embeddings); for a read-only widget',
  write: 'write: add, change and delete documents, memory drafts, workspaces, conversations, settings and connectors',
  keys: 'keys: list, create and revoke keys — only keys it made, with no more scopes than its own',
}
