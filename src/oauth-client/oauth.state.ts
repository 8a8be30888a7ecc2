// OAuth `state`: a random value sent to the provider, stored here only as its SHA-256 with what the flow
// needs back (the PKCE verifier, the user it is bound to, the purpose), expiring in ten minutes and usable
// once. A callback whose state is unknown, expired, spent or for another provider is refused.
import { and, eq, lt } from 'drizzle-orm'
import { generateCodeVerifier, generateState } from 'arctic'
import { oauthStates } from '../../db/schema'
import type { OAuthProvider } from '../config'
import type { Deps } from '../deps'
import { badRequest } from '../http/errors'
import { sha256Hex } from '../lib/crypto'

export const STATE_TTL_MS = 10 * 60_000

export interface IssuedState {
  state: string
  codeVerifier: string
}

export async function issueState(
  deps: Deps,
  provider: OAuthProvider,
  userId: string | null,
  payload: Record<string, unknown>,
): Promise<IssuedState> {
  const state = generateState()
  const codeVerifier = generateCodeVerifier()
  const now = deps.clock.now()
  // Spent and expired states are swept by whoever issues the next one.
  await deps.db.delete(oauthStates).where(lt(oauthStates.expires_at, now))
  await deps.db.insert(oauthStates).values({
    id: sha256Hex(state),
    user_id: userId,
    provider,
    code_verifier: codeVerifier,
    payload,
    expires_at: new Date(now.getTime() + STATE_TTL_MS),
  })
  return { state, codeVerifier }
}

/**
 * Takes the state (deleting it: single use) or throws 400 naming why. `provider` null accepts any provider
 * (one callback URL serves every connector type; the state says which it was).
 */
export async function consumeState(deps: Deps, provider: OAuthProvider | null, state: string | undefined) {
  if (!state) throw badRequest('state is missing from the callback')
  const [row] = await deps.db
    .delete(oauthStates)
    .where(and(eq(oauthStates.id, sha256Hex(state)), provider ? eq(oauthStates.provider, provider) : undefined))
    .returning()
  if (!row) throw badRequest('state is unknown or was already used: start again')
  if (row.expires_at.getTime() < deps.clock.now().getTime()) throw badRequest('state has expired: start again')
  return { userId: row.user_id, provider: row.provider as OAuthProvider, codeVerifier: row.code_verifier, payload: row.payload }
}
