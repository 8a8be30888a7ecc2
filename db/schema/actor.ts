// Who acted for an account: recorded with each write (activity) and each version of a document.
/**
 * Who acted for the account: the person (a session: the dashboard or the extension), an API key (by label and
 * prefix, copied at the time: a revoked key is gone), an MCP client's OAuth grant, a connector, or the service
 * itself (a job). `surface` is the way in.
 */
export interface Actor {
  kind: 'person' | 'key' | 'oauth' | 'connector' | 'system'
  surface: 'dashboard' | 'extension' | 'rest' | 'mcp' | 'v1' | 'agent' | 'connector' | 'import' | 'job'
  /** The key, grant or connector id (null for the person and the service). */
  id: string | null
  /** The key's label, the OAuth client's name, the connector's name, or the job's. */
  label: string | null
  /** The key's first characters, as the keys list shows them. */
  prefix: string | null
}
