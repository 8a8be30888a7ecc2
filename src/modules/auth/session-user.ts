// The signed-in caller every service acts for, and the principal the auth macro makes of it: the caller with the
// credential it came with (API key or session) and the settings read with it.
import type { Actor } from '../../../db/schema/actor'
import type { SettingsDto } from '../account/settings.model'
import type { KeyScope } from '../keys/key-scopes'

export interface SessionUser {
  id: string
  email: string
  name: string | null
  /** Resolved at each request (plans.ts accountPlan), never the value stored at sign-up. */
  plan: string
  /** Who acts for the user on this request (the auth macro, MCP, the agent, a connector or a job says so): what
   * the activity record and a document's versions name. Absent: the service itself. */
  actor?: Actor
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

/** The person, signed in: the dashboard (the extension, by its origin, says so in the auth macro). */
export const PERSON: Actor = { kind: 'person', surface: 'dashboard', id: null, label: null, prefix: null }

/** The service itself, acting for no one in particular (a job, a migration of data). */
export const SYSTEM: Actor = { kind: 'system', surface: 'job', id: null, label: null, prefix: null }

/** `user` acting through another way in: the same credential, through the agent or MCP. */
export const viaSurface = (user: SessionUser, surface: Actor['surface']): SessionUser => ({
  ...user,
  actor: { ...(user.actor ?? SYSTEM), surface },
})

export type { Actor }

/** Who a write by `user` is recorded as made by. */
export const actorOf = (user: SessionUser): Actor => user.actor ?? SYSTEM
