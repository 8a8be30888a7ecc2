// The signed-in caller every service acts for, and the principal the auth macro makes of it: the caller with the
// credential it came with (API key or session) and the settings read with it.
import type { SettingsDto } from '../account/settings.model'
import type { KeyScope } from '../keys/key-scopes'

export interface SessionUser {
  id: string
  email: string
  name: string | null
  /** Resolved at each request (plans.ts accountPlan), never the value stored at sign-up. */
  plan: string
}

export interface Principal {
  user: SessionUser
  via: 'key' | 'session'
  /** The API key id (per-key rate limits), or the session id. */
  credentialId: string
  /** What the credential may do: a key's own scopes; a session holds them all. */
  scopes: readonly KeyScope[]
  /** The caller's settings, read with the credential (absent on principals made elsewhere, e.g. MCP's). */
  settings?: SettingsDto
}
