// What each plan allows, and the 402 that names the limit and the plan that lifts it.
import type { Plan, PlanLimits } from './config'
import { PLANS } from './config'
import type { Deps } from './deps'
import { paymentRequired } from './http/errors'

export type Limit = Exclude<keyof PlanLimits, 'api_calls_per_month'>

const NAMES: Record<keyof PlanLimits, string> = {
  api_keys: 'API key',
  workspaces: 'workspace',
  documents: 'document',
  storage_bytes: 'storage',
  connectors: 'connector',
  search_per_min: 'search rate',
  ask_per_min: 'answer rate',
  embeddings_per_min: 'embedding rate',
  api_calls_per_month: 'monthly API call',
}

export const limitsOf = (deps: Deps, plan: string): PlanLimits => deps.config.plans[asPlan(plan)]

export const asPlan = (plan: string): Plan => ((PLANS as readonly string[]).includes(plan) ? (plan as Plan) : 'free')

/** Throws 402 when `used + adding` would pass the plan's limit. */
export function assertWithinLimit(deps: Deps, plan: string, limit: keyof PlanLimits, used: number, adding = 1): void {
  const max = limitsOf(deps, plan)[limit]
  if (max === null || used + adding <= max) return
  throw paymentRequired(limitMessage(deps, plan, limit))
}

export function limitMessage(deps: Deps, plan: string, limit: keyof PlanLimits): string {
  const max = limitsOf(deps, plan)[limit]
  const higher = PLANS.find((p) => {
    const other = deps.config.plans[p][limit]
    return other === null || (max !== null && other > max)
  })
  const shown = limit === 'storage_bytes' && max !== null ? `${max} bytes` : String(max)
  return `${NAMES[limit]} limit reached: the ${asPlan(plan)} plan allows ${shown}` + (higher ? `; upgrade to ${higher} for more` : '')
}
