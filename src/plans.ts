// What each plan allows, which plan an account is on, and the 402 that names the limit and what lifts it.
import { sql, type SQL } from 'drizzle-orm'
import { t } from 'elysia'
import { subscriptions, users } from '../db/schema'
import type { Config, Plan, PlanLimits } from './config'
import { PLANS } from './config'
import type { Deps } from './deps'
import { paymentRequired } from './http/errors'

export type Limit = Exclude<keyof PlanLimits, 'api_calls_per_month'>

/** A plan's name, as every response that shows one (user, usage, keys' tier, billing) declares it. */
export const PlanName = t.UnionEnum([...PLANS], {
  description: 'The plan every limit is read from: free, pro or unlimited',
  // UnionEnum would otherwise document its first value as a default; it is only ever an answer.
  default: undefined,
})

/** Plans a subscription grants; any other account is on DEFAULT_PLAN. */
const BILLED_PLANS: readonly Plan[] = ['pro']
/** Subscription statuses that keep the paid plan (past_due keeps it while Stripe retries the payment). */
export const PAYING_STATUSES = ['active', 'trialing', 'past_due'] as const

/**
 * The account's plan, as a column of any query over `users`: the plan of its paying subscription, else
 * DEFAULT_PLAN as configured now — so changing DEFAULT_PLAN and restarting moves every such account.
 */
export function accountPlan(config: Pick<Config, 'defaultPlan'>): SQL<Plan> {
  return sql<Plan>`coalesce((select ${subscriptions.plan} from ${subscriptions} where ${subscriptions.user_id} = ${users.id}
    and ${subscriptions.status} in (${sql.join(
      PAYING_STATUSES.map((s) => sql`${s}`),
      sql`, `,
    )})
    and ${subscriptions.plan} in (${sql.join(
      BILLED_PLANS.map((p) => sql`${p}`),
      sql`, `,
    )})), ${config.defaultPlan})`
}

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
  file_bytes: 'file size',
  file_pages: 'page',
}

export const limitsOf = (deps: Deps, plan: string): PlanLimits => deps.config.plans[asPlan(plan)]

export const asPlan = (plan: string): Plan => ((PLANS as readonly string[]).includes(plan) ? (plan as Plan) : 'free')

/**
 * How an account's files are read (src/files/extract-file.ts): the service's time, memory and unpacking limits
 * (FILE_*), and its plan's largest file and most pages (null, unlimited, as the largest numbers there are).
 */
export function fileLimits(deps: Deps, plan: string) {
  const limits = limitsOf(deps, plan)
  return {
    ...deps.config.files,
    maxBytes: limits.file_bytes ?? Number.MAX_SAFE_INTEGER,
    maxPages: limits.file_pages ?? Number.MAX_SAFE_INTEGER,
  }
}

/** True when `total` is past `max` (null: no limit). */
export const exceeds = (total: number, max: number | null): boolean => max !== null && total > max

/** Throws 402 when `used + adding` would pass the plan's limit. */
export function assertWithinLimit(deps: Deps, plan: string, limit: keyof PlanLimits, used: number, adding = 1): void {
  if (!exceeds(used + adding, limitsOf(deps, plan)[limit])) return
  throw paymentRequired(limitMessage(deps, plan, limit))
}

/**
 * "document limit reached: the free plan allows 1000; …" and what lifts it: with billing, the plan to upgrade
 * to; without (no account can buy its way past a cap then), the settings a self-hoster changes.
 */
export function limitMessage(deps: Deps, plan: string, limit: keyof PlanLimits): string {
  const current = asPlan(plan)
  const max = limitsOf(deps, plan)[limit]
  const shown = (limit === 'storage_bytes' || limit === 'file_bytes') && max !== null ? `${max} bytes` : String(max)
  const reached = `${NAMES[limit]} limit reached: the ${current} plan allows ${shown}`
  const higher = (plans: readonly Plan[]) =>
    plans.filter((p) => {
      const other = deps.config.plans[p][limit]
      return other === null || (max !== null && other > max)
    })
  if (!deps.config.stripe.secretKey) {
    const plans = higher(PLANS)
    const setting = `PLAN_${current.toUpperCase()}_${limit.toUpperCase()}`
    return `${reached}; set ${plans.length ? `DEFAULT_PLAN=${plans.join(' or ')}, or raise ` : ''}${setting} to lift it`
  }
  const [upgrade] = higher(BILLED_PLANS)
  return reached + (upgrade ? `; upgrade to ${upgrade} for more` : '')
}
