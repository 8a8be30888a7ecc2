// The signed-in caller every service acts for, whichever credential it came with (session, API key, OAuth token).

export interface SessionUser {
  id: string
  email: string
  name: string | null
  /** Resolved at each request (plans.ts accountPlan), never the value stored at sign-up. */
  plan: string
}
